package auth

import (
	"context"
	"errors"
	"time"

	"github.com/gin-gonic/gin"
)

// Credential says how a principal authenticated.
type Credential string

// The credentials a principal can present.
const (
	CredentialKey     Credential = "key"
	CredentialSession Credential = "session"
)

// Principal is who is acting: a user, through one API key or through a web session.
type Principal struct {
	Credential  Credential
	UserID      string
	Scope       int
	KeyID       string  // key principals only
	KeyName     string  // key principals only
	KeyPrefix   string  // "svc_live_XXXXXXXX"; key principals only
	WorkspaceID *string // set for a workspace-scoped key
	NotebookID  *string // set for a notebook-scoped key
	SessionID   string  // session principals only
}

// SessionPrincipal is the principal of a signed-in person's session: the user's own reach, read
// and write (a session has every scope and no restriction). The API guard makes it for a session
// cookie; the server-rendered pages make it for theirs.
func SessionPrincipal(userID, sessionID string) Principal {
	return Principal{Credential: CredentialSession, UserID: userID, Scope: ScopeReadWrite, SessionID: sessionID}
}

// Unrestricted reports whether the principal may go everywhere its user may.
func (p *Principal) Unrestricted() bool { return p.WorkspaceID == nil && p.NotebookID == nil }

// Can reports whether the principal's scope includes the bits of want.
func (p *Principal) Can(want int) bool { return p.Scope&want == want }

// KeyRecord is an API key as the credential store knows it.
type KeyRecord struct {
	ID          string
	UserID      string
	Name        string
	Prefix      string // the 8 characters
	SecretHash  []byte
	Scope       int
	WorkspaceID *string
	NotebookID  *string
	Revoked     bool
	ExpiresAt   *time.Time // nil: never; the key is refused from this instant on
}

// SessionRecord is a web session as the credential store knows it.
type SessionRecord struct {
	ID        string
	UserID    string
	CSRFToken string
	ExpiresAt time.Time
}

// ErrNoCredential is returned by a Credentials store when nothing matches.
var ErrNoCredential = errors.New("no such credential")

// Credentials is the store of keys and sessions (implemented by the accounts module).
type Credentials interface {
	KeyByPrefix(ctx context.Context, prefix string) (KeyRecord, error)
	SessionByTokenHash(ctx context.Context, hash []byte) (SessionRecord, error)
	// TouchKey records that a key was used (best effort, called at most once per cache period).
	TouchKey(ctx context.Context, keyID string, at time.Time) error
}

// RestrictionChecker tells whether a restricted key's workspace or notebook is still within its
// user's reach (implemented by the notebooks module). It returns an *apierr.Error such as
// NOT_WORKSPACE_MEMBER, or nil.
type RestrictionChecker interface {
	CheckRestriction(ctx context.Context, userID string, workspaceID, notebookID *string) error
}

const ctxPrincipal = "folio.principal"

// FromGin returns the principal the middleware authenticated. Handlers behind the API guard always
// have one.
func FromGin(c *gin.Context) *Principal {
	if p, ok := c.Get(ctxPrincipal); ok {
		return p.(*Principal)
	}
	return nil
}

// WithPrincipal stores p on the gin context (the middleware does this; tests may too).
func WithPrincipal(c *gin.Context, p *Principal) { c.Set(ctxPrincipal, p) }
