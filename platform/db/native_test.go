package db_test

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	"gorm.io/gorm"

	"folio/platform/db"
)

// TestNativeQuery: on PostgreSQL, outside a transaction, db.Query sends the statement with pgx
// (placeholders ? numbered), the observers see it from start to end, and a failure is logged like
// GORM's; in a transaction, and on SQLite, it sends nothing and says so, for the caller to take
// GORM's path. QueryBuilt sends the statement GORM builds, with its arguments.
func TestNativeQuery(t *testing.T) {
	ctx := context.Background()
	core, logs := observer.New(zap.WarnLevel)
	pg := openEmptyLogged(t, "postgres", zap.New(core))
	if err := pg.Exec("CREATE TABLE words (id INT PRIMARY KEY, word TEXT NOT NULL)").Error; err != nil {
		t.Fatal(err)
	}
	if err := pg.Exec("INSERT INTO words VALUES (1, 'one'), (2, 'two'), (3, 'three')").Error; err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		seen []string
	)
	if err := db.ObserveNative(pg, func(_ context.Context, sql string, args []any) func(error) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, sql)
		return func(err error) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, "done "+errString(err))
		}
	}); err != nil {
		t.Fatal(err)
	}
	words := func(gdb *gorm.DB, sql string, args ...any) ([]string, bool, error) {
		var got []string
		ok, err := db.Query(ctx, gdb, sql, args, func(r db.RowScanner) error {
			var w string
			err := r.Scan(&w)
			got = append(got, w)
			return err
		})
		return got, ok, err
	}

	got, ok, err := words(pg, "SELECT word FROM words WHERE id >= ? AND word <> ? ORDER BY id", 2, "three")
	if !ok || err != nil || !slices.Equal(got, []string{"two"}) {
		t.Fatalf("native read: %v %v %v", got, ok, err)
	}
	want := []string{"SELECT word FROM words WHERE id >= $1 AND word <> $2 ORDER BY id", "done "}
	if !slices.Equal(seen, want) {
		t.Fatalf("observed %q, want %q", seen, want)
	}

	seen = nil
	if _, ok, err := words(pg, "SELECT word FROM no_such_table WHERE id = ?", 1); !ok || err == nil {
		t.Fatalf("a failing statement: ok %v err %v", ok, err)
	}
	if len(seen) != 2 || seen[1] == "done " {
		t.Fatalf("the observers did not see the failure: %q", seen)
	}
	if logs.FilterMessage("query failed").Len() != 1 {
		t.Fatalf("the failure was not logged: %v", logs.All())
	}

	var built []string
	ok, err = db.QueryBuilt(pg.WithContext(ctx).Table("words").Select("word").Where("id IN ?", []int{1, 3}).Order("id"), func(r db.RowScanner) error {
		var w string
		err := r.Scan(&w)
		built = append(built, w)
		return err
	})
	if !ok || err != nil || !slices.Equal(built, []string{"one", "three"}) {
		t.Fatalf("QueryBuilt: %v %v %v", built, ok, err)
	}

	if err := pg.Transaction(func(tx *gorm.DB) error {
		if _, ok, _ := words(tx, "SELECT word FROM words"); ok {
			t.Error("in a transaction the read went around it")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	lite := openEmpty(t, "sqlite")
	if _, ok, _ := words(lite, "SELECT 'x'"); ok {
		t.Error("SQLite: the read claims to be native")
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestShapes: a shape is built once, with stand-ins, and later requests of the shape send its
// text with their own params in the right places (a param may appear twice, beside constants);
// a build that splices a param into a larger value is not cached and still answers right.
func TestShapes(t *testing.T) {
	ctx := context.Background()
	pg := openEmpty(t, "postgres")
	if err := pg.Exec("CREATE TABLE words (id INT PRIMARY KEY, word TEXT NOT NULL, lang TEXT NOT NULL)").Error; err != nil {
		t.Fatal(err)
	}
	if err := pg.Exec("INSERT INTO words VALUES (1, 'one', 'en'), (2, 'two', 'en'), (3, 'un', 'fr'), (4, 'deux', 'fr')").Error; err != nil {
		t.Fatal(err)
	}
	var shapes db.Shapes
	builds := 0
	query := func(key string, params []string, build func([]string) *gorm.DB) []string {
		t.Helper()
		var got []string
		ok, err := shapes.Query(ctx, pg, key, params, func(ps []string) *gorm.DB {
			builds++
			return build(ps)
		}, func(r db.RowScanner) error {
			var w string
			err := r.Scan(&w)
			got = append(got, w)
			return err
		})
		if !ok || err != nil {
			t.Fatalf("%s %v: ok %v err %v", key, params, ok, err)
		}
		return got
	}
	// lang twice (= ? and <> ? OR ...), a constant limit between them.
	byLang := func(ps []string) *gorm.DB {
		return pg.WithContext(ctx).Table("words").Select("word").Where("lang = ? AND id > ?", ps[0], 0).
			Where("word <> ? OR lang = ?", ps[1], ps[0]).Order("id").Limit(10)
	}
	for _, tc := range []struct {
		params []string
		want   []string
	}{{[]string{"en", "x"}, []string{"one", "two"}}, {[]string{"fr", "x"}, []string{"un", "deux"}}, {[]string{"fr", "un"}, []string{"un", "deux"}}} {
		if got := query("by-lang", tc.params, byLang); !slices.Equal(got, tc.want) {
			t.Fatalf("%v: %v, want %v", tc.params, got, tc.want)
		}
	}
	if builds != 1 {
		t.Fatalf("the shape was built %d times, want once", builds)
	}
	// A param inside a pattern: never cached, built each time with the real value.
	like := func(ps []string) *gorm.DB {
		return pg.WithContext(ctx).Table("words").Select("word").Where("word LIKE ?", ps[0]+"%").Order("id")
	}
	builds = 0
	if got := query("like", []string{"t"}, like); !slices.Equal(got, []string{"two"}) {
		t.Fatalf("like t: %v", got)
	}
	if got := query("like", []string{"d"}, like); !slices.Equal(got, []string{"deux"}) {
		t.Fatalf("like d: %v", got)
	}
	if builds != 4 { // per request: the stand-in build that cannot be cached, then the real one
		t.Fatalf("%d builds for two uncacheable requests, want 4", builds)
	}
	// No key: built on every request with the real params.
	if got := query("", []string{"en", "one"}, byLang); !slices.Equal(got, []string{"one", "two"}) {
		t.Fatalf("no key: %v", got)
	}
}

// TestTexts: a composed text is composed once per part and then remembered, and a part seen for
// the first time past the bound is still composed (every time), never answered with another's.
func TestTexts(t *testing.T) {
	var texts db.Texts
	composed := 0
	wrap := func(part string) string { composed++; return "SELECT x FROM t WHERE id IN (" + part + ")" }
	for range 3 {
		if got := texts.Of("SELECT 1", wrap); got != "SELECT x FROM t WHERE id IN (SELECT 1)" {
			t.Fatalf("got %q", got)
		}
	}
	if composed != 1 {
		t.Fatalf("composed %d times for one part, want 1", composed)
	}
	for i := range 200 {
		part := "SELECT " + strconv.Itoa(i)
		if got, want := texts.Of(part, wrap), "SELECT x FROM t WHERE id IN ("+part+")"; got != want {
			t.Fatalf("part %d: got %q, want %q", i, got, want)
		}
	}
	before := composed
	texts.Of("SELECT 199", wrap)
	texts.Of("SELECT 199", wrap)
	if composed != before+2 {
		t.Fatalf("a part past the bound was composed %d times in two calls, want 2", composed-before)
	}
}
