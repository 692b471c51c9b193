package db_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"gorm.io/gorm"

	"folio/platform/db"
)

// TestSharedReview: cases TestShared misses.
func TestSharedReview(t *testing.T) {
	var (
		gdb   *gorm.DB
		sqlDB *sql.DB
	)
	fresh := func(t *testing.T) { // a pool of its own per case: a leak must not fail the next
		t.Helper()
		gdb = openEmpty(t, "postgres")
		var err error
		if sqlDB, err = gdb.DB(); err != nil {
			t.Fatal(err)
		}
	}
	// start is a subtest's fresh pool of conns connections and its context, cancelled after d.
	start := func(t *testing.T, conns int, d time.Duration) context.Context {
		t.Helper()
		fresh(t)
		sqlDB.SetMaxOpenConns(conns)
		ctx, cancel := context.WithTimeout(context.Background(), d)
		t.Cleanup(cancel)
		return ctx
	}
	waitIdle := func(t *testing.T) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Second)
		for sqlDB.Stats().InUse != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := sqlDB.Stats().InUse; n != 0 {
			t.Errorf("%d pooled connections still in use after Shared returned and its statements ended (leaked)", n)
		}
	}

	// A native statement still running on the shared connection (from a goroutine given ctx) when fn
	// returns: Shared's giveBack cannot take the mutex and skips; nothing gives the connection back.
	t.Run("statement in flight when fn returns", func(t *testing.T) {
		ctx := start(t, 4, 10*time.Second)
		done := make(chan struct{})
		err := db.Shared(ctx, gdb, func(ctx context.Context) error {
			go func() {
				defer close(done)
				_, _ = db.Query(ctx, gdb, "SELECT pg_sleep(0.3)", nil, func(db.RowScanner) error { return nil })
			}()
			for sqlDB.Stats().InUse == 0 { // the goroutine's statement took the shared connection
				time.Sleep(time.Millisecond)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		<-done
		waitIdle(t)
	})

	// ctx kept past fn (work handed to a goroutine): a native statement after Shared returned takes
	// the shared connection again, and nothing gives it back.
	t.Run("statement after Shared returned", func(t *testing.T) {
		ctx := start(t, 4, 10*time.Second)
		var kept context.Context
		if err := db.Shared(ctx, gdb, func(ctx context.Context) error { kept = ctx; return nil }); err != nil {
			t.Fatal(err)
		}
		backendPID(t, kept, gdb)
		waitIdle(t)
	})

	// Shared inside Shared (a use case calling another that reads with Shared): the outer scope holds
	// its connection, idle, while the inner one waits for another; with a full pool, for ever.
	t.Run("nested", func(t *testing.T) {
		ctx := start(t, 1, 3*time.Second)
		err := db.Shared(ctx, gdb, func(ctx context.Context) error {
			backendPID(t, ctx, gdb)
			return db.Shared(ctx, gdb, func(ctx context.Context) error {
				var pid int32
				_, err := db.Query(ctx, gdb, "SELECT pg_backend_pid()", nil, func(r db.RowScanner) error { return r.Scan(&pid) })
				return err
			})
		})
		if err != nil {
			t.Errorf("nested Shared with a pool of one: %v", err)
		}
	})

	// A statement cancelled by a context of its own (a timeout around one read) closes the pgx
	// connection; the next statement of the same scope, whose context is live, gets the closed
	// connection instead of a pooled one.
	t.Run("cancelled statement", func(t *testing.T) {
		ctx := start(t, 4, 10*time.Second)
		err := db.Shared(ctx, gdb, func(ctx context.Context) error {
			backendPID(t, ctx, gdb)
			short, stop := context.WithTimeout(ctx, 50*time.Millisecond)
			defer stop()
			if _, err := db.Query(short, gdb, "SELECT pg_sleep(2)", nil, func(db.RowScanner) error { return nil }); err == nil {
				t.Fatal("the statement outlived its timeout")
			}
			var pid int32
			_, err := db.Query(ctx, gdb, "SELECT pg_backend_pid()", nil, func(r db.RowScanner) error { return r.Scan(&pid) })
			return err
		})
		if err != nil {
			t.Errorf("a statement after a cancelled one in the same Shared: %v", err)
		}
		waitIdle(t)
	})
}
