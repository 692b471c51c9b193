package apierr_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	_ "github.com/glebarez/sqlite" // registers the "sqlite" database/sql driver folio's SQLite uses
	"github.com/jackc/pgx/v5/pgconn"

	"folio/platform/apierr"
)

// TestUnavailable classifies real driver errors where the test can provoke them (a refused
// PostgreSQL connection, a refused TCP dial, a busy SQLite database) and the server's SQLSTATEs.
func TestUnavailable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, pgRefused := pgconn.Connect(ctx, "postgres://folio@127.0.0.1:1/folio?sslmode=disable&connect_timeout=5")
	if pgRefused == nil {
		t.Fatal("connecting to port 1 succeeded")
	}
	_, dialRefused := net.Dial("tcp", "127.0.0.1:1")
	if dialRefused == nil {
		t.Fatal("dialling port 1 succeeded")
	}
	busy, constraint := sqliteErrors(t)
	pg := func(code string) error {
		return fmt.Errorf("store: %w", &pgconn.PgError{Severity: "FATAL", Code: code})
	}

	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"PostgreSQL connection refused", pgRefused, true},
		{"wrapped twice", fmt.Errorf("accounts: %w", fmt.Errorf("lookup: %w", pgRefused)), true},
		{"TCP dial refused", dialRefused, true},
		{"SQLite busy after the busy timeout", busy, true},
		{"57P01 admin shutdown (terminated backend)", pg("57P01"), true},
		{"57P02 crash shutdown", pg("57P02"), true},
		{"57P03 the database system is starting up", pg("57P03"), true},
		{"08006 connection failure", pg("08006"), true},
		{"53300 too many connections", pg("53300"), true},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"broken pipe", fmt.Errorf("write: %w", syscall.EPIPE), true},
		{"unexpected EOF in a reply", fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), true},
		{"bad connection", fmt.Errorf("query: %w", driver.ErrBadConn), true},
		{"closed connection", sql.ErrConnDone, true},
		{"deadline while waiting for a connection", fmt.Errorf("acquire: %w", context.DeadlineExceeded), true},

		{"nil", nil, false},
		{"plain error", errors.New("boom"), false},
		{"client went away", context.Canceled, false},
		{"23505 unique violation", pg("23505"), false},
		{"42P01 undefined table (a bug, not an outage)", pg("42P01"), false},
		{"57014 query canceled", pg("57014"), false},
		{"SQLite constraint", constraint, false},
		{"no rows", sql.ErrNoRows, false},
		{"a missing file (an errno, but not the network)", &fs.PathError{Op: "open", Path: "x", Err: syscall.ENOENT}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := apierr.Unavailable(tc.err); got != tc.want {
				t.Fatalf("Unavailable(%v) = %v, want %v", tc.err, got, tc.want)
			}
			if tc.err == nil {
				return
			}
			e := apierr.From(tc.err)
			switch {
			case tc.want && (e.Status != http.StatusServiceUnavailable || e.Code != apierr.CodeUnavailable || e.Header["Retry-After"] != apierr.RetryAfterUnavailable):
				t.Fatalf("From = %d %s %v, want 503 SERVICE_UNAVAILABLE with Retry-After", e.Status, e.Code, e.Header)
			case !tc.want && e.Status != http.StatusInternalServerError:
				t.Fatalf("From = %d %s, want 500", e.Status, e.Code)
			}
			if !errors.Is(e, tc.err) {
				t.Fatal("From does not wrap the cause (it would not be logged)")
			}
		})
	}

	t.Run("an *Error in the chain wins", func(t *testing.T) {
		e := apierr.From(apierr.Validation("query parameter %q is bad", "x").Wrap(pgRefused))
		if e.Status != http.StatusBadRequest {
			t.Fatalf("From = %d, want the handler's 400", e.Status)
		}
	})
}

// sqliteErrors returns a real SQLITE_BUSY (a second connection wants the write lock while a first
// holds it, with no busy timeout) and a real constraint violation.
func sqliteErrors(t *testing.T) (busy, constraint error) {
	path := filepath.Join(t.TempDir(), "busy.db")
	open := func() *sql.DB {
		db, err := sql.Open("sqlite", path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(0)&_txlock=immediate")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { _ = db.Close() })
		return db
	}
	a, b := open(), open()
	if _, err := a.Exec("CREATE TABLE t (id INTEGER PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Exec("INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	_, constraint = a.Exec("INSERT INTO t VALUES (1)")
	if constraint == nil {
		t.Fatal("duplicate insert succeeded")
	}
	tx, err := a.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	_, busy = b.Begin()
	if busy == nil {
		t.Fatal("a second writer got the lock")
	}
	t.Logf("SQLite busy: %v; constraint: %v", busy, constraint)
	return busy, constraint
}
