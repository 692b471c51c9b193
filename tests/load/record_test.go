package load

import (
	"context"
	"sync"
	"testing"

	"gorm.io/gorm"

	"folio/platform/db"
	"folio/tests/apitest"
)

// recordedStatement is one statement the server executed, with its arguments.
type recordedStatement struct {
	sql  string
	vars []any
}

// statementRecorder records the statements the server executes during fn (Recording), through
// GORM's query, raw and row callbacks: the floor's check and the plans tool both ask "what did
// folio send for this request". keep picks the request's own statements: background work (the
// event sequencer's tick, a key lookup when the key cache expires) shares the pool meanwhile.
type statementRecorder struct {
	mu   sync.Mutex
	on   bool
	keep func(sql string) bool
	got  []recordedStatement
}

func recordStatements(t testing.TB, s *apitest.Server, keep func(sql string) bool) *statementRecorder {
	t.Helper()
	r := &statementRecorder{keep: keep}
	capture := func(g *gorm.DB) {
		r.mu.Lock()
		defer r.mu.Unlock()
		sql := g.Statement.SQL.String()
		// Subqueries are built by running the callbacks dry; only executed statements count.
		if r.on && !g.DryRun && r.keep(sql) {
			r.got = append(r.got, recordedStatement{sql, append([]any(nil), g.Statement.Vars...)})
		}
	}
	native := func(_ context.Context, sql string, vars []any) func(error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.on && r.keep(sql) {
			r.got = append(r.got, recordedStatement{sql, append([]any(nil), vars...)})
		}
		return nil
	}
	for name, err := range map[string]error{
		"native": db.ObserveNative(s.DB, native),
		"query":  s.DB.Callback().Query().After("gorm:query").Register("load:record_query", capture),
		"raw":    s.DB.Callback().Raw().After("gorm:raw").Register("load:record_raw", capture),
		"row":    s.DB.Callback().Row().After("gorm:row").Register("load:record_row", capture),
	} {
		if err != nil {
			t.Fatalf("register the %s callback: %v", name, err)
		}
	}
	return r
}

// Recording returns the statements kept while fn ran.
func (r *statementRecorder) Recording(fn func()) []recordedStatement {
	r.mu.Lock()
	r.on, r.got = true, nil
	r.mu.Unlock()
	fn()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return r.got
}
