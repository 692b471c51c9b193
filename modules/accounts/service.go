package accounts

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"go.uber.org/fx"
	"gorm.io/gorm"

	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/config"
	"folio/platform/db"
	"folio/platform/ids"
)

// Service holds the accounts rules: users, API keys and web sessions. The CLI and the settings UI
// use it; the API guard reads keys and sessions through Store (auth.Credentials).
type Service struct {
	db           *gorm.DB
	store        *Store
	clock        clock.Clock
	hasher       auth.Hasher
	cache        *auth.Cache
	restrictions auth.RestrictionChecker
	keyHolders   []auth.KeyHolder
	sessionTTL   time.Duration
}

// ServiceParams are the dependencies of NewService.
type ServiceParams struct {
	fx.In
	DB           *gorm.DB
	Store        *Store
	Clock        clock.Clock
	Hasher       auth.Hasher
	Cache        *auth.Cache
	Restrictions auth.RestrictionChecker
	Config       config.Config
	// KeyHolders hold data for keys (webhooks): a rotation moves it to the new key.
	KeyHolders []auth.KeyHolder `group:"keyHolders"`
}

// NewService returns the accounts service.
func NewService(p ServiceParams) *Service {
	return &Service{db: p.DB, store: p.Store, clock: p.Clock, hasher: p.Hasher, cache: p.Cache, restrictions: p.Restrictions, keyHolders: p.KeyHolders, sessionTTL: p.Config.SessionTTL}
}

// NormalizeEmail trims and lower-cases an address: accounts are found case-insensitively.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// CreateUser creates an account. The password may be empty (the user then cannot sign in to the
// settings UI until one is set); otherwise it needs at least 8 characters.
func (s *Service) CreateUser(ctx context.Context, email, name, password string) (User, error) {
	if err := CheckNewUser(email, name, password).orNil(); err != nil {
		return User{}, err
	}
	u := User{ID: ids.New(), Email: NormalizeEmail(email), Name: strings.TrimSpace(name)}
	if password != "" {
		u.PasswordHash = hashPassword(password)
	}
	now := s.clock.Now()
	u.CreatedAt, u.UpdatedAt = now, now
	if err := s.store.createUser(ctx, &u); err != nil {
		return User{}, err
	}
	return u, nil
}

// UserByEmail finds an account by email address (case-insensitive).
func (s *Service) UserByEmail(ctx context.Context, email string) (User, error) {
	return s.store.userByEmail(ctx, NormalizeEmail(email))
}

// UsersByIDs returns the accounts with these ids (in no particular order).
func (s *Service) UsersByIDs(ctx context.Context, ids []string) ([]User, error) {
	return s.store.usersByIDs(ctx, ids)
}

// NewKey describes a key to create.
type NewKey struct {
	UserID      string
	Name        string
	Scope       int
	WorkspaceID *string
	NotebookID  *string
	ExpiresAt   *time.Time // nil: never
}

// CreateKey creates an API key and returns its raw form, which is shown once and never stored.
func (s *Service) CreateKey(ctx context.Context, in NewKey) (string, APIKey, error) {
	inv := CheckNewKey(in)
	if in.ExpiresAt != nil {
		if msg := ExpiryRule(*in.ExpiresAt, s.clock.Now()); msg != "" {
			inv["expires"] = msg
		}
		at := in.ExpiresAt.UTC()
		in.ExpiresAt = &at
	}
	if err := inv.orNil(); err != nil {
		return "", APIKey{}, err
	}
	in.Name = strings.TrimSpace(in.Name)
	if in.WorkspaceID != nil || in.NotebookID != nil {
		if err := s.restrictions.CheckRestriction(ctx, in.UserID, in.WorkspaceID, in.NotebookID); err != nil {
			return "", APIKey{}, err
		}
	}
	var raw string
	var key APIKey
	err := db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		var err error
		raw, key, err = s.insertKey(ctx, tx, in, nil)
		return err
	})
	return raw, key, err
}

