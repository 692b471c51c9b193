package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"

	"folio/platform/db"
)

// TestTransactionEnds: a transaction db.Transaction begins itself on PostgreSQL (pgx's BEGIN on a
// pool connection) ends as GORM's Transaction ends one, in every way it can end, and never gives
// the pool back a connection still inside it: the pool's single connection is checked after each
// case (not in a transaction, and the case's writes committed or not).
func TestTransactionEnds(t *testing.T) {
	ctx := context.Background()
	gdb := openEmpty(t, "postgres")
	sqlDB, err := gdb.DB()
	if err != nil {
		t.Fatal(err)
	}
	sqlDB.SetMaxOpenConns(1) // every case's connection is the one the next check gets
	if err := gdb.Exec("CREATE TABLE marks (id INT PRIMARY KEY)").Error; err != nil {
		t.Fatal(err)
	}
	has := func(id int) bool {
		var n int64
		if err := gdb.Raw("SELECT count(*) FROM marks WHERE id = ?", id).Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	// idle: the pool's connection is outside any transaction, as its session says.
	idle := func(name string) {
		t.Helper()
		conn, err := sqlDB.Conn(ctx)
		if err != nil {
			t.Fatalf("%s: no connection from the pool: %v", name, err)
		}
		defer conn.Close()
		var status byte
		if err := conn.Raw(func(dc any) error {
			status = dc.(*stdlib.Conn).Conn().PgConn().TxStatus()
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if status != 'I' {
			t.Fatalf("%s: the pool's connection was given back in transaction status %q", name, status)
		}
		if err := conn.PingContext(ctx); err != nil {
			t.Fatalf("%s: the pool's connection fails: %v", name, err)
		}
	}
	insert := func(tx *gorm.DB, id int) error {
		_, err := db.Exec(ctx, tx, "INSERT INTO marks VALUES (?)", id)
		return err
	}

	// A GORM write and a native one commit together; no transaction of GORM's own is opened
	// inside (a nested BEGIN would end the outer transaction at its COMMIT).
	if err := db.Transaction(ctx, gdb, func(tx *gorm.DB) error {
		if err := tx.Exec("INSERT INTO marks VALUES (1)").Error; err != nil {
			return err
		}
		if err := tx.Table("marks").Create(map[string]any{"id": 2}).Error; err != nil {
			return err
		}
		return insert(tx, 3)
	}); err != nil {
		t.Fatal(err)
	}
	if !has(1) || !has(2) || !has(3) {
		t.Fatal("the committed writes are not all there")
	}
	idle("commit")

	// A GORM write is rolled back with the transaction.
	errBack := errors.New("back")
	if err := db.Transaction(ctx, gdb, func(tx *gorm.DB) error {
		if err := tx.Table("marks").Create(map[string]any{"id": 4}).Error; err != nil {
			return err
		}
		return errBack
	}); !errors.Is(err, errBack) || has(4) {
		t.Fatalf("rollback: %v, row kept %v", err, has(4))
	}
	idle("rollback")

	// A failed statement whose error fn swallows: the COMMIT is refused.
	if err := db.Transaction(ctx, gdb, func(tx *gorm.DB) error {
		_ = insert(tx, 5)
		_ = insert(tx, 1) // duplicate: the transaction is aborted
		return nil
	}); err == nil || has(5) {
		t.Fatalf("commit of a failed transaction: %v, row kept %v", err, has(5))
	}
	idle("failed commit")

	// A nested Transaction is a savepoint: its failure undoes its own writes only.
	if err := db.Transaction(ctx, gdb, func(tx *gorm.DB) error {
		if err := insert(tx, 6); err != nil {
			return err
		}
		if err := db.Transaction(ctx, tx, func(inner *gorm.DB) error {
			if err := insert(inner, 7); err != nil {
				return err
			}
			return errBack
		}); !errors.Is(err, errBack) {
			t.Fatalf("the nested transaction: %v", err)
		}
		return nil
	}); err != nil || !has(6) || has(7) {
		t.Fatalf("savepoint: %v, outer kept %v, inner kept %v", err, has(6), has(7))
	}
	idle("savepoint")

	// A panic rolls back, and goes on.
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic was swallowed")
			}
		}()
		_ = db.Transaction(ctx, gdb, func(tx *gorm.DB) error {
			if err := insert(tx, 8); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	if has(8) {
		t.Fatal("a panicking transaction's write was kept")
	}
	idle("panic")

	// The request goes away mid-transaction: rolled back, the connection usable or replaced.
	cctx, cancel := context.WithCancel(ctx)
	err = db.Transaction(cctx, gdb, func(tx *gorm.DB) error {
		if err := insert(tx, 9); err != nil {
			return err
		}
		cancel()
		return insert(tx, 10)
	})
	if err == nil || has(9) || has(10) {
		t.Fatalf("cancelled: %v, rows kept %v %v", err, has(9), has(10))
	}
	idle("cancelled")

	// The server ends the session mid-transaction: the ROLLBACK fails, and the connection is
	// dropped rather than given back.
	err = db.Transaction(ctx, gdb, func(tx *gorm.DB) error {
		if err := insert(tx, 11); err != nil {
			return err
		}
		var pid int
		if err := tx.Raw("SELECT pg_backend_pid()").Scan(&pid).Error; err != nil {
			return err
		}
		killer := openEmpty(t, "postgres")
		if err := killer.Exec("SELECT pg_terminate_backend(?)", pid).Error; err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		return insert(tx, 12)
	})
	if err == nil || has(11) {
		t.Fatalf("killed session: %v, row kept %v", err, has(11))
	}
	idle("killed session")
}
