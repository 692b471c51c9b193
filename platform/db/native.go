package db

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"
)

// Hot reads on PostgreSQL (issue 17): GORM builds the statement text on every call, reflects over
// the destination, and database/sql converts every value of every row to a driver.Value before
// it is scanned; for a single note, its tags and its pending suggestion that was half of folio's
// Go CPU per request, more than the database's own work. A hot read instead sends a constant
// statement (or one GORM built, see QueryBuilt) with pgx, on the pgx connection under one of the
// pool's connections, and scans its rows by hand:
//
//	ok, err := db.Query(ctx, gdb, constSQL, args, func(row db.RowScanner) error { return row.Scan(...) })
//	if !ok { /* SQLite, or inside a transaction: the same read through GORM */ }
//
// It is the only way around GORM for reads, used by the reads every request makes (a note, a page
// of notes, their tags, the pending suggestion). The connection is one of the pool's (so the pool
// size, the session settings and pgx's prepared-statement cache are the same as for GORM's
// statements), the slow-query log and the observers (tracing, the tests' statement counter and
// recorder, registered with ObserveNative) see every statement, and SQLite or a transaction
// (whose connection only GORM holds) are told to take the ordinary path.

// Query sends sql, written with GORM's placeholders (?, numbered as PostgreSQL's $1, $2, ...; the
// text must have no other question mark), with args, natively, and calls each for every row. It
// reports false, without sending anything, when gdb is not PostgreSQL or is in a transaction.
func Query(ctx context.Context, gdb *gorm.DB, sql string, args []any, each func(RowScanner) error) (bool, error) {
	return withNative(ctx, gdb, func(c *native) error { return c.each(ctx, numbered(sql), args, each) })
}

// QueryBuilt is Query for the statement q would send (GORM builds it, dry, with its arguments):
// a hot read whose text depends on the request (a list's filters) is built by GORM and sent
// natively. The context is q's.
func QueryBuilt(q *gorm.DB, each func(RowScanner) error) (bool, error) {
	ctx := q.Statement.Context
	return withNative(ctx, q, func(c *native) error {
		var dest []map[string]any // never filled: the dry run only builds
		built := q.Session(&gorm.Session{DryRun: true}).Find(&dest)
		if built.Error != nil {
			return built.Error
		}
		return c.each(ctx, built.Statement.SQL.String(), built.Statement.Vars, each)
	})
}

// EachRow calls each for every row of rows (GORM's Rows(), whose error is err) and closes them:
// the ordinary path beside Query's.
func EachRow(rows *sql.Rows, err error, each func(RowScanner) error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	return eachRow(rows, each)
}

// cursor is a result being read: *sql.Rows or pgx.Rows.
type cursor interface {
	RowScanner
	Next() bool
	Err() error
}

// eachRow calls each for every row of rows.
func eachRow(rows cursor, each func(RowScanner) error) error {
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// native is a pooled connection's pgx connection, for the duration of withNative's fn.
type native struct {
	conn *pgx.Conn
	gdb  *gorm.DB
	obs  *nativeObservers
}

// RowScanner reads the current row of a result: *sql.Rows and pgx.Rows both are one, so a
// module's hand-written scan serves GORM's path and the native one.
type RowScanner interface {
	Scan(dest ...any) error
}

// NativeObserver watches a native statement: called when it is sent, it returns the function
// called when its rows are closed, with the statement's error (nil for none).
type NativeObserver func(ctx context.Context, sql string, args []any) (done func(err error))

// nativeObservers is a GORM plugin only so that it lives with the *gorm.DB (gdb.Use), as GORM's
// own callbacks do; observers register once at start.
type nativeObservers struct {
	mu   sync.RWMutex
	list []NativeObserver
}

const nativePluginName = "folio:native"

func (*nativeObservers) Name() string               { return nativePluginName }
func (*nativeObservers) Initialize(*gorm.DB) error { return nil }

func observersOf(gdb *gorm.DB) *nativeObservers {
	if p, ok := gdb.Config.Plugins[nativePluginName].(*nativeObservers); ok {
		return p
	}
	return nil
}

// ObserveNative registers o for every native statement sent through gdb (a tracing span, a
// counter). Register at start, before the first request.
func ObserveNative(gdb *gorm.DB, o NativeObserver) error {
	obs := observersOf(gdb)
	if obs == nil {
		obs = &nativeObservers{}
		if err := gdb.Use(obs); err != nil {
			return err
		}
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	obs.list = append(obs.list, o)
	return nil
}

// withNative runs fn with a native connection taken from gdb's pool, released when fn returns.
// It reports false, without running fn, when gdb is not PostgreSQL or is inside a transaction.
func withNative(ctx context.Context, gdb *gorm.DB, fn func(*native) error) (bool, error) {
	pool, ok := gdb.Statement.ConnPool.(*sql.DB)
	if !ok || !IsPostgres(gdb) {
		return false, nil
	}
	conn, err := pool.Conn(ctx)
	if err != nil {
		return true, err
	}
	defer conn.Close()
	return true, conn.Raw(func(driverConn any) error {
		sc, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return errors.New("db: the PostgreSQL pool's connections are not pgx's")
		}
		return fn(&native{conn: sc.Conn(), gdb: gdb, obs: observersOf(gdb)})
	})
}

// each sends sql as it is (placeholders $n) and calls each for every row. The log and the
// observers see the statement from its sending to its last row.
func (n *native) each(ctx context.Context, sql string, args []any, each func(RowScanner) error) (err error) {
	begin := time.Now()
	var dones []func(error)
	if n.obs != nil {
		n.obs.mu.RLock()
		for _, o := range n.obs.list {
			dones = append(dones, o(ctx, sql, args))
		}
		n.obs.mu.RUnlock()
	}
	defer func() {
		n.gdb.Logger.Trace(ctx, begin, func() (string, int64) { return sql, -1 }, err)
		for _, d := range dones {
			if d != nil {
				d(err)
			}
		}
	}()
	rows, err := n.conn.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return eachRow(rows, each)
}

// numberedTexts remembers the numbered form of each statement text. The texts are the hot reads'
// constants (and their IN lists of 1 to 100 ids): a few hundred; past numberedMax the cache stops
// growing and further texts are numbered on every call.
var numberedTexts struct {
	sync.Map
	n atomic.Int64
}

const numberedMax = 2000

// numbered replaces each ? of sql by $1, $2, ... in order.
func numbered(sql string) string {
	if v, ok := numberedTexts.Load(sql); ok {
		return v.(string)
	}
	var b strings.Builder
	b.Grow(len(sql) + 16)
	k := 0
	for i := 0; i < len(sql); i++ {
		if sql[i] != '?' {
			b.WriteByte(sql[i])
			continue
		}
		k++
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(k))
	}
	out := b.String()
	if numberedTexts.n.Load() < numberedMax {
		if _, loaded := numberedTexts.LoadOrStore(sql, out); !loaded {
			numberedTexts.n.Add(1)
		}
	}
	return out
}
