package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
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
//	if !ok { /* SQLite, or a transaction not Transaction's: the same read through GORM */ }
//
// It is the only way around GORM for reads, used by the reads every request makes (a note, a page
// of notes, their tags, the pending suggestion). The connection is one of the pool's (so the pool
// size, the session settings and pgx's prepared-statement cache are the same as for GORM's
// statements), the slow-query log and the observers (tracing, the tests' statement counter and
// recorder, registered with ObserveNative) see every statement, and SQLite or a transaction
// whose connection only GORM holds (a Unit's) are told to take the ordinary path. Inside a
// transaction that Transaction began, native statements are sent in it (txnative.go).

// Query sends sql, written with GORM's placeholders (?, numbered as PostgreSQL's $1, $2, ...; the
// text must have no other question mark), with args, natively, and calls each for every row. It
// reports false, without sending anything, when gdb is not PostgreSQL or is in a transaction that
// Transaction did not begin (inside one it did, the statement is sent in it: txnative.go).
func Query(ctx context.Context, gdb *gorm.DB, sql string, args []any, each func(RowScanner) error) (bool, error) {
	return withNative(ctx, gdb, func(c native) error { return c.each(ctx, numbered(sql), args, each) })
}

// QueryBuilt is Query for the statement q would send (GORM builds it, dry, with its arguments):
// a hot read whose text depends on the request (a list's filters) is built by GORM and sent
// natively. The context is q's.
func QueryBuilt(q *gorm.DB, each func(RowScanner) error) (bool, error) {
	ctx := q.Statement.Context
	return withNative(ctx, q, func(c native) error { return c.eachBuilt(ctx, q, each) })
}

// Read is Query that falls back to GORM's Raw with the same statement where Query cannot send it
// (SQLite, a transaction): for a read whose rows scan alike on both drivers.
func Read(ctx context.Context, gdb *gorm.DB, sql string, args []any, each func(RowScanner) error) error {
	ok, err := Query(ctx, gdb, sql, args, each)
	if !ok {
		rows, qerr := gdb.WithContext(ctx).Raw(sql, args...).Rows()
		err = EachRow(rows, qerr, each)
	}
	return err
}