// insertKey stores a fresh key. A prefix collision (62^8 prefixes) is retried with a new one.
func (s *Service) insertKey(ctx context.Context, tx *gorm.DB, in NewKey, rotatedFrom *string) (string, APIKey, error) {
	for attempt := 0; ; attempt++ {
		raw, prefix, secret := auth.NewKey()
		k := APIKey{
			ID: ids.New(), UserID: in.UserID, Name: in.Name, Prefix: prefix, SecretHash: s.hasher.Hash(secret),
			Scope: in.Scope, WorkspaceID: in.WorkspaceID, NotebookID: in.NotebookID, RotatedFromID: rotatedFrom,
			CreatedAt: s.clock.Now(), ExpiresAt: in.ExpiresAt,
		}
		// A savepoint keeps the outer transaction usable if the insert fails on PostgreSQL.
		err := tx.Transaction(func(sp *gorm.DB) error { return s.store.createKey(ctx, sp, &k) })
		if err == nil {
			return raw, k, nil
		}
		if !db.IsUniqueViolation(err) || attempt >= 3 {
			return "", APIKey{}, fmt.Errorf("insert key: %w", err)
		}
	}
}

// Keys lists a user's keys, newest first, revoked ones included.
func (s *Service) Keys(ctx context.Context, userID string) ([]APIKey, error) {
	return s.store.keysOfUser(ctx, userID)
}

// KeyByPrefix finds a key by its 8-character prefix or its "svc_live_XXXXXXXX" display prefix.
func (s *Service) KeyByPrefix(ctx context.Context, prefix string) (APIKey, error) {
	prefix, ok := auth.PrefixOf(prefix)
	if !ok {
		return APIKey{}, ErrKeyNotFound
	}
	return s.store.keyByPrefix(ctx, nil, prefix, false)
}

// RevokeKey revokes a key. It stops working on this instance at once and on every other instance
// within the key cache's TTL (at most 5 seconds).
func (s *Service) RevokeKey(ctx context.Context, prefix string) (APIKey, error) {
	return s.revokeKey(ctx, "", prefix)
}

// RevokeOwnKey revokes one of userID's keys, like RevokeKey; another user's key is ErrKeyNotFound.
func (s *Service) RevokeOwnKey(ctx context.Context, userID, prefix string) (APIKey, error) {
	return s.revokeKey(ctx, userID, prefix)
}

// revokeKey revokes the key with this prefix; a non-empty owner must be its user.
func (s *Service) revokeKey(ctx context.Context, owner, prefix string) (APIKey, error) {
	prefix, ok := auth.PrefixOf(prefix)
	if !ok {
		return APIKey{}, ErrKeyNotFound
	}
	var key APIKey
	err := db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		var err error
		if key, err = s.store.keyByPrefix(ctx, tx, prefix, true); err != nil {
			return err
		}
		if owner != "" && key.UserID != owner {
			return ErrKeyNotFound
		}
		if key.RevokedAt != nil {
			return ErrKeyRevoked
		}
		now := s.clock.Now()
		key.RevokedAt = &now
		return s.store.revokeKey(ctx, tx, key.ID, now)
	})
	s.cache.InvalidateKey(prefix)
	return key, err
}

// RotateKey replaces a key by a new one with the same name, scope, restriction and expiry under a
// new prefix; the old key is revoked in the same transaction. It returns the new raw key. An
// expired key is not rotated (ErrKeyExpired): its successor would be expired too.
func (s *Service) RotateKey(ctx context.Context, prefix string) (string, APIKey, error) {
	return s.rotateKey(ctx, "", prefix)
}

// RotateOwnKey rotates one of userID's keys, like RotateKey; another user's key is ErrKeyNotFound.
func (s *Service) RotateOwnKey(ctx context.Context, userID, prefix string) (string, APIKey, error) {
	return s.rotateKey(ctx, userID, prefix)
}

// rotateKey rotates the key with this prefix; a non-empty owner must be its user.
func (s *Service) rotateKey(ctx context.Context, owner, prefix string) (string, APIKey, error) {
	prefix, ok := auth.PrefixOf(prefix)
	if !ok {
		return "", APIKey{}, ErrKeyNotFound
	}
	var raw string
	var key APIKey
	err := db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		old, err := s.store.keyByPrefix(ctx, tx, prefix, true)
		if err != nil {
			return err
		}
		if owner != "" && old.UserID != owner {
			return ErrKeyNotFound
		}
		if old.RevokedAt != nil {
			return ErrKeyRevoked
		}
		if old.Expired(s.clock.Now()) {
			return ErrKeyExpired
		}
		if err := s.store.revokeKey(ctx, tx, old.ID, s.clock.Now()); err != nil {
			return err
		}
		in := NewKey{UserID: old.UserID, Name: old.Name, Scope: old.Scope, WorkspaceID: old.WorkspaceID, NotebookID: old.NotebookID, ExpiresAt: old.ExpiresAt}
		if raw, key, err = s.insertKey(ctx, tx, in, &old.ID); err != nil {
			return err
		}
		// What the old key held (its webhooks) is the new key's from now on, in this transaction:
		// a rotation is not a revocation (CONTRACT.md section 20).
		for _, h := range s.keyHolders {
			if err := h.MoveKey(ctx, tx, old.ID, key.ID); err != nil {
				return err
			}
		}
		return nil
	})
	s.cache.InvalidateKey(prefix)
	return raw, key, err
}

