package db_test

import (
	"path/filepath"
	"strings"
	"testing"

	"folio/platform/db"
	"folio/tests/testenv"
)

// TestPostgresSessionSettings: every connection runs with generic plans and without JIT, unless
// the URL sets the parameter itself.
func TestPostgresSessionSettings(t *testing.T) {
	show := func(url, name string) string {
		gdb, err := db.Open(db.Options{URL: url, SQLitePath: filepath.Join(t.TempDir(), "unused.db"), MaxOpenConns: 2, MaxIdleConns: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if sqlDB, err := gdb.DB(); err == nil {
				_ = sqlDB.Close()
			}
		}()
		var value string
		if err := gdb.Raw("SHOW " + name).Scan(&value).Error; err != nil {
			t.Fatal(err)
		}
		return value
	}
	url := testenv.EmptyPostgresDB(t)
	if got := show(url, "jit"); got != "off" {
		t.Errorf("jit = %q, want off", got)
	}
	if got := show(url, "plan_cache_mode"); got != "force_generic_plan" {
		t.Errorf("plan_cache_mode = %q, want force_generic_plan", got)
	}
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	own := url + sep + "jit=on&plan_cache_mode=auto"
	if got := show(own, "jit"); got != "on" {
		t.Errorf("with jit=on in the URL: jit = %q, want on", got)
	}
	if got := show(own, "plan_cache_mode"); got != "auto" {
		t.Errorf("with plan_cache_mode=auto in the URL: plan_cache_mode = %q, want auto", got)
	}
}
