package db_test

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/zap"
	"gorm.io/gorm"

	"folio/platform/db"
	"folio/tests/testenv"
)

type unitRow struct {
	ID string `gorm:"primaryKey;size:24"`
}

// openEmpty opens an empty database of kind, closed when the test ends.
func openEmpty(t *testing.T, kind string) *gorm.DB { return testenv.OpenEmpty(t, kind, nil) }

// openEmptyLogged is openEmpty logging to log.
func openEmptyLogged(t *testing.T, kind string, log *zap.Logger) *gorm.DB {
	return testenv.OpenEmpty(t, kind, log)
}

// unitTable is an empty database of kind with the unitRow table, and a count of its rows.
func unitTable(t *testing.T, kind string) (*gorm.DB, func() int64) {
	gdb := openEmpty(t, kind)
	if err := gdb.Migrator().CreateTable(&unitRow{}); err != nil {
		t.Fatal(err)
	}
	return gdb, func() (n int64) {
		if err := gdb.Model(&unitRow{}).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
}

// TestUnit: within a unit, every Transaction joins one transaction that commits only with the
// unit (AfterCommit functions after it), rolls back whole, and a write outside it is refused.
func TestUnit(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			gdb, count := unitTable(t, kind)
			insert := func(id string) func(tx *gorm.DB) error {
				return func(tx *gorm.DB) error { return tx.Create(&unitRow{ID: id}).Error }
			}

			ctx, u := db.WithUnit(context.Background())
			after := 0
			if err := db.Transaction(ctx, gdb, insert("a")); err != nil {
				t.Fatal(err)
			}
			if err := db.Transaction(ctx, gdb, insert("b")); err != nil {
				t.Fatal(err)
			}
			db.AfterCommit(ctx, func() { after++ })
			if count() != 0 || after != 0 {
				t.Fatal("a unit's write is visible before its commit")
			}
			// A write that does not go through Transaction is refused while the unit is open.
			if err := gdb.WithContext(ctx).Create(&unitRow{ID: "stray"}).Error; err == nil {
				t.Fatal("a write outside the unit's transaction was accepted")
			}
			if err := u.Commit(); err != nil {
				t.Fatal(err)
			}
			if count() != 2 || after != 1 {
				t.Fatalf("after commit: %d rows, AfterCommit ran %d times", count(), after)
			}

			// A failed part rolls the whole unit back; later parts are refused; AfterCommit never runs.
			ctx, u = db.WithUnit(context.Background())
			after = 0
			_ = db.Transaction(ctx, gdb, insert("c"))
			db.AfterCommit(ctx, func() { after++ })
			boom := errors.New("boom")
			if err := db.Transaction(ctx, gdb, func(*gorm.DB) error { return boom }); !errors.Is(err, boom) {
				t.Fatalf("failed part: %v", err)
			}
			if err := db.Transaction(ctx, gdb, insert("d")); err == nil {
				t.Fatal("a part after a failed one ran")
			}
			if err := u.Commit(); err == nil {
				t.Fatal("a failed unit committed")
			}
			u.Rollback()
			if count() != 2 || after != 0 {
				t.Fatalf("after rollback: %d rows, AfterCommit ran %d times", count(), after)
			}
			// Without a unit, AfterCommit runs at once.
			db.AfterCommit(context.Background(), func() { after++ })
			if after != 1 {
				t.Fatal("AfterCommit without a unit did not run")
			}
		})
	}
}

// TestAtomically: the writes of every Transaction inside fn commit together when fn succeeds and
// not at all when it fails; inside a unit that is already open, fn joins it and commits nothing.
func TestAtomically(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			gdb, count := unitTable(t, kind)
			insert := func(ctx context.Context, id string) error {
				return db.Transaction(ctx, gdb, func(tx *gorm.DB) error { return tx.Create(&unitRow{ID: id}).Error })
			}
			boom := errors.New("boom")
			err := db.Atomically(context.Background(), func(ctx context.Context) error {
				if err := insert(ctx, "a"); err != nil {
					return err
				}
				if err := insert(ctx, "b"); err != nil {
					return err
				}
				return boom // after two writes that would each have committed alone
			})
			if !errors.Is(err, boom) || count() != 0 {
				t.Fatalf("a failed fn: %v, %d rows written", err, count())
			}
			err = db.Atomically(context.Background(), func(ctx context.Context) error {
				if err := insert(ctx, "a"); err != nil {
					return err
				}
				if count() != 0 {
					t.Error("a write is visible before fn returned")
				}
				return insert(ctx, "b")
			})
			if err != nil || count() != 2 {
				t.Fatalf("a successful fn: %v, %d rows", err, count())
			}
			// Inside an open unit: joined, committed by the unit's owner only.
			ctx, u := db.WithUnit(context.Background())
			if err := db.Atomically(ctx, func(ctx context.Context) error { return insert(ctx, "c") }); err != nil {
				t.Fatal(err)
			}
			if count() != 2 {
				t.Fatal("Atomically committed a unit it did not open")
			}
			if err := u.Commit(); err != nil || count() != 3 {
				t.Fatalf("the unit's commit: %v, %d rows", err, count())
			}
		})
	}
}

type versioned struct {
	ID      string `gorm:"primaryKey;size:24"`
	Version int64  `gorm:"not null;default:1"`
}

// TestAddVersionColumn: on a table created before the column existed, the step adds it and every
// existing row reads version 1; on a table created from a model that has it, the step does nothing.
func TestAddVersionColumn(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			gdb := openEmpty(t, kind)
			if err := gdb.Exec("CREATE TABLE olds (id VARCHAR(24) PRIMARY KEY)").Error; err != nil {
				t.Fatal(err)
			}
			if err := gdb.Exec("INSERT INTO olds (id) VALUES ('a'), ('b')").Error; err != nil {
				t.Fatal(err)
			}
			if err := gdb.Migrator().CreateTable(&versioned{}); err != nil {
				t.Fatal(err)
			}
			steps := []db.Migrations{{db.AddVersionColumn("200001010000_olds_version", "olds"), db.AddVersionColumn("200001010001_versioneds_version", "versioneds")}}
			if err := db.Migrate(gdb, steps); err != nil {
				t.Fatal(err)
			}
			var versions []int64
			if err := gdb.Table("olds").Order("id").Pluck("version", &versions).Error; err != nil || len(versions) != 2 || versions[0] != 1 || versions[1] != 1 {
				t.Fatalf("versions of existing rows %v, %v", versions, err)
			}
			if err := gdb.Exec("INSERT INTO olds (id) VALUES ('c')").Error; err != nil {
				t.Fatal(err)
			}
			var v int64
			if err := gdb.Table("olds").Where("id = 'c'").Pluck("version", &v).Error; err != nil || v != 1 {
				t.Fatalf("a new row's version %d, %v", v, err)
			}
		})
	}
}
