package apierr

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// RetryAfterUnavailable is the Retry-After of a 503 (seconds): about what a PostgreSQL restart or
// a failover takes.
const RetryAfterUnavailable = "5"

// Unavailable reports whether err says that the database (or the network to it) cannot be reached
// right now, as opposed to a fault of the request or of folio: such a request may succeed when
// retried, and is answered 503 SERVICE_UNAVAILABLE with Retry-After instead of 500 (CONTRACT.md
// section 11). It looks through wrapped errors and knows:
//
//   - any failure to open a PostgreSQL connection (*pgconn.ConnectError: refused, reset, timed
//     out, "the database system is starting up", "not currently accepting connections", too many
//     connections, an authentication the server refuses);
//   - SQLSTATEs of a server that is going away or cannot take work: class 08 (connection
//     exception), 57P01-57P03 (admin or crash shutdown, cannot connect now), class 53
//     (insufficient resources: too many connections, out of memory, disk full);
//   - a connection lost on the way (a network error, connection refused or reset, a broken pipe,
//     an end of stream in the middle of a reply, database/sql's bad or closed connection);
//   - a deadline that ran out while waiting (for a pooled connection or for an answer);
//   - SQLite's busy, locked and cannot-open results: another connection or process kept the
//     database locked for the whole busy timeout (10 s), or its file cannot be opened.
//
// An *Error anywhere in the chain wins over all of this (From looks for it first): a handler that
// already decided what to answer is not second-guessed.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return true
	}
	var sqlState interface{ SQLState() string }
	if errors.As(err, &sqlState) {
		code := sqlState.SQLState()
		switch {
		case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"),
			code == "57P01", code == "57P02", code == "57P03":
			return true
		}
		return false // any other answer from the server is not an outage
	}
	var sqliteErr interface{ Code() int }
	if errors.As(err, &sqliteErr) && strings.Contains(err.Error(), "SQLITE_") {
		switch sqliteErr.Code() & 0xff { // the primary result code of an extended one
		case 5, 6, 14: // SQLITE_BUSY, SQLITE_LOCKED, SQLITE_CANTOPEN
			return true
		}
		return false
	}
	// *net.OpError, not net.Error: every syscall.Errno is a net.Error (it has Timeout and
	// Temporary), a missing file's ENOENT included.
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)
}
