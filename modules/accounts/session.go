package accounts

import (
	"context"

	"gorm.io/gorm"

	"folio/platform/auth"
	"folio/platform/db"
)

// CurrentSession returns the live web session whose cookie value is token, with its User loaded.
// An unknown, signed-out or expired session is ErrNoSession (an expired one is deleted).
func (s *Service) CurrentSession(ctx context.Context, token string) (Session, error) {
	if token == "" {
		return Session{}, ErrNoSession
	}
	sess, err := s.store.sessionByHash(ctx, auth.HashSessionToken(token))
	if err != nil {
		return Session{}, err
	}
	if !s.clock.Now().Before(sess.ExpiresAt) {
		_ = s.SignOut(ctx, token)
		return Session{}, ErrNoSession
	}
	return sess, nil
}

// ChangePassword replaces a user's password after checking the current one. Every session of the
// user ends (on every instance: they are looked up in the database, and this instance's cache
// drops them at once; other instances' caches hold a session at most FOLIO_KEY_CACHE_TTL), and a
// new session is opened for the browser that made the change.
func (s *Service) ChangePassword(ctx context.Context, userID, current, next string) (SignedIn, error) {
	u, err := s.store.userByID(ctx, s.db, userID, false)
	if err != nil {
		return SignedIn{}, err
	}
	if u.PasswordHash == "" || !checkPassword(current, u.PasswordHash) {
		return SignedIn{}, ErrBadPassword
	}
	hash, err := s.replacePassword(ctx, userID, next)
	if err != nil {
		return SignedIn{}, err
	}
	u.PasswordHash = hash // the old device tokens died with the old hash
	return s.OpenSession(ctx, u)
}

// SetPassword is the operator's reset (`folio user set-password`): it sets the password of the
// account with this email without asking for the current one (a user created by the CLI has
// none), under the same rule as every password, and ends all the user's sessions.
func (s *Service) SetPassword(ctx context.Context, email, next string) error {
	u, err := s.UserByEmail(ctx, email)
	if err != nil {
		return err
	}
	_, err = s.replacePassword(ctx, u.ID, next)
	return err
}

// replacePassword checks next against the password rule, stores its hash and ends every session
// of the user, in one transaction; it returns the new hash.
func (s *Service) replacePassword(ctx context.Context, userID, next string) (string, error) {
	if msg := PasswordRule(next); msg != "" {
		return "", Invalid{"password": msg}
	}
	hash := hashPassword(next)
	var ended [][]byte
	err := db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		if err := s.store.setPassword(ctx, tx, userID, hash, s.clock.Now()); err != nil {
			return err
		}
		var err error
		ended, err = s.store.deleteSessionsOfUser(ctx, tx, userID)
		return err
	})
	for _, h := range ended {
		s.cache.InvalidateSession(h)
	}
	return hash, err
}

// SetTimeZone stores the zone the web app shows a user's day in (an IANA name the caller has
// checked, as the Focus view reads it; "" goes back to UTC).
func (s *Service) SetTimeZone(ctx context.Context, userID, zone string) error {
	return s.db.WithContext(ctx).Model(&User{}).Where("id = ?", userID).Update("time_zone", zone).Error
}
