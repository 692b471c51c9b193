package apitest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.uber.org/fx"
	"gorm.io/gorm"

	"folio/app"
	"folio/modules/accounts"
	"folio/modules/audit"
	"folio/modules/document"
	"folio/modules/events"
	"folio/modules/items"
	"folio/modules/notebooks"
	"folio/modules/notes"
	"folio/modules/suggestions"
	"folio/modules/tags"
	"folio/modules/tasks"
	"folio/modules/versions"
	"folio/modules/workspaces"
	"folio/platform"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/tests/testenv"
)

// Graph is the application without its HTTP server, built through the real fx graph on a fresh,
// migrated database, with the services the modules' service tests call. Its clock is a fake one
// that moves only when a test advances it.
type Graph struct {
	DB          *gorm.DB
	Clock       *clock.Fake
	SQL         *testenv.SQLCounter
	Accounts    *accounts.Service
	Workspaces  *workspaces.Service
	Notebooks   *notebooks.Service
	Access      *notebooks.Access
	Audit       *audit.Service
	Events      *events.Service
	Tags        *tags.Service
	Versions    *versions.Store
	Notes       *notes.Service
	Tasks       *tasks.Service
	Suggestions *suggestions.Service
	Reminders   *items.Reminders
}

// NewGraph builds and starts the graph on a fresh database of the given kind; extra adds to the
// graph (a value group member, say). It stops when the test ends.
func NewGraph(t testing.TB, kind string, opts []Option, extra ...fx.Option) *Graph {
	t.Helper()
	c := Config(t, kind)
	for _, o := range opts {
		o(&c)
	}
	g := &Graph{Clock: clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))}
	run(t, app.New(append(extra, fx.Replace(c), FakeClock(g.Clock), fx.Invoke(func(platform.Migrated) {}),
		fx.Populate(&g.DB, &g.Accounts, &g.Workspaces, &g.Notebooks, &g.Access, &g.Audit, &g.Events, &g.Tags, &g.Versions, &g.Notes, &g.Tasks, &g.Suggestions, &g.Reminders))...))
	g.SQL = testenv.CountSQL(g.DB)
	return g
}

// NewUser creates an account and returns it with the principal of a web session of it (read and
// write, unrestricted).
func (g *Graph) NewUser(t testing.TB, name string) (accounts.User, *auth.Principal) {
	t.Helper()
	u, err := g.Accounts.CreateUser(context.Background(), fmt.Sprintf("user%d@example.com", userSeq.Add(1)), name, "")
	if err != nil {
		t.Fatalf("create user: %v", err)
	}
	return u, &auth.Principal{Credential: auth.CredentialSession, UserID: u.ID, Scope: auth.ScopeReadWrite, SessionID: "session-of-" + u.ID}
}

// NewKey creates an API key of the user and returns the principal the API guard makes of it.
func (g *Graph) NewKey(t testing.TB, userID string, scope int, opts ...KeyOpts) *auth.Principal {
	t.Helper()
	_, k := createKey(t, g.Accounts, userID, scope, opts)
	return &auth.Principal{Credential: auth.CredentialKey, UserID: k.UserID, Scope: k.Scope, KeyID: k.ID, KeyName: k.Name,
		KeyPrefix: auth.DisplayPrefix(k.Prefix), WorkspaceID: k.WorkspaceID, NotebookID: k.NotebookID}
}

// NewWorkspace creates a workspace owned by p's user and returns its id.
func (g *Graph) NewWorkspace(t testing.TB, p *auth.Principal, name string) string {
	t.Helper()
	v, err := g.Workspaces.Create(context.Background(), p, name)
	if err != nil {
		t.Fatalf("create workspace: %v", err)
	}
	return v.Workspace.ID
}

// NewNotebook creates a notebook, personal when workspaceID is empty, and returns its id.
func (g *Graph) NewNotebook(t testing.TB, p *auth.Principal, name, workspaceID string) string {
	t.Helper()
	in := notebooks.NewNotebook{Name: name}
	if workspaceID != "" {
		in.WorkspaceID, in.WorkspaceSet = &workspaceID, true
	}
	nb, err := g.Notebooks.Create(context.Background(), p, in)
	if err != nil {
		t.Fatalf("create notebook: %v", err)
	}
	return nb.ID
}

// Doc parses Markdown that the test knows to be valid, as a request's body field is parsed (with
// the Markdown a write hands on).
func Doc(t testing.TB, md string) document.Parsed {
	t.Helper()
	d, err := document.Parse("content", md)
	if err != nil {
		t.Fatalf("parse %q: %v", md, err)
	}
	return d
}

// WantErr fails the test unless err is an *apierr.Error with the status, code and message of want.
func WantErr(t testing.TB, err error, want *apierr.Error) {
	t.Helper()
	var got *apierr.Error
	if !errors.As(err, &got) {
		t.Fatalf("error %v, want %v", err, want)
	}
	if got.Status != want.Status || got.Code != want.Code || got.Message != want.Message {
		t.Fatalf("error %d %s %q, want %d %s %q", got.Status, got.Code, got.Message, want.Status, want.Code, want.Message)
	}
}
