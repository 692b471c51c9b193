// Package apitest starts the real folio application (the whole fx graph and a real HTTP server on
// a loopback port) on a fresh database, and speaks HTTP to it. Every end-to-end suite uses it, and
// every suite runs once per database: embedded SQLite always, PostgreSQL through testcontainers
// or FOLIO_TEST_DATABASE_URL (see package testenv).
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/fx"
	"gorm.io/gorm"

	"folio/app"
	"folio/modules/accounts"
	"folio/modules/document"
	"folio/modules/items"
	"folio/platform/apidoc"
	"folio/platform/auth"
	"folio/platform/config"
	"folio/platform/db"
	"folio/platform/httpx"
	"folio/tests/testenv"
)

// Server is a running folio.
type Server struct {
	URL      string
	Accounts *accounts.Service
	DB       *gorm.DB
	Cache    *auth.Cache
	Config   config.Config
	client   *http.Client
	sql      *testenv.SQLCounter
	// Contract validates every exchange under /api/v1 against the served OpenAPI document.
	Contract *Contract
	// Reminders is the reminder loop: Fire runs a round now (tests with a fake clock).
	Reminders *items.Reminders
	// Rerender writes stored texts again from their trees (modules/document): All runs a pass
	// now.
	Rerender *document.Rerender
}

// Option changes the configuration of a test server.
type Option func(*config.Config)

// Config returns the configuration a test server starts from: loopback on a free port, limits
// raised so that only the tests about limits meet them, quiet logs.
func Config(t testing.TB, kind string) config.Config {
	c := config.Default()
	c.HTTPAddr = "127.0.0.1:0"
	c.RateLimit = 100000
	c.AuthFailureLimit = 100000
	c.LogLevel = "error"
	c.ShutdownTimeout = 5 * time.Second
	switch kind {
	case "sqlite":
		c.SQLitePath = filepath.Join(t.TempDir(), "folio.db")
	case "postgres":
		c.DatabaseURL = testenv.PostgresDB(t, migrateURL)
		c.DBMaxOpenConns, c.DBMaxIdleConns = 20, 20
	default:
		t.Fatalf("unknown database kind %q", kind)
	}
	return c
}

// migrateURL prepares the PostgreSQL template database with the application's own migrations.
func migrateURL(url string) error {
	c := config.Default()
	c.DatabaseURL = url
	c.LogLevel = "error"
	return app.Exec(context.Background(), func(context.Context) error { return nil }, fx.Replace(c))
}

// Start starts a server on a fresh database of the given kind; it stops when the test ends.
func Start(t testing.TB, kind string, opts ...Option) *Server {
	t.Helper()
	c := Config(t, kind)
	for _, o := range opts {
		o(&c)
	}
	return StartWith(t, c)
}

// StartWith starts a server with exactly this configuration.
func StartWith(t testing.TB, c config.Config, extra ...fx.Option) *Server {
	t.Helper()
	s := &Server{Config: c, client: &http.Client{Timeout: 30 * time.Second}}
	var srv *httpx.Server
	var doc *apidoc.Document
	run(t, app.Serve(append(extra, fx.Replace(c), fx.Populate(&srv, &s.Accounts, &s.DB, &s.Cache, &doc, &s.Reminders, &s.Rerender))...))
	s.URL = "http://" + srv.Addr()
	s.Contract = ContractFor(t, doc.JSON)
	s.sql = testenv.CountSQL(s.DB)
	return s
}

// SQL returns what fn cost the database in reading statements (see testenv.SQLCost).
func (s *Server) SQL(fn func()) testenv.SQLCost { return s.sql.Cost(fn) }

// SQLReads returns how many reading statements fn sent to the database.
func (s *Server) SQLReads(fn func()) int64 { return s.sql.Reads(fn) }

// IsPostgres reports whether the server runs on PostgreSQL.
func (s *Server) IsPostgres() bool { return db.IsPostgres(s.DB) }

// User is a test account.
type User struct {
	ID    string
	Email string
	Name  string
}

var userSeq atomic.Int64

// NewUser creates an account with a unique email.
func (s *Server) NewUser(t testing.TB, name string) User {
	t.Helper()
	email := fmt.Sprintf("%s.%d@example.com", strings.ToLower(strings.ReplaceAll(name, " ", ".")), userSeq.Add(1))
	u, err := s.Accounts.CreateUser(context.Background(), email, name, "")
	if err != nil {
		t.Fatalf("create user: %v", err)
	}
	return User{ID: u.ID, Email: u.Email, Name: u.Name}
}

// KeyOpts restrict a new key.
type KeyOpts struct {
	Workspace string
	Notebook  string
}

// NewKey creates an API key for a user and returns the raw key.
func (s *Server) NewKey(t testing.TB, u User, scope int, opts ...KeyOpts) string {
	t.Helper()
	raw, _ := createKey(t, s.Accounts, u.ID, scope, opts)
	return raw
}

