package db_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"folio/platform/db"
	"folio/tests/testenv"
)

// TestLoggedSQLHoldsNoValues logs slow queries (every query, with SlowQuery 1ns) and failed ones
// holding a secret string and a secret number as bound values, on both databases: the lines
// carry the parameterised SQL (? or $n), never a value, and a statement with thousands of
// placeholders is cut to db.MaxLoggedSQL.
func TestLoggedSQLHoldsNoValues(t *testing.T) {
	const secret, number = "s3cret-Value-x9", 987654321987
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			core, logs := observer.New(zapcore.DebugLevel)
			opts := db.Options{MaxOpenConns: 2, MaxIdleConns: 2, SlowQuery: time.Nanosecond}
			placeholder := "?"
			if kind == "sqlite" {
				opts.SQLitePath = filepath.Join(t.TempDir(), "l.db")
			} else {
				opts.URL = testenv.EmptyPostgresDB(t)
				placeholder = "$2"
			}
			gdb, err := db.Open(opts, zap.New(core))
			if err != nil {
				t.Fatal(err)
			}
			sqlDB, _ := gdb.DB()
			defer sqlDB.Close()

			if err := gdb.Exec("CREATE TABLE t (a varchar(100), b bigint)").Error; err != nil {
				t.Fatal(err)
			}
			if err := gdb.Exec("INSERT INTO t (a, b) VALUES (?, ?)", secret, number).Error; err != nil {
				t.Fatal(err)
			}
			var n int64
			gdb.Table("t").Where("a = ? AND b = ?", secret, number).Count(&n)
			if n != 1 {
				t.Fatalf("count %d", n)
			}
			// Fails: no such table.
			if err := gdb.Exec("INSERT INTO missing (a, b) VALUES (?, ?)", secret, number).Error; err == nil {
				t.Fatal("insert into a missing table succeeded")
			}
			// Thousands of placeholders.
			ids := make([]any, 3000)
			for i := range ids {
				ids[i] = number + int64(i)
			}
			gdb.Table("t").Where("b IN ?", ids).Count(&n)

			var slow, failed int
			for _, e := range logs.All() {
				switch e.Message {
				case "slow query":
					slow++
				case "query failed":
					failed++
				}
				text := e.Message
				for k, v := range e.ContextMap() {
					text += fmt.Sprintf(" %s=%v", k, v)
				}
				if strings.Contains(text, secret) || strings.Contains(text, "987654321") {
					t.Errorf("a log line holds a bound value: %s", text)
				}
				if sql, ok := e.ContextMap()["sql"].(string); ok {
					if len(sql) > db.MaxLoggedSQL+64 {
						t.Errorf("logged SQL of %d bytes", len(sql))
					}
					if strings.Contains(sql, "INSERT INTO t") && !strings.Contains(sql, placeholder) {
						t.Errorf("logged SQL without its placeholders: %s", sql)
					}
				}
			}
			if slow < 4 || failed != 1 {
				t.Fatalf("%d slow-query lines and %d failed-query lines, want at least 4 and 1", slow, failed)
			}
		})
	}
}
