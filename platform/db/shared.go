package db

import (
	"context"
	"database/sql"
	"sync"

	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"
)

// A read of one item sends a few native statements one after the other (the note, its tags, its
// pending suggestion), and each took a connection from the pool and gave it back. With more
// requests than connections (32 clients, 8 connections on 2 cores), every give-back hands the
// connection to a waiting request: a goroutine woken per statement, about 5 µs of CPU each, which
// the single note's read spent three times (issue 35).
//
// Shared makes the statements of one read share one connection instead:
//
//	err := db.Shared(ctx, gdb, func(ctx context.Context) error { ... db.Query(ctx, ...) ... })
//
// Inside fn, every native statement sent with ctx (Query, Read, QueryBuilt, ReadBuilt,
// Shapes.Query) on gdb's pool goes over one pooled connection: taken by the first, kept for the
// next, given back when fn returns. Nothing else changes: the statements, their order, their
// observers and the fallbacks (SQLite, a transaction) are those of the ordinary path.
//
// The connection is never held while another is awaited, so a shared read cannot deadlock a full
// pool: a GORM statement sent with ctx (Query, Row, Raw, Create, Update, Delete) and
// db.Transaction first give the shared connection back (a later native statement takes one
// again); GORM's own Begin and Transaction and the *sql.DB do not, so inside fn a transaction is
// db.Transaction's. A native statement sent while the connection is busy (from inside another's
// row callback, or from a second goroutine) takes one of its own, as it would without Shared; a
// Shared inside another uses the outer one's. The connection is held only while fn runs (Shared
// waits for a statement still using it, and later ones take their own): a handler answers after
// fn returns, so a slow client never holds one.
func Shared(ctx context.Context, gdb *gorm.DB, fn func(ctx context.Context) error) error {
	pool, ok := gdb.Statement.ConnPool.(*sql.DB)
	if !ok || !IsPostgres(gdb) {
		return fn(ctx)
	}
	if sharedFrom(ctx, pool) != nil {
		// Already inside a Shared scope on this pool: a second connection held beside the outer
		// one would be a connection held while another is awaited.
		return fn(ctx)
	}
	s := &sharedConn{pool: pool}
	defer s.end()
	return fn(context.WithValue(ctx, sharedKey{}, s))
}

type sharedKey struct{}

// sharedConn is Shared's connection: nil until a native statement takes it. mu is held while a
// statement uses it (or while it is given back); a caller that cannot take mu at once does
// without it.
type sharedConn struct {
	mu    sync.Mutex
	pool  *sql.DB
	conn  *sql.Conn
	ended bool // Shared returned: statements sent with its context (a goroutine's) take their own
}

// sharedFrom is ctx's shared connection for pool, nil without one.
func sharedFrom(ctx context.Context, pool *sql.DB) *sharedConn {
	if ctx == nil {
		return nil
	}
	if s, _ := ctx.Value(sharedKey{}).(*sharedConn); s != nil && s.pool == pool {
		return s
	}
	return nil
}

// use runs fn on the shared connection, taking it from the pool first if it has none. It reports
// false, without running fn, when the connection is busy.
func (s *sharedConn) use(ctx context.Context, fn func(*sql.Conn) error) (bool, error) {
	if !s.mu.TryLock() {
		return false, nil
	}
	defer s.mu.Unlock()
	if s.ended {
		return false, nil
	}
	if s.conn == nil {
		c, err := s.pool.Conn(ctx)
		if err != nil {
			return true, err
		}
		s.conn = c
	}
	err := fn(s.conn)
	if err != nil && s.closed() {
		// A statement cancelled mid-read (or a dropped link) closes the pgx connection; the
		// next statement takes a pooled one, which database/sql checks, rather than this one.
		_ = s.conn.Close()
		s.conn = nil
	}
	return true, err
}

// closed reports whether the shared connection's pgx connection is closed.
func (s *sharedConn) closed() (closed bool) {
	_ = s.conn.Raw(func(dc any) error {
		if sc, ok := dc.(*stdlib.Conn); ok {
			closed = sc.Conn().IsClosed()
		}
		return nil
	})
	return closed
}

// end is Shared's return: it waits for a statement still using the connection (a goroutine's),
// gives the connection back, and sends later statements with the context to the ordinary path.
func (s *sharedConn) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	if s.conn != nil {
		_ = s.conn.Close()
		s.conn = nil
	}
}

// giveBack returns the connection to the pool, if it holds one and it is not busy.
func (s *sharedConn) giveBack() {
	if !s.mu.TryLock() {
		return
	}
	defer s.mu.Unlock()
	if s.conn != nil {
		_ = s.conn.Close()
		s.conn = nil
	}
}

// giveBackShared gives ctx's shared connection back before a statement of its own takes one.
func giveBackShared(ctx context.Context, gdb *gorm.DB) {
	if pool, ok := gdb.Statement.ConnPool.(*sql.DB); ok {
		if s := sharedFrom(ctx, pool); s != nil {
			s.giveBack()
		}
	}
}

// releaseSharedForGORM registers the callbacks that give a shared connection back before any GORM
// statement sent with its context takes its own (see Shared).
func releaseSharedForGORM(gdb *gorm.DB) error {
	release := func(stmt *gorm.DB) { giveBackShared(stmt.Statement.Context, stmt) }
	cb := gdb.Callback()
	// Before each processor's first callback (a write's own transaction begins before its statement).
	for _, r := range []struct {
		name     string
		register func(string, func(*gorm.DB)) error
	}{
		{"query", cb.Query().Before("gorm:query").Register},
		{"row", cb.Row().Before("gorm:row").Register},
		{"raw", cb.Raw().Before("gorm:raw").Register},
		{"create", cb.Create().Before("gorm:begin_transaction").Register},
		{"update", cb.Update().Before("gorm:begin_transaction").Register},
		{"delete", cb.Delete().Before("gorm:begin_transaction").Register},
	} {
		if err := r.register("folio:shared_"+r.name, release); err != nil {
			return err
		}
	}
	return nil
}
