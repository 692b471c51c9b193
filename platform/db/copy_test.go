package db_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"gorm.io/gorm"

	"folio/platform/db"
)

// The copy's pieces (folio copy's end-to-end test is tests/e2e's TestCopy): tables in the order
// their foreign keys ask, every kind of column across the two databases, sequences set after, and
// a checksum that agrees across them.

type cpParent struct {
	ID        string `gorm:"primaryKey;size:24"`
	Name      string `gorm:"not null"`
	Flag      bool   `gorm:"not null"`
	Doc       db.JSON
	Secret    []byte
	CreatedAt time.Time
	Children  []cpChild `gorm:"foreignKey:ParentID;constraint:OnDelete:CASCADE"`
}

type cpChild struct {
	ID       int64  `gorm:"primaryKey;autoIncrement"`
	ParentID string `gorm:"size:24;not null"`
	At       *time.Time
	N        int64
}

func cpSchema(t *testing.T, kind string) *gorm.DB {
	t.Helper()
	gdb := openEmpty(t, kind)
	if err := gdb.Migrator().CreateTable(&cpParent{}, &cpChild{}); err != nil {
		t.Fatal(err)
	}
	return gdb
}

func dialectOf(gdb *gorm.DB) db.Dialect { return db.Dialect{Postgres: db.IsPostgres(gdb)} }

