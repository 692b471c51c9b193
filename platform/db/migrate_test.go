package db_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-gormigrate/gormigrate/v2"
	"gorm.io/gorm"

	"folio/platform/db"
	"folio/tests/testenv"
)

type migA struct {
	ID   string `gorm:"primaryKey;size:24"`
	Name string `gorm:"uniqueIndex;size:100"`
}

type migB struct {
	ID  string `gorm:"primaryKey;size:24"`
	AID string `gorm:"index;size:24"`
	A   migA   `gorm:"foreignKey:AID"`
}

// testSteps are three steps like the modules' (tables, a foreign key, an index); ran counts how
// often each step's Migrate function ran, over every runner.
func testSteps(ran *[3]atomic.Int32) []db.Migrations {
	return []db.Migrations{
		{{ID: "200001010000_a", Migrate: func(tx *gorm.DB) error {
			ran[0].Add(1)
			return tx.Migrator().CreateTable(&migA{})
		}}},
		{{ID: "200001010001_b", Migrate: func(tx *gorm.DB) error {
			ran[1].Add(1)
			return tx.Migrator().CreateTable(&migB{})
		}}, {ID: "200001010002_c", Migrate: func(tx *gorm.DB) error {
			ran[2].Add(1)
			return tx.Exec("CREATE INDEX idx_mig_as_name_id ON mig_as (name, id)").Error
		}}},
	}
}

// TestMigrateConcurrently starts K migration runs at once, each with its own connection pool (as K
// processes would have), on a fresh empty database: every run succeeds, every step runs once, and
// the migrations table records each step once. Before runs were serialised, PostgreSQL failed
// most of them with `duplicate key value violates unique constraint "pg_type_typname_nsp_index"`.
func TestMigrateConcurrently(t *testing.T) {
	const k = 6
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			opts := db.Options{MaxOpenConns: 4, MaxIdleConns: 4}
			if kind == "sqlite" {
				opts.SQLitePath = filepath.Join(t.TempDir(), "m.db")
			} else {
				opts.URL = testenv.EmptyPostgresDB(t)
			}
			var ran [3]atomic.Int32
			pools := make([]*gorm.DB, k)
			for i := range pools {
				gdb, err := db.Open(opts, nil)
				if err != nil {
					t.Fatal(err)
				}
				sqlDB, _ := gdb.DB()
				t.Cleanup(func() { _ = sqlDB.Close() })
				// Open the connection now, so that the runs below start as close together as can be.
				if err := sqlDB.Ping(); err != nil {
					t.Fatal(err)
				}
				pools[i] = gdb
			}
			var start, done sync.WaitGroup
			start.Add(1)
			errs := make([]error, k)
			for i, gdb := range pools {
				done.Add(1)
				go func() {
					defer done.Done()
					start.Wait()
					errs[i] = db.Migrate(gdb, testSteps(&ran))
				}()
			}
			start.Done()
			done.Wait()
			failed := 0
			for i, err := range errs {
				if err != nil {
					failed++
					t.Errorf("run %d: %v", i, err)
				}
			}
			if failed > 0 {
				t.Fatalf("%d of %d concurrent migration runs failed", failed, k)
			}
			for i := range ran {
				if n := ran[i].Load(); n != 1 {
					t.Errorf("step %d ran %d times, want once", i, n)
				}
			}
			var ids []string
			if err := pools[0].Table(gormigrate.DefaultOptions.TableName).Order("id").Pluck("id", &ids).Error; err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(ids); got != "[200001010000_a 200001010001_b 200001010002_c]" {
				t.Fatalf("migrations table holds %s", got)
			}
			// A later run finds everything done.
			if err := db.Migrate(pools[1], testSteps(&ran)); err != nil {
				t.Fatal(err)
			}
			if n := ran[0].Load() + ran[1].Load() + ran[2].Load(); n != 3 {
				t.Fatalf("a run on a migrated database ran steps again (%d runs in all)", n)
			}
		})
	}
}