// SignedIn is a new web session: the cookie value and the CSRF token its forms carry.
type SignedIn struct {
	Token     string
	CSRFToken string
	Session   Session
	Device    string // a new known-device token (see DeviceCookie); set by SignIn and ChangePassword
}

// SignIn checks a password and opens a web session. A wrong email and a wrong password get the
// same error, and an unknown email still costs one hash, so neither answer nor timing tells
// whether the address has an account.
func (s *Service) SignIn(ctx context.Context, email, password string) (SignedIn, error) {
	if !cleanText(email) || len(email) > 320 {
		// No account has such an address, and PostgreSQL refuses NUL and invalid UTF-8 even in a
		// comparison: answer like any unknown address.
		checkPassword(password, dummyHash)
		return SignedIn{}, ErrBadSignIn
	}
	u, err := s.store.userByEmail(ctx, NormalizeEmail(email))
	if err != nil && err != ErrUserNotFound {
		return SignedIn{}, err
	}
	if err == ErrUserNotFound || u.PasswordHash == "" {
		checkPassword(password, dummyHash)
		return SignedIn{}, ErrBadSignIn
	}
	if !checkPassword(password, u.PasswordHash) {
		return SignedIn{}, ErrBadSignIn
	}
	return s.OpenSession(ctx, u)
}

// dummyHash is what the password of an unknown address is checked against, so that it costs one
// hash with the real parameters, as a known address's does. No password is meant to match it (the
// answer is ErrBadSignIn either way), so its key is zeros rather than derived at start: deriving it
// allocated argon2's 19 MiB while the package initialised, which left the Go heap's first target at
// 40 MiB and the server's resident set that much larger before it served anything (issue 17).
var dummyHash = phcHash(make([]byte, 16), make([]byte, argonKeyLen))

// OpenSession opens a web session for a user, with a known-device token for the browser.
func (s *Service) OpenSession(ctx context.Context, u User) (SignedIn, error) {
	userID := u.ID
	token, csrf := randomToken(), randomToken()
	now := s.clock.Now()
	sess := Session{ID: ids.New(), UserID: userID, TokenHash: auth.HashSessionToken(token), CSRFToken: csrf, CreatedAt: now, ExpiresAt: now.Add(s.sessionTTL)}
	if err := s.store.createSession(ctx, &sess); err != nil {
		return SignedIn{}, err
	}
	return SignedIn{Token: token, CSRFToken: csrf, Session: sess, Device: deviceToken(u)}, nil
}

// SignOut ends the session whose cookie value is token.
func (s *Service) SignOut(ctx context.Context, token string) error {
	hash := auth.HashSessionToken(token)
	s.cache.InvalidateSession(hash)
	return s.store.deleteSessionByHash(ctx, hash)
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Directory answers other modules' questions about accounts. It depends on the store alone, so
// modules that the accounts service itself depends on (through the restriction checker) can use it
// without a dependency cycle.
type Directory struct{ store *Store }

// NewDirectory returns the directory.
func NewDirectory(store *Store) *Directory { return &Directory{store: store} }

// UserIDByEmail returns the id of the account with this email address, or ErrUserNotFound.
func (d *Directory) UserIDByEmail(ctx context.Context, email string) (string, error) {
	if strings.ContainsRune(email, 0) {
		// No account has such an address (CreateUser takes only parseable ones), and PostgreSQL
		// refuses text holding NUL even in a comparison.
		return "", ErrUserNotFound
	}
	u, err := d.store.userByEmail(ctx, NormalizeEmail(email))
	return u.ID, err
}