// ReadBuilt is QueryBuilt that falls back to q's own Rows.
func ReadBuilt(q *gorm.DB, each func(RowScanner) error) error {
	ok, err := QueryBuilt(q, each)
	if !ok {
		rows, qerr := q.Rows()
		err = EachRow(rows, qerr, each)
	}
	return err
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
	tx   *connTx // the transaction the connection is in (Transaction's), nil outside one
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

func (*nativeObservers) Name() string              { return nativePluginName }
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

// withNative runs fn with a native connection taken from gdb's pool, released when fn returns, or
// with ctx's shared connection (Shared).
// It reports false, without running fn, when gdb is not PostgreSQL or is inside a transaction
// that Transaction did not begin; inside one it did, fn runs on the transaction's connection.
// fn takes the native by value: a pointer given to a function value would be moved to the heap,
// one allocation per statement.
func withNative(ctx context.Context, gdb *gorm.DB, fn func(native) error) (bool, error) {
	if !IsPostgres(gdb) {
		return false, nil
	}
	var pool *sql.DB
	switch cp := gdb.Statement.ConnPool.(type) {
	case *sql.DB:
		pool = cp
	case *connTx:
		return true, rawNative(cp.conn, gdb, cp, fn)
	default:
		return false, nil
	}
	if s := sharedFrom(ctx, pool); s != nil {
		if used, err := s.use(ctx, func(conn *sql.Conn) error { return rawNative(conn, gdb, nil, fn) }); used {
			return true, err
		}
	}
	conn, err := pool.Conn(ctx)
	if err != nil {
		return true, err
	}
	defer conn.Close()
	return true, rawNative(conn, gdb, nil, fn)
}

// rawNative runs fn on conn's pgx connection; tx is the transaction conn is in (nil: none).
func rawNative(conn *sql.Conn, gdb *gorm.DB, tx *connTx, fn func(native) error) error {
	return conn.Raw(func(driverConn any) error {
		pc, err := pgxOf(driverConn)
		if err != nil {
			return err
		}
		return fn(native{conn: pc, gdb: gdb, obs: observersOf(gdb), tx: tx})
	})
}

// each sends sql as it is (placeholders $n) and calls each for every row. The log and the
// observers see the statement from its sending to its last row.
func (n *native) each(ctx context.Context, sql string, args []any, each func(RowScanner) error) error {
	return n.observe(ctx, sql, args, func(ctx context.Context) error {
		rows, err := n.conn.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		return eachRow(rows, each)
	})
}

// observe runs send, the sending of sql with args, seen by the observers (given the statement's
// transaction in their context, NativeTx) and by the slow-query log.
func (n *native) observe(ctx context.Context, sql string, args []any, send func(ctx context.Context) error) (err error) {
	begin := time.Now()
	var dones []func(error)
	if n.obs != nil {
		octx := ctx
		if n.tx != nil {
			octx = context.WithValue(ctx, nativeTxKey{}, n.tx)
		}
		n.obs.mu.RLock()
		for _, o := range n.obs.list {
			dones = append(dones, o(octx, sql, args))
		}
		n.obs.mu.RUnlock()
	}
	defer func() {
		n.trace(ctx, begin, sql, err)
		for _, d := range dones {
			if d != nil {
				d(err)
			}
		}
	}()
	return send(ctx)
}

// trace gives a native statement to the slow-query log as GORM gives its own (Logger.Trace). Folio's
// logger is told the text itself: GORM's Trace takes it through a closure, made on every statement
// though it is called only for a slow or failed one.
func (n *native) trace(ctx context.Context, begin time.Time, sql string, err error) {
	if l, ok := n.gdb.Logger.(*zapGormLogger); ok {
		l.traceText(begin, sql, err)
		return
	}
	n.gdb.Logger.Trace(ctx, begin, func() (string, int64) { return sql, -1 }, err)
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

// ValueRows is the VALUES list of n rows of width placeholders each, "(?,?),(?,?)", for a
// multi-row INSERT sent as constant text (GORM's Create reflects over every row to build it).
func ValueRows(width, n int) string {
	row := "(?" + strings.Repeat(",?", width-1) + ")"
	return row + strings.Repeat(","+row, n-1)
}

// Texts remembers statement texts composed around a constant part, such as a read whose text
// wraps the visible notebooks' subquery (constant per kind of principal): composing and numbering
// a several-hundred-byte text on every request cost more than sending it. Of returns
// compose(part), composed once per part; parts are constants (a few per use), and past textsMax
// of them the text is composed on every call. The zero value is ready.
type Texts struct {
	m sync.Map // part → composed text
	n atomic.Int64
}

const textsMax = 100

// Of is compose(part), remembered.
func (t *Texts) Of(part string, compose func(part string) string) string {
	if v, ok := t.m.Load(part); ok {
		return v.(string)
	}
	text := compose(part)
	if t.n.Load() < textsMax {
		if _, loaded := t.m.LoadOrStore(part, text); !loaded {
			t.n.Add(1)
		}
	}
	return text
}

// Shapes caches statements by shape, for a hot read whose text GORM builds from the request
// (a list's filters, cursor, notebook): building one costs more Go than the database spends
// answering it. A shape's key is made by the caller of everything that changes the text or a
// constant value in it (which filters are present, the page size); what varies within a shape
// (ids, a cursor) are its params, strings. The first request of a shape builds the statement with
// stand-ins for the params and records where each lands among the statement's values; later ones
// only put their params there and send it (natively, as Query). Bounded: past shapesMax keys,
// statements are built on every request. A build whose values hold a stand-in other than as a
// whole value (a param spliced into a pattern) is not cached.
type Shapes struct {
	m sync.Map // key → *shapedStatement
	n atomic.Int64
}

const shapesMax = 1000

type shapedStatement struct {
	sql   string
	vars  []any // constant values; those of params are replaced on each request
	slots []int // per value: the index of its param, or -1 for a constant
}

// standIn is the value that stands for param i while a shape is built: no id or cursor holds a
// NUL byte.
func standIn(i int) string { return "\x00folio-param-" + strconv.Itoa(i) }

// Query sends the statement build(params) makes, natively, and calls each for every row; build
// runs with stand-ins the first time key is seen, and with params when key is "" (no shape: built
// on every request). It reports false, without sending anything, where Query would (SQLite, a
// transaction): the caller then reads build(params) through GORM.
func (c *Shapes) Query(ctx context.Context, gdb *gorm.DB, key string, params []string, build func(params []string) *gorm.DB, each func(RowScanner) error) (bool, error) {
	if key == "" {
		return QueryBuilt(build(params), each)
	}
	return withNative(ctx, gdb, func(n native) error {
		st, err := c.statement(key, len(params), build)
		if err != nil {
			return err
		}
		if st == nil { // not cacheable
			q := build(params)
			return n.eachBuilt(ctx, q, each)
		}
		vars := slices.Clone(st.vars)
		for i, slot := range st.slots {
			if slot >= 0 {
				vars[i] = params[slot]
			}
		}
		return n.each(ctx, st.sql, vars, each)
	})
}

// statement is the shape of key, built now if it is new; nil when it cannot be cached.
func (c *Shapes) statement(key string, nparams int, build func([]string) *gorm.DB) (*shapedStatement, error) {
	if v, ok := c.m.Load(key); ok {
		return v.(*shapedStatement), nil
	}
	stand := make([]string, nparams)
	for i := range stand {
		stand[i] = standIn(i)
	}
	sql, vars, err := buildDry(build(stand))
	if err != nil {
		return nil, err
	}
	st := &shapedStatement{sql: sql, vars: vars, slots: make([]int, len(vars))}
	for i, v := range vars {
		st.slots[i] = -1
		s, ok := v.(string)
		if !ok || !strings.Contains(s, "\x00folio-param-") {
			continue
		}
		if st.slots[i] = slices.Index(stand, s); st.slots[i] < 0 {
			return nil, nil
		}
	}
	if c.n.Load() < shapesMax {
		if _, loaded := c.m.LoadOrStore(key, st); !loaded {
			c.n.Add(1)
		}
	}
	return st, nil
}

// buildDry is the statement q would send and its values (GORM builds it without sending it).
func buildDry(q *gorm.DB) (string, []any, error) {
	var dest []map[string]any // never filled: the dry run only builds
	built := q.Session(&gorm.Session{DryRun: true}).Find(&dest)
	return built.Statement.SQL.String(), built.Statement.Vars, built.Error
}

// eachBuilt sends the statement q would send.
func (n *native) eachBuilt(ctx context.Context, q *gorm.DB, each func(RowScanner) error) error {
	sql, vars, err := buildDry(q)
	if err != nil {
		return err
	}
	return n.each(ctx, sql, vars, each)
}

// InIDs is a condition "column is one of a list of ids" whose text does not depend on the list's
// length, with its one argument (IDsArg): `= ANY(CAST(? AS text[]))` with an array on PostgreSQL,
// `IN (SELECT value FROM json_each(?))` with a JSON array on SQLite. An IN list of n placeholders
// is a new statement text for every n, which PostgreSQL parses and plans again each time (and
// which crowds pgx's prepared-statement cache); one text is prepared once.
func InIDs(gdb *gorm.DB, column string) string {
	if IsPostgres(gdb) {
		return column + " = ANY(CAST(? AS text[]))"
	}
	return column + " IN (SELECT value FROM json_each(?))"
}

// IDsArg is InIDs' argument for ids.
func IDsArg(gdb *gorm.DB, ids []string) any {
	if IsPostgres(gdb) {
		return ids
	}
	b, _ := json.Marshal(ids) // strings always marshal
	return string(b)
}
