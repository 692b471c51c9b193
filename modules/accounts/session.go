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
	if msg := PasswordRule(next); msg != "" {
		return SignedIn{}, Invalid{"password": msg}
	}
	hash := hashPassword(next)
	var ended [][]byte
	err = db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
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
	if err != nil {
		return SignedIn{}, err
	}
	u.PasswordHash = hash // the old device tokens died with the old hash
	return s.OpenSession(ctx, u)
}
