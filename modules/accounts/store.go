package accounts

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"folio/platform/auth"
	"folio/platform/db"
)

// Store holds every query of the accounts module.
type Store struct{ db *gorm.DB }

// NewStore returns the accounts store.
func NewStore(gdb *gorm.DB) *Store { return &Store{db: gdb} }

func (s *Store) createUser(ctx context.Context, u *User) error {
	err := s.db.WithContext(ctx).Create(u).Error
	if db.IsUniqueViolation(err) {
		return ErrEmailTaken
	}
	return err
}

func (s *Store) userByEmail(ctx context.Context, email string) (User, error) {
	return db.Take[User](s.db.WithContext(ctx).Where("email = ?", email), false, ErrUserNotFound)
}

func (s *Store) usersByIDs(ctx context.Context, ids []string) ([]User, error) {
	var users []User
	if len(ids) == 0 {
		return users, nil
	}
	err := s.db.WithContext(ctx).Where("id IN ?", ids).Find(&users).Error
	return users, err
}

func (s *Store) createKey(ctx context.Context, tx *gorm.DB, k *APIKey) error {
	if tx == nil {
		tx = s.db
	}
	return tx.WithContext(ctx).Create(k).Error
}

func (s *Store) keyByPrefix(ctx context.Context, tx *gorm.DB, prefix string, lock bool) (APIKey, error) {
	if tx == nil {
		tx = s.db
	}
	return db.Take[APIKey](tx.WithContext(ctx).Where("prefix = ?", prefix), lock, ErrKeyNotFound)
}

func (s *Store) keysOfUser(ctx context.Context, userID string) ([]APIKey, error) {
	var keys []APIKey
	err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("created_at DESC, id DESC").Find(&keys).Error
	return keys, err
}

func (s *Store) revokeKey(ctx context.Context, tx *gorm.DB, id string, at time.Time) error {
	if tx == nil {
		tx = s.db
	}
	return tx.WithContext(ctx).Model(&APIKey{}).Where("id = ? AND revoked_at IS NULL", id).Update("revoked_at", at).Error
}

func (s *Store) createSession(ctx context.Context, sess *Session) error {
	return s.db.WithContext(ctx).Create(sess).Error
}

func (s *Store) deleteSessionByHash(ctx context.Context, hash []byte) error {
	return s.db.WithContext(ctx).Where("token_hash = ?", hash).Delete(&Session{}).Error
}

// sessionByHash returns the session with this token hash and its user (ErrNoSession when none).
func (s *Store) sessionByHash(ctx context.Context, hash []byte) (Session, error) {
	var sess Session
	err := s.db.WithContext(ctx).Preload("User").Where("token_hash = ?", hash).Take(&sess).Error
	if db.IsNotFound(err) || (err == nil && sess.User == nil) {
		return Session{}, ErrNoSession
	}
	return sess, err
}

// deleteSessionsOfUser ends every session of a user and returns their token hashes (for the
// instance's cache).
func (s *Store) deleteSessionsOfUser(ctx context.Context, tx *gorm.DB, userID string) ([][]byte, error) {
	var hashes [][]byte
	if err := tx.WithContext(ctx).Model(&Session{}).Where("user_id = ?", userID).Pluck("token_hash", &hashes).Error; err != nil {
		return nil, err
	}
	return hashes, tx.WithContext(ctx).Where("user_id = ?", userID).Delete(&Session{}).Error
}

func (s *Store) setPassword(ctx context.Context, tx *gorm.DB, userID, hash string, at time.Time) error {
	return tx.WithContext(ctx).Model(&User{}).Where("id = ?", userID).
		Updates(map[string]any{"password_hash": hash, "updated_at": at}).Error
}

func (s *Store) userByID(ctx context.Context, tx *gorm.DB, id string, lock bool) (User, error) {
	return db.Take[User](tx.WithContext(ctx).Where("id = ?", id), lock, ErrUserNotFound)
}

// KeysByIDs implements auth.HeldCredentials: the keys with these ids (revoked ones included).
func (s *Store) KeysByIDs(ctx context.Context, ids []string) ([]auth.KeyRecord, error) {
	var keys []APIKey
	if err := s.db.WithContext(ctx).Where("id IN ?", ids).Find(&keys).Error; err != nil {
		return nil, err
	}
	out := make([]auth.KeyRecord, len(keys))
	for i, k := range keys {
		out[i] = keyRecord(k)
	}
	return out, nil
}

// SessionsByIDs implements auth.HeldCredentials: the sessions with these ids that still exist
// (a signed-out session's row is deleted).
func (s *Store) SessionsByIDs(ctx context.Context, ids []string) ([]auth.SessionRecord, error) {
	var rows []Session
	if err := s.db.WithContext(ctx).Where("id IN ?", ids).Find(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]auth.SessionRecord, len(rows))
	for i, sess := range rows {
		out[i] = auth.SessionRecord{ID: sess.ID, UserID: sess.UserID, CSRFToken: sess.CSRFToken, ExpiresAt: sess.ExpiresAt}
	}
	return out, nil
}

func keyRecord(k APIKey) auth.KeyRecord {
	return auth.KeyRecord{
		ID: k.ID, UserID: k.UserID, Name: k.Name, Prefix: k.Prefix, SecretHash: k.SecretHash, Scope: k.Scope,
		WorkspaceID: k.WorkspaceID, NotebookID: k.NotebookID, Revoked: k.RevokedAt != nil, ExpiresAt: k.ExpiresAt,
	}
}

// KeyByPrefix implements auth.Credentials.
func (s *Store) KeyByPrefix(ctx context.Context, prefix string) (auth.KeyRecord, error) {
	k, err := s.keyByPrefix(ctx, nil, prefix, false)
	if errors.Is(err, ErrKeyNotFound) {
		return auth.KeyRecord{}, auth.ErrNoCredential
	}
	if err != nil {
		return auth.KeyRecord{}, err
	}
	return keyRecord(k), nil
}

// SessionByTokenHash implements auth.Credentials.
func (s *Store) SessionByTokenHash(ctx context.Context, hash []byte) (auth.SessionRecord, error) {
	var sess Session
	err := s.db.WithContext(ctx).Where("token_hash = ?", hash).Take(&sess).Error
	if db.IsNotFound(err) {
		return auth.SessionRecord{}, auth.ErrNoCredential
	}
	if err != nil {
		return auth.SessionRecord{}, err
	}
	return auth.SessionRecord{ID: sess.ID, UserID: sess.UserID, CSRFToken: sess.CSRFToken, ExpiresAt: sess.ExpiresAt}, nil
}

// TouchKey implements auth.Credentials. It writes at most once a minute per key.
func (s *Store) TouchKey(ctx context.Context, keyID string, at time.Time) error {
	return s.db.WithContext(ctx).Model(&APIKey{}).
		Where("id = ? AND (last_used_at IS NULL OR last_used_at < ?)", keyID, at.Add(-time.Minute)).
		Update("last_used_at", at).Error
}
