package e2e

import (
	"context"
	"database/sql"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

// TestDatabaseOutage: while PostgreSQL cannot be reached, requests get 503 SERVICE_UNAVAILABLE
// with Retry-After and the envelope (not 500), whether the failure meets the API guard (a key that
// is not cached) or a handler (a cached key); /readyz says 503 too. When the database is back, the
// same server answers again without a restart. The app reaches PostgreSQL through a TCP proxy the
// test controls: refused connections (the server is down), connections dropped as they open (a
// server going away), and then the real server refusing new connections and terminating the app's
// (ALLOW_CONNECTIONS false and pg_terminate_backend, SQLSTATE 57P01 and 55000).
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	cfg := apitest.Config(t, "postgres")
	dbURL, err := url.Parse(cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	dbName := strings.TrimPrefix(dbURL.Path, "/")
	proxy := startTCPProxy(t, dbURL.Host)
	dbURL.Host = proxy.addr
	cfg.DatabaseURL = dbURL.String()
	s := apitest.StartWith(t, cfg)

	u := s.NewUser(t, "Olive Outage")
	key := s.NewKey(t, u, auth.ScopeReadWrite)
	sess := s.OpenSession(t, u)
	nb := apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "up"}), 201).Str(t, "id")

	check503 := func(t *testing.T, r apitest.Response) {
		t.Helper()
		apitest.CheckEnvelope(t, r, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
		if got := r.Header.Get("Retry-After"); got != apierr.RetryAfterUnavailable {
			t.Fatalf("Retry-After %q, want %q", got, apierr.RetryAfterUnavailable)
		}
	}
	// outage checks every way a request meets the database: a cached key (the handler's query), a
	// key made while up and never used (the guard's lookup, which must not count as a failed
	// authentication), an unknown key, a write, and /readyz. Twice: nothing is cached meanwhile.
	outage := func(t *testing.T, fresh string) {
		t.Helper()
		for range 2 {
			check503(t, s.Get(t, key, "/notebooks/"+nb))
			check503(t, s.Get(t, fresh, "/notebooks"))
			check503(t, s.Get(t, "svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB", "/notebooks"))
			check503(t, s.Post(t, key, "/notebooks", map[string]any{"name": "during"}))
			check503(t, s.Get(t, "", "//readyz"))
			// The settings UI: a page, not the envelope, with the same status and Retry-After.
			r := s.Do(t, apitest.Request{Method: "GET", Path: "//settings/keys", Header: apitest.SessionHeader(sess.Token, "")})
			if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") != apierr.RetryAfterUnavailable ||
				!strings.Contains(string(r.Body), "Temporarily unavailable") {
				t.Fatalf("settings page during the outage: %d, Retry-After %q: %.300s", r.Status, r.Header.Get("Retry-After"), r.Body)
			}
		}
	}
	// prepare makes a fresh key and puts key in the cache, while the database is up.
	prepare := func(t *testing.T) string {
		t.Helper()
		fresh := s.NewKey(t, u, auth.ScopeRead)
		apitest.Must(t, s.Get(t, key, "/notebooks/"+nb), 200)
		return fresh
	}
	up := func(t *testing.T) {
		t.Helper()
		apitest.Must(t, s.Get(t, key, "/notebooks/"+nb), 200)
		apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "after"}), 201)
		apitest.Must(t, s.Get(t, s.NewKey(t, u, auth.ScopeRead), "/notebooks"), 200)
		apitest.Must(t, s.Get(t, "", "//readyz"), 200)
	}

	for _, tc := range []struct {
		name string
		drop bool // proxy.cut's argument
	}{{"connections refused", false}, {"connections dropped as they open", true}} {
		t.Run(tc.name, func(t *testing.T) {
			fresh := prepare(t)
			proxy.cut(tc.drop)
			t.Cleanup(proxy.restore)
			outage(t, fresh)
			proxy.restore()
			up(t)
		})
	}
	t.Run("the server refuses the database and terminates its backends", func(t *testing.T) {
		admin := testenv.PostgresAdminURL(t)
		fresh := prepare(t)
		execPG(t, admin, `ALTER DATABASE "`+dbName+`" ALLOW_CONNECTIONS false`)
		t.Cleanup(func() { execPG(t, admin, `ALTER DATABASE "`+dbName+`" ALLOW_CONNECTIONS true`) })
		execPG(t, admin, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '`+dbName+`' AND pid <> pg_backend_pid()`)
		outage(t, fresh)
		execPG(t, admin, `ALTER DATABASE "`+dbName+`" ALLOW_CONNECTIONS true`)
		up(t)
	})
}

// TestDatabaseBusySQLite: on SQLite, another process holding the write lock (a CLI, a backup) for
// longer than the busy timeout (10 s) makes a write answer 503 SERVICE_UNAVAILABLE with
// Retry-After, not 500; reads go on meanwhile (WAL), and writes work again once the lock is gone.
// It waits the busy timeout once.
func TestDatabaseBusySQLite(t *testing.T) {
	// Parallel: it mostly waits (see "Parallel tests" in docs/testing.md).
	t.Parallel()
	s := apitest.Start(t, "sqlite")
	u := s.NewUser(t, "Lars Locked")
	key := s.NewKey(t, u, auth.ScopeReadWrite)
	apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "before"}), 201)

	other, err := sql.Open("sqlite", s.Config.SQLitePath+"?_pragma=busy_timeout(5000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lock, err := other.Begin() // BEGIN IMMEDIATE: the write lock, held until Rollback
	if err != nil {
		t.Fatal(err)
	}
	r := s.Post(t, key, "/notebooks", map[string]any{"name": "during"})
	apitest.Must(t, s.Get(t, key, "/notebooks"), 200)
	_ = lock.Rollback()
	apitest.CheckEnvelope(t, r, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
	if got := r.Header.Get("Retry-After"); got != apierr.RetryAfterUnavailable {
		t.Fatalf("Retry-After %q, want %q", got, apierr.RetryAfterUnavailable)
	}
	apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "after"}), 201)
}

// execPG runs one statement on the PostgreSQL server at rawURL.
func execPG(t *testing.T, rawURL, stmt string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, rawURL)
	if err != nil {
		t.Fatalf("connect to %s: %v", rawURL, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, stmt).ReadAll(); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// tcpProxy forwards loopback connections to a target. cut(false) closes its listener (new
// connections are refused) and every open connection; cut(true) keeps listening but closes each
// new connection at once and the open ones; restore forwards again on the same port.
type tcpProxy struct {
	target, addr string
	mu           sync.Mutex
	ln           net.Listener
	drop         bool
	conns        map[net.Conn]struct{}
}

func startTCPProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	p := &tcpProxy{target: target, conns: map[net.Conn]struct{}{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(func() {
		p.mu.Lock()
		if p.ln != nil {
			_ = p.ln.Close()
		}
		p.mu.Unlock()
		p.closeAll()
	})
	return p
}

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			drop := p.drop
			p.mu.Unlock()
			if drop {
				_ = c.Close()
				continue
			}
			go p.forward(c)
		}
	}()
}

func (p *tcpProxy) forward(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[up] = struct{}{}, struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(up, c)
	go pipe(c, up)
	<-done
	_ = c.Close()
	_ = up.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}

func (p *tcpProxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
}

func (p *tcpProxy) cut(drop bool) {
	p.mu.Lock()
	p.drop = drop
	if !drop && p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	p.mu.Unlock()
	p.closeAll()
}

func (p *tcpProxy) restore() {
	p.mu.Lock()
	p.drop = false
	listening := p.ln != nil
	p.mu.Unlock()
	if listening {
		return
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		panic("proxy: listen again on " + p.addr + ": " + err.Error())
	}
	p.serve(ln)
}
