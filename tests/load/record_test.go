package load

import (
	"context"
	"sync"
	"testing"

	"gorm.io/gorm"

	"folio/platform/background"
	"folio/platform/db"
	"folio/tests/apitest"
)

// recordedStatement is one statement the server executed, with its arguments.
type recordedStatement struct {
	sql  string
	vars []any
}

// The texts pgx sends to open and to commit a transaction with default options (database/sql's
// BeginTx through the stdlib driver, and pgx's own Begin, alike).
const (
	sqlBegin  = "begin"
	sqlCommit = "commit"
)

// statementRecorder records the statements the server executes during fn (Recording): the floor's
// check and the plans tool both ask "what did folio send for this request". It hooks every kind
// of GORM callback that executes a statement (query, row, raw, which Exec runs too, create,
// update and delete), after the statement ran. BEGIN and COMMIT run through no callback; the
// recorder writes them (as sqlBegin and sqlCommit) where the kept statements' transaction starts
// and ends, told by the *sql.Tx they ran on. That is where folio sent them for a request that
// succeeded (a rolled back one answers an error, which the callers check).
//
// Housekeeping loops' statements (background.Is) are never the request's. keep picks the request's
// own among the others: work that shares the pool meanwhile (a key lookup when the key cache
// expires, the key's last-use update) runs in request or plain contexts.
type statementRecorder struct {
	mu   sync.Mutex
	on   bool
	keep func(sql string) bool
	got  []recordedStatement
	tx   gorm.ConnPool // the transaction of the last kept statement; nil outside one
}

func recordStatements(t testing.TB, s *apitest.Server, keep func(sql string) bool) *statementRecorder {
	t.Helper()
	r := &statementRecorder{keep: keep}
	capture := func(g *gorm.DB) {
		r.mu.Lock()
		defer r.mu.Unlock()
		sql := g.Statement.SQL.String()
		// Subqueries are built by running the callbacks dry; only executed statements count.
		if !r.on || g.DryRun || background.Is(g.Statement.Context) || !r.keep(sql) {
			return
		}
		var tx gorm.ConnPool
		if _, ok := g.Statement.ConnPool.(gorm.TxCommitter); ok {
			tx = g.Statement.ConnPool
		}
		r.enter(tx)
		r.got = append(r.got, recordedStatement{sql, append([]any(nil), g.Statement.Vars...)})
	}
	// The statements sent natively (db.Query, db.Exec) bypass the callbacks; their transaction,
	// if any, is the *sql.Tx that GORM's statements in it carry.
	native := func(ctx context.Context, sql string, vars []any) func(error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.on && !background.Is(ctx) && r.keep(sql) {
			r.enter(db.NativeTx(ctx))
			r.got = append(r.got, recordedStatement{sql, append([]any(nil), vars...)})
		}
		return nil
	}
	cb := s.DB.Callback()
	for name, err := range map[string]error{
		"native": db.ObserveNative(s.DB, native),
		"query":  cb.Query().After("gorm:query").Register("load:record_query", capture),
		"raw":    cb.Raw().After("gorm:raw").Register("load:record_raw", capture),
		"row":    cb.Row().After("gorm:row").Register("load:record_row", capture),
		"create": cb.Create().After("gorm:create").Register("load:record_create", capture),
		"update": cb.Update().After("gorm:update").Register("load:record_update", capture),
		"delete": cb.Delete().After("gorm:delete").Register("load:record_delete", capture),
	} {
		if err != nil {
			t.Fatalf("register the %s callback: %v", name, err)
		}
	}
	return r
}

// enter marks the end of the previous statement's transaction and the start of tx's, when the
// next kept statement runs on another one (tx nil: outside any). r.mu is held.
func (r *statementRecorder) enter(tx gorm.ConnPool) {
	if tx == r.tx {
		return
	}
	if r.tx != nil {
		r.got = append(r.got, recordedStatement{sql: sqlCommit})
	}
	if tx != nil {
		r.got = append(r.got, recordedStatement{sql: sqlBegin})
	}
	r.tx = tx
}

// Recording returns the statements kept while fn ran.
func (r *statementRecorder) Recording(fn func()) []recordedStatement {
	r.mu.Lock()
	r.on, r.got, r.tx = true, nil, nil
	r.mu.Unlock()
	fn()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.enter(nil)
	r.on = false
	return r.got
}
