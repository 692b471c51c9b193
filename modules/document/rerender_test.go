package document

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	"go.uber.org/zap"
	"gorm.io/gorm"

	"folio/tests/testenv"
)

// createDocs makes the table docs, shaped like an item's: a tree (body), its stored text and a
// version.
func createDocs(t *testing.T, gdb *gorm.DB) {
	t.Helper()
	if err := gdb.Exec(`CREATE TABLE docs (id VARCHAR(24) PRIMARY KEY, body TEXT NOT NULL,
		body_markdown TEXT NOT NULL DEFAULT '', body_codec SMALLINT NOT NULL DEFAULT 0, version BIGINT NOT NULL DEFAULT 1)`).Error; err != nil {
		t.Fatal(err)
	}
}

// rerenderTable makes a table like an item's (a tree, its stored text, a version) holding the
// corpus's accepted documents, with their texts not written (codec 0, as the migration that adds
// the columns leaves older rows), but for every seventh, which is current with a text that is
// not its render: the re-render must leave such a row alone. It returns the rows' trees by id.
func rerenderTable(t *testing.T, gdb *gorm.DB) (trees map[string][]byte, current map[string]bool) {
	t.Helper()
	createDocs(t, gdb)
	names := make([]string, 0)
	all := corpus(t)
	for name := range all {
		names = append(names, name)
	}
	sort.Strings(names)
	trees, current = map[string][]byte{}, map[string]bool{}
	for i, name := range names {
		p, err := Parse("body", all[name])
		if err != nil {
			continue
		}
		tree, err := Encode(p)
		if err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("d%05d", i)
		codec := 0
		if i%7 == 0 {
			codec, current[id] = int(Codec), true
		}
		if err := gdb.Exec("INSERT INTO docs (id, body, body_markdown, body_codec) VALUES (?, ?, ?, ?)", id, string(tree), "kept", codec).Error; err != nil {
			t.Fatal(err)
		}
		trees[id] = tree
	}
	return trees, current
}

var docsColumns = Columns{Table: "docs", Tree: "body", Version: "version"}

// checkTexts holds every row to its expected text: the render of its tree for a written row,
// "kept" for one the re-render had to leave; it returns how many rows are written.
func checkTexts(t *testing.T, gdb *gorm.DB, trees map[string][]byte, current map[string]bool) (written int) {
	t.Helper()
	for _, row := range docTexts(t, gdb) {
		id, text, codec := row.ID, row.Text, row.Codec
		switch {
		case current[id]:
			if text != "kept" || codec != Codec {
				t.Errorf("%s: a current row was rewritten: %q, codec %d", id, text, codec)
			}
		case codec == Codec:
			want, err := Render(trees[id])
			if err != nil {
				t.Fatal(err)
			}
			if text != want {
				t.Errorf("%s: re-rendered %q, the tree renders %q", id, text, want)
			}
			written++
		case codec != 0 || text != "kept":
			t.Errorf("%s: %q, codec %d: neither written nor left as it was", id, text, codec)
		}
	}
	return written
}

// docText is a row of the test table as the re-render leaves it.
type docText struct {
	ID    string
	Text  string `gorm:"column:body_markdown"`
	Codec int16  `gorm:"column:body_codec"`
}

// docTexts reads every row's stored text and codec.
func docTexts(t *testing.T, gdb *gorm.DB) []docText {
	t.Helper()
	var rows []docText
	if err := gdb.Raw("SELECT id, body_markdown, body_codec FROM docs ORDER BY id").Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestRerenderWritesAndResumes: the re-render writes the text of every row whose text is not
// current, byte for byte the render of its tree, leaves current rows alone, and resumes: a walk
// stopped after its first step (a server stopped midway) leaves the rest as it found them, and
// the next walk writes only those. A second full walk writes nothing.
func TestRerenderWritesAndResumes(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			gdb := testenv.OpenEmpty(t, kind, nil)
			trees, current := rerenderTable(t, gdb)
			stale := len(trees) - len(current)
			r := &Rerender{db: gdb, cols: []Columns{docsColumns}, log: zap.NewNop(), batch: 50}
			ctx := context.Background()
			n, err := r.walk(ctx, docsColumns, 1)
			if err != nil || n != 50 {
				t.Fatalf("first step: %d written, %v; want 50", n, err)
			}
			if got := checkTexts(t, gdb, trees, current); got != 50 {
				t.Fatalf("%d rows written after one step, want 50", got)
			}
			if err := r.All(ctx); err != nil {
				t.Fatal(err)
			}
			if got := checkTexts(t, gdb, trees, current); got != stale || r.Written() != int64(stale) {
				t.Fatalf("%d rows written (counter %d), want %d", got, r.Written(), stale)
			}
			if n, err := r.walk(ctx, docsColumns, -1); err != nil || n != 0 {
				t.Fatalf("a walk over current rows wrote %d, %v", n, err)
			}
		})
	}
}

// TestRerenderLeavesAWrittenRow: a row written between the re-render's read and its write (its
// version moved on, or its text made current by the write) keeps what the write stored.
func TestRerenderLeavesAWrittenRow(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			gdb := testenv.OpenEmpty(t, kind, nil)
			createDocs(t, gdb)
			for _, id := range []string{"a", "b", "c"} {
				if err := gdb.Exec("INSERT INTO docs (id, body) VALUES (?, '{}')", id).Error; err != nil {
					t.Fatal(err)
				}
			}
			// What a write does meanwhile: b's version moves on, c's text is written current.
			if err := gdb.Exec("UPDATE docs SET version = 2, body_markdown = 'by the write' WHERE id = 'b'").Error; err != nil {
				t.Fatal(err)
			}
			if err := gdb.Exec("UPDATE docs SET body_codec = ?, body_markdown = 'by the write' WHERE id = 'c'", Codec).Error; err != nil {
				t.Fatal(err)
			}
			batch := []stale{{id: "a", version: 1, text: "re-rendered"}, {id: "b", version: 1, text: "re-rendered"}, {id: "c", version: 1, text: "re-rendered"}}
			var n int
			err := gdb.Transaction(func(tx *gorm.DB) error {
				var err error
				n, err = writeTexts(tx, docsColumns, batch)
				return err
			})
			if err != nil || n != 1 {
				t.Fatalf("%d rows written, %v; want 1 (a)", n, err)
			}
			got := map[string]string{}
			for _, row := range docTexts(t, gdb) {
				got[row.ID] = row.Text
			}
			if got["a"] != "re-rendered" || got["b"] != "by the write" || got["c"] != "by the write" {
				t.Fatalf("texts %v", got)
			}
		})
	}
}

// TestRerenderInstancesTogether: two instances walking the same table at once (PostgreSQL, where
// several instances share a database) write every text once between them, without errors.
func TestRerenderInstancesTogether(t *testing.T) {
	gdb := testenv.OpenEmpty(t, "postgres", nil)
	trees, current := rerenderTable(t, gdb)
	var wg sync.WaitGroup
	rs := []*Rerender{
		{db: gdb, cols: []Columns{docsColumns}, log: zap.NewNop(), batch: 20},
		{db: gdb, cols: []Columns{docsColumns}, log: zap.NewNop(), batch: 20},
	}
	errs := make([]error, len(rs))
	for i, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = r.All(context.Background())
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	stale := len(trees) - len(current)
	if got := checkTexts(t, gdb, trees, current); got != stale || rs[0].Written()+rs[1].Written() != int64(stale) {
		t.Fatalf("%d rows written, counters %d + %d, want %d", got, rs[0].Written(), rs[1].Written(), stale)
	}
}
