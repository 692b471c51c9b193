package load

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"folio/tests/apitest"
)

// ExplainEnv names the file TestExplainPlans writes; the test does nothing without it.
const ExplainEnv = "FOLIO_LOAD_EXPLAIN"

// TestExplainPlans records the PostgreSQL plans behind the list, the search and the tag filter
// on the 1M-note scenario, for the README's Performance section: it seeds the scenario (about two
// minutes), sends each request once to warm the caches, then once more while capturing every
// statement the server runs on notes, and writes EXPLAIN (ANALYZE, BUFFERS) of each, run with the
// same arguments on the server's own pool (so with its session settings: generic plans, no JIT),
// to the file FOLIO_LOAD_EXPLAIN names. It is a tool, run by hand:
//
//	FOLIO_TEST_DATABASE_URL=... FOLIO_LOAD_EXPLAIN=/tmp/plans.txt go test ./tests/load -run TestExplainPlans -timeout 30m
func TestExplainPlans(t *testing.T) {
	path := os.Getenv(ExplainEnv)
	if path == "" {
		t.Skipf("%s is not set: no plans to write (this is a tool for the README, not a check)", ExplainEnv)
	}
	s := startServer(t)
	if !s.IsPostgres() {
		t.Fatal("the plans are PostgreSQL's: set FOLIO_TEST_DATABASE_URL")
	}
	d := Seed(t, s, Scenarios[len(Scenarios)-1])
	rec := recordStatements(t, s, func(sql string) bool { return strings.HasPrefix(sql, "SELECT") && strings.Contains(sql, "notes") })
	sqlDB, err := s.DB.DB()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, req := range []struct{ name, path string }{
		{"GET /notes (the list)", "/notes"},
		{"GET /notes?q=" + SearchWord + " (search)", "/notes?q=" + SearchWord},
		{"GET /notes?tag=" + tagNames[0] + " (tag filter)", "/notes?tag=" + tagNames[0]},
	} {
		apitest.Must(t, s.Get(t, d.Key, req.path), http.StatusOK)
		stmts := rec.Recording(func() { apitest.Must(t, s.Get(t, d.Key, req.path), http.StatusOK) })
		for _, st := range stmts {
			rows, err := sqlDB.Query("EXPLAIN (ANALYZE, BUFFERS) "+st.sql, st.vars...)
			if err != nil {
				t.Fatalf("explain %s: %v", st.sql, err)
			}
			fmt.Fprintf(&out, "=== %s\n%s\n\n", req.name, st.sql)
			for rows.Next() {
				var line string
				if err := rows.Scan(&line); err != nil {
					t.Fatal(err)
				}
				out.WriteString(line + "\n")
			}
			rows.Close()
			out.WriteString("\n")
		}
	}
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("plans written to %s", path)
}
