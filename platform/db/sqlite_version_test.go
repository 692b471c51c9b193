package db_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"folio/platform/db"
)

// minSQLite is the oldest embedded SQLite folio accepts: 3.53 came with github.com/glebarez/go-sqlite
// v1.23.0 (the 3.41 of v1.21 is from 2023). A downgrade of the driver fails here.
var minSQLite = [2]int{3, 53}

func TestEmbeddedSQLiteVersion(t *testing.T) {
	gdb, err := db.Open(db.Options{SQLitePath: filepath.Join(t.TempDir(), "v.db"), MaxOpenConns: 1, MaxIdleConns: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := gdb.DB()
	defer sqlDB.Close()
	var v string
	if err := gdb.Raw("SELECT sqlite_version()").Scan(&v).Error; err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		t.Fatalf("sqlite_version() = %q", v)
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		t.Fatalf("sqlite_version() = %q", v)
	}
	if major < minSQLite[0] || major == minSQLite[0] && minor < minSQLite[1] {
		t.Fatalf("embedded SQLite is %s, want at least %d.%d", v, minSQLite[0], minSQLite[1])
	}
	t.Logf("embedded SQLite %s", v)
}
