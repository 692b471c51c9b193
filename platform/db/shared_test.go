package db_test

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	"folio/platform/db"
)

// backendPID is the PostgreSQL backend that answers a native statement sent with ctx.
func backendPID(t *testing.T, ctx context.Context, gdb *gorm.DB) int32 {
	t.Helper()
	var pid int32
	ok, err := db.Query(ctx, gdb, "SELECT pg_backend_pid()", nil, func(r db.RowScanner) error { return r.Scan(&pid) })
	if !ok || err != nil {
		t.Fatalf("native pg_backend_pid: %v %v", ok, err)
	}
	return pid
}

// TestShared: inside db.Shared, a read's native statements go over one pooled connection, taken
// by the first and given back when the function returns; and the shared connection is never held
// while another is awaited, so with a pool of one connection a GORM statement, a transaction or a
// nested native statement inside Shared still runs (a deadlock would fail on the deadline).
func TestShared(t *testing.T) {
	gdb := openEmpty(t, "postgres")
	sqlDB, err := gdb.DB()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	t.Run("one connection", func(t *testing.T) {
		sqlDB.SetMaxOpenConns(4)
		// Two other connections open and idle, so that taking one per statement would meet more
		// than one backend.
		hold := make([]interface{ Close() error }, 0, 3)
		for range 3 {
			c, err := sqlDB.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			hold = append(hold, c)
		}
		for _, c := range hold {
			_ = c.Close()
		}
		var pids []int32
		err := db.Shared(ctx, gdb, func(ctx context.Context) error {
			if n := sqlDB.Stats().InUse; n != 0 {
				t.Errorf("Shared took a connection before a statement: %d in use", n)
			}
			for range 3 {
				pids = append(pids, backendPID(t, ctx, gdb))
				if n := sqlDB.Stats().InUse; n != 1 {
					t.Errorf("between statements %d connections are in use, want the shared one", n)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if pids[0] != pids[1] || pids[1] != pids[2] {
			t.Fatalf("three native statements in Shared met backends %v, want one", pids)
		}
		if n := sqlDB.Stats().InUse; n != 0 {
			t.Fatalf("after Shared %d connections are in use", n)
		}
	})

	t.Run("never holds while waiting", func(t *testing.T) {
		sqlDB.SetMaxOpenConns(1)
		defer sqlDB.SetMaxOpenConns(4)
		err := db.Shared(ctx, gdb, func(ctx context.Context) error {
			backendPID(t, ctx, gdb) // takes the pool's only connection
			var n int
			if err := gdb.WithContext(ctx).Raw("SELECT 1").Scan(&n).Error; err != nil || n != 1 {
				t.Errorf("GORM read inside Shared: %d %v", n, err)
			}
			backendPID(t, ctx, gdb)
			if err := db.Transaction(ctx, gdb, func(tx *gorm.DB) error { return tx.Exec("SELECT 1").Error }); err != nil {
				t.Errorf("transaction inside Shared: %v", err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if ctx.Err() != nil {
			t.Fatal("a statement waited for the shared connection until the deadline")
		}
	})

	t.Run("busy", func(t *testing.T) {
		sqlDB.SetMaxOpenConns(2)
		defer sqlDB.SetMaxOpenConns(4)
		err := db.Shared(ctx, gdb, func(ctx context.Context) error {
			outer := backendPID(t, ctx, gdb)
			var inner int32
			// A native statement sent from inside another's row: the shared connection is busy
			// reading, so the inner one takes its own.
			ok, err := db.Query(ctx, gdb, "SELECT pg_backend_pid()", nil, func(r db.RowScanner) error {
				var pid int32
				if err := r.Scan(&pid); err != nil {
					return err
				}
				if pid != outer {
					t.Errorf("the outer statement met backend %d, not the shared %d", pid, outer)
				}
				inner = backendPID(t, ctx, gdb)
				return nil
			})
			if !ok || err != nil {
				t.Errorf("outer statement: %v %v", ok, err)
			}
			if inner == outer {
				t.Errorf("the nested statement ran on the busy shared connection")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})

	t.Run("sqlite", func(t *testing.T) {
		lite := openEmpty(t, "sqlite")
		called := false
		if err := db.Shared(ctx, lite, func(context.Context) error { called = true; return nil }); err != nil || !called {
			t.Fatalf("Shared on SQLite: called %v, %v", called, err)
		}
	})
}