// createKey creates an API key with a unique name, restricted as opts say.
func createKey(t testing.TB, svc *accounts.Service, userID string, scope int, opts []KeyOpts) (string, accounts.APIKey) {
	t.Helper()
	in := accounts.NewKey{UserID: userID, Name: fmt.Sprintf("key-%d", userSeq.Add(1)), Scope: scope}
	for _, o := range opts {
		if o.Workspace != "" {
			in.WorkspaceID = &o.Workspace
		}
		if o.Notebook != "" {
			in.NotebookID = &o.Notebook
		}
	}
	raw, key, err := svc.CreateKey(context.Background(), in)
	if err != nil {
		t.Fatalf("create key: %v", err)
	}
	return raw, key
}

// Response is what a request got back.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body as a JSON object.
func (r Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

// Str returns a string field of the JSON body.
func (r Response) Str(t testing.TB, field string) string {
	t.Helper()
	v, _ := r.JSON(t)[field].(string)
	return v
}

// Data returns the "data" array of a list response.
func (r Response) Data(t testing.TB) []map[string]any {
	t.Helper()
	raw, ok := r.JSON(t)["data"].([]any)
	if !ok {
		t.Fatalf("no data array in %s", r.Body)
	}
	out := make([]map[string]any, len(raw))
	for i, v := range raw {
		out[i] = v.(map[string]any)
	}
	return out
}

// ErrorCode returns error.code of an error envelope ("" when there is none).
func (r Response) ErrorCode(t testing.TB) string {
	t.Helper()
	var env struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &env)
	return env.Error.Code
}

// Request describes one HTTP request.
type Request struct {
	Method  string
	Path    string // relative to /api/v1 unless it starts with "//" (then relative to the root)
	Key     string // sent as "Authorization: Bearer <Key>" when not empty
	Body    any    // marshalled to JSON unless it is a string (sent as is) or nil
	Header  map[string]string
	NoCType bool // do not set Content-Type: application/json on a body
}

// Do sends a request.
func (s *Server) Do(t testing.TB, r Request) Response {
	t.Helper()
	var body io.Reader
	var sent []byte
	switch b := r.Body.(type) {
	case nil:
	case string:
		sent = []byte(b)
	case []byte:
		sent = b
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		sent = raw
	}
	if r.Body != nil {
		body = bytes.NewReader(sent)
	}
	url := s.URL + httpx.APIBase + r.Path
	if strings.HasPrefix(r.Path, "//") {
		url = s.URL + r.Path[1:]
	}
	req, err := http.NewRequest(r.Method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.Key != "" {
		req.Header.Set("Authorization", "Bearer "+r.Key)
	}
	if body != nil && !r.NoCType {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.Header {
		if http.CanonicalHeaderKey(k) == "Host" { // net/http sends req.Host, never a Host header
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, r.Path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
	s.Contract.Check(t, req, sent, out)
	return out
}

// Get, Post, Patch and Delete are shorthands for Do.
func (s *Server) Get(t testing.TB, key, path string) Response {
	t.Helper()
	return s.Do(t, Request{Method: http.MethodGet, Path: path, Key: key})
}

// Post sends a JSON body.
func (s *Server) Post(t testing.TB, key, path string, body any) Response {
	t.Helper()
	return s.Do(t, Request{Method: http.MethodPost, Path: path, Key: key, Body: body})
}

// Delete sends a DELETE.
func (s *Server) Delete(t testing.TB, key, path string) Response {
	t.Helper()
	return s.Do(t, Request{Method: http.MethodDelete, Path: path, Key: key})
}

// Must fails the test unless the response has the wanted status; it returns the response.
func Must(t testing.TB, r Response, status int) Response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	return r
}

// CheckEnvelope asserts that r is a well-formed error envelope with the wanted status and code,
// whose requestId equals the X-Request-Id header and whose message is not empty.
func CheckEnvelope(t testing.TB, r Response, status int, code string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d (%s): %s", r.Status, status, code, r.Body)
	}
	var env struct {
		Error struct {
			Code, Message, RequestID string
		} `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &env); err != nil {
		t.Fatalf("error body is not JSON: %s", r.Body)
	}
	if env.Error.Code != code {
		t.Fatalf("code %q, want %q: %s", env.Error.Code, code, r.Body)
	}
	if env.Error.Message == "" || env.Error.RequestID == "" || env.Error.RequestID != r.Header.Get("X-Request-Id") {
		t.Fatalf("malformed envelope (message, requestId = X-Request-Id): %s / header %q", r.Body, r.Header.Get("X-Request-Id"))
	}
}

// StartFx starts a server on a fresh database of the given kind, like Start, with extra fx options
// (for example FakeClock) added to the application graph.
func StartFx(t testing.TB, kind string, opts []Option, extra ...fx.Option) *Server {
	t.Helper()
	c := Config(t, kind)
	for _, o := range opts {
		o(&c)
	}
	return StartWith(t, c, extra...)
}

// run starts a built application and stops it when the test ends.
func run(t testing.TB, a *fx.App) {
	t.Helper()
	if err := a.Err(); err != nil {
		t.Fatalf("build app: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := a.Start(ctx); err != nil {
		t.Fatalf("start app: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			t.Logf("stop app: %v", err)
		}
	})
}