func sqlOf(t *testing.T, gdb *gorm.DB) *sql.DB {
	t.Helper()
	s, err := gdb.DB()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// copyAll copies every table of from into to and returns both sides' checksums per table.
func copyAll(t *testing.T, from, to *gorm.DB) (src, dst map[string]string) {
	t.Helper()
	ctx := context.Background()
	fd, td := dialectOf(from), dialectOf(to)
	fromTables, err := db.Tables(ctx, sqlOf(t, from), fd)
	if err != nil {
		t.Fatal(err)
	}
	toTables, err := db.Tables(ctx, sqlOf(t, to), td)
	if err != nil {
		t.Fatal(err)
	}
	var list []db.Table
	for _, tb := range toTables {
		list = append(list, tb)
	}
	ordered, err := db.InDependencyOrder(list)
	if err != nil {
		t.Fatal(err)
	}
	if names := []string{ordered[0].Name, ordered[1].Name}; !slices.Equal(names, []string{"cp_parents", "cp_children"}) {
		t.Fatalf("order %v: the parent first", names)
	}
	tx, err := sqlOf(t, to).BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	cols := map[string][]db.Column{}
	for _, tb := range ordered {
		for _, c := range tb.Columns {
			sc, _ := fromTables[tb.Name].Column(c.Name)
			c.Kind = db.MergeKind(c.Kind, sc.Kind)
			cols[tb.Name] = append(cols[tb.Name], c)
		}
		if _, err := db.CopyRows(ctx, sqlOf(t, from), fd, tx, td, tb.Name, cols[tb.Name], nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.ResetSequences(ctx, tx, td, ordered); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	src, dst = map[string]string{}, map[string]string{}
	for _, tb := range ordered {
		a, err := db.SumRows(ctx, sqlOf(t, from), fd, tb.Name, cols[tb.Name])
		if err != nil {
			t.Fatal(err)
		}
		b, err := db.SumRows(ctx, sqlOf(t, to), td, tb.Name, cols[tb.Name])
		if err != nil {
			t.Fatal(err)
		}
		src[tb.Name], dst[tb.Name] = a.String(), b.String()
	}
	return src, dst
}

// TestCopyAcrossDatabases: rows of every kind of column go from SQLite to PostgreSQL and back
// with the same checksum at each step; a time's nanoseconds become microseconds on PostgreSQL
// (its precision), which the checksum compares at; the sequence of an id is set past the copied
// ones; and a changed value changes the checksum.
func TestCopyAcrossDatabases(t *testing.T) {
	lite, pg, back := cpSchema(t, "sqlite"), cpSchema(t, "postgres"), cpSchema(t, "sqlite")
	at := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)
	parents := []cpParent{
		{ID: "p1", Name: "one", Flag: true, Doc: db.JSON(`{"type":"doc","content":[{"b":1,"a":"x"}]}`), Secret: []byte{0, 1, 2}, CreatedAt: at,
			Children: []cpChild{{At: &at, N: 7}, {N: -1}}},
		{ID: "p2", Name: "two \"quoted\" ünïcode", Flag: false, Doc: db.JSON(`[]`), CreatedAt: at.Add(time.Hour)},
	}
	if err := lite.Create(&parents).Error; err != nil {
		t.Fatal(err)
	}
	src, dst := copyAll(t, lite, pg)
	if !maps.Equal(src, dst) {
		t.Fatalf("SQLite → PostgreSQL: %v, %v", src, dst)
	}
	// The next id on PostgreSQL follows the copied ones.
	c := cpChild{ParentID: "p2"}
	if err := pg.Create(&c).Error; err != nil || c.ID != 3 {
		t.Fatalf("a new row after the copy: id %d, %v", c.ID, err)
	}
	if err := pg.Delete(&cpChild{}, c.ID).Error; err != nil {
		t.Fatal(err)
	}
	src2, dst2 := copyAll(t, pg, back)
	if !maps.Equal(src2, dst2) || !maps.Equal(src, dst2) {
		t.Fatalf("PostgreSQL → SQLite: %v, %v (first %v)", src2, dst2, src)
	}
	var got cpParent
	if err := back.Preload("Children").Take(&got, "id = ?", "p1").Error; err != nil {
		t.Fatal(err)
	}
	if !got.Flag || !bytes.Equal(got.Secret, []byte{0, 1, 2}) || !got.CreatedAt.Equal(at.Truncate(time.Microsecond)) || len(got.Children) != 2 {
		t.Fatalf("read back %+v", got)
	}
	// A checksum tells a change.
	if err := back.Model(&cpChild{}).Where("n = 7").Update("n", 8).Error; err != nil {
		t.Fatal(err)
	}
	_, after := copyAllSums(t, back)
	if after["cp_children"] == dst2["cp_children"] || after["cp_parents"] != dst2["cp_parents"] {
		t.Fatal("the checksum did not follow a changed value alone")
	}
}

// copyAllSums is each table's checksum in gdb.
func copyAllSums(t *testing.T, gdb *gorm.DB) (map[string]db.Table, map[string]string) {
	t.Helper()
	ctx := context.Background()
	tables, err := db.Tables(ctx, sqlOf(t, gdb), dialectOf(gdb))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for name, tb := range tables {
		sum, err := db.SumRows(ctx, sqlOf(t, gdb), dialectOf(gdb), name, tb.Columns)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = sum.String()
	}
	return tables, out
}

// TestOpenReadOnly: a SQLite source is read without a byte of its file changing (WAL mode, after
// its last writer closed), and cannot be written through; a missing file is an error, not a new
// database.
func TestOpenReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "src.db")
	gdb, err := db.Open(db.Options{SQLitePath: path, MaxOpenConns: 2, MaxIdleConns: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := gdb.Migrator().CreateTable(&cpParent{}); err != nil {
		t.Fatal(err)
	}
	if err := gdb.Create(&cpParent{ID: "p", Name: "n", CreatedAt: time.Now()}).Error; err != nil {
		t.Fatal(err)
	}
	sqlOf(t, gdb).Close()
	sum := func() [32]byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(b)
	}
	before := sum()
	ro, d, err := db.OpenReadOnly(db.Options{SQLitePath: path})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := ro.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := db.CountRows(context.Background(), tx, "cp_parents"); err != nil || n != 1 {
		t.Fatalf("count %d, %v", n, err)
	}
	if _, err := tx.Exec("INSERT INTO cp_parents (id, name, flag) VALUES ('q', 'n', 0)"); err == nil {
		t.Fatal("a read-only source took a write")
	}
	tx.Rollback()
	ro.Close()
	if d.Postgres || sum() != before {
		t.Fatal("reading the source changed its file")
	}
	if _, _, err := db.OpenReadOnly(db.Options{SQLitePath: filepath.Join(t.TempDir(), "none.db")}); err == nil {
		t.Fatal("a missing source opened")
	}
}
