package db_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"gorm.io/gorm"

	"folio/platform/db"
)

// TestNativeInTransaction: inside a transaction db.Transaction began on PostgreSQL, db.Exec and
// db.Query send natively in that transaction (the observers are told which, as GORM's statements
// in it carry it); what they write commits with it or rolls back with it, and is not seen outside
// it before the commit. Outside a transaction, and in a Unit's, db.Exec takes GORM's path.
func TestNativeInTransaction(t *testing.T) {
	ctx := context.Background()
	gdb := openEmpty(t, "postgres")
	if err := gdb.Exec("CREATE TABLE words (id INT PRIMARY KEY, word TEXT NOT NULL)").Error; err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		seen []gorm.ConnPool // the transaction of each native statement
	)
	if err := db.ObserveNative(gdb, func(ctx context.Context, _ string, _ []any) func(error) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, db.NativeTx(ctx))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	count := func(g *gorm.DB) (n int64) {
		if err := g.Raw("SELECT count(*) FROM words").Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
	word := func(tx *gorm.DB, id int) (w string, ok bool) {
		native, err := db.Query(ctx, tx, "SELECT word FROM words WHERE id = ?", []any{id}, func(r db.RowScanner) error { return r.Scan(&w) })
		if err != nil {
			t.Fatal(err)
		}
		return w, native
	}

	err := db.Transaction(ctx, gdb, func(tx *gorm.DB) error {
		n, err := db.Exec(ctx, tx, "INSERT INTO words VALUES (?, ?), (?, ?)", 1, "one", 2, "two")
		if err != nil || n != 2 {
			t.Fatalf("native insert: %d rows, %v", n, err)
		}
		if w, native := word(tx, 2); !native || w != "two" {
			t.Fatalf("native read in the transaction: %q, native %v", w, native)
		}
		if got := count(tx); got != 2 {
			t.Fatalf("GORM in the same transaction sees %d rows, want 2", got)
		}
		if got := count(gdb); got != 0 {
			t.Fatalf("outside the transaction, before its commit: %d rows", got)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(seen) != 2 || seen[0] == nil || seen[0] != tx.Statement.ConnPool || seen[1] != seen[0] {
			t.Fatalf("the observers were told transactions %v, want the tx's %v twice", seen, tx.Statement.ConnPool)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := count(gdb); got != 2 {
		t.Fatalf("after the commit: %d rows, want 2", got)
	}

	errBack := errors.New("back")
	err = db.Transaction(ctx, gdb, func(tx *gorm.DB) error {
		if _, err := db.Exec(ctx, tx, "DELETE FROM words WHERE id = ?", 1); err != nil {
			return err
		}
		if _, native := word(tx, 1); !native {
			t.Fatal("the read in the second transaction was not native")
		}
		return errBack
	})
	if !errors.Is(err, errBack) {
		t.Fatalf("rolled-back transaction: %v", err)
	}
	if got := count(gdb); got != 2 {
		t.Fatalf("a native delete outlived its rollback: %d rows", got)
	}

	// A failed native statement fails the transaction, which rolls back whole.
	err = db.Transaction(ctx, gdb, func(tx *gorm.DB) error {
		if _, err := db.Exec(ctx, tx, "INSERT INTO words VALUES (?, ?)", 3, "three"); err != nil {
			return err
		}
		_, err := db.Exec(ctx, tx, "INSERT INTO words VALUES (?, ?)", 1, "again") // duplicate key
		return err
	})
	if !db.IsUniqueViolation(err) {
		t.Fatalf("duplicate insert: %v", err)
	}
	if got := count(gdb); got != 2 {
		t.Fatalf("after the failed transaction: %d rows, want 2", got)
	}

	// Outside a transaction db.Exec is GORM's (no native statement), and so in a Unit's, whose
	// guard refuses a write outside it.
	mu.Lock()
	before := len(seen)
	mu.Unlock()
	if n, err := db.Exec(ctx, gdb, "UPDATE words SET word = ? WHERE id = ?", "uno", 1); err != nil || n != 1 {
		t.Fatalf("GORM exec outside a transaction: %d, %v", n, err)
	}
	uctx, u := db.WithUnit(ctx)
	if _, err := db.Exec(uctx, gdb, "UPDATE words SET word = ? WHERE id = ?", "eins", 1); err == nil {
		t.Fatal("a write outside the unit's transaction was not refused")
	}
	if err := db.Transaction(uctx, gdb, func(tx *gorm.DB) error {
		_, err := db.Exec(uctx, tx, "UPDATE words SET word = ? WHERE id = ?", "un", 1)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := u.Commit(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	after := len(seen)
	mu.Unlock()
	if after != before {
		t.Fatalf("%d native statements outside Transaction's transactions, want none", after-before)
	}
	if w, _ := word(gdb, 1); w != "un" {
		t.Fatalf("the unit's write: %q", w)
	}
}
