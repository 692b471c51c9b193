package testenv

import (
	"path/filepath"
	"testing"

	"go.uber.org/zap"
	"gorm.io/gorm"

	"folio/platform/db"
)

// OpenEmpty opens a new, empty database of kind ("sqlite": a file in the test's temporary
// directory; "postgres": EmptyPostgresDB), logging to log (nil: nowhere), closed when the test
// ends: for the tests of a platform package that makes its own tables.
func OpenEmpty(t testing.TB, kind string, log *zap.Logger) *gorm.DB {
	t.Helper()
	opts := db.Options{SQLitePath: filepath.Join(t.TempDir(), "t.db"), MaxOpenConns: 4, MaxIdleConns: 4}
	if kind == "postgres" {
		opts.URL = EmptyPostgresDB(t)
	}
	gdb, err := db.Open(opts, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sqlDB, err := gdb.DB(); err == nil {
			_ = sqlDB.Close()
		}
	})
	return gdb
}
