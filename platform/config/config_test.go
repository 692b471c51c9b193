package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"folio/platform/config"
)

func lookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestDefaults(t *testing.T) {
	c, err := config.FromLookup(lookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != ":8080" || c.RateLimit != 100 || c.NotebookItemLimit != 10000 || c.SQLitePath != "./folio-data/folio.db" || c.Postgres() {
		t.Fatalf("unexpected defaults: %+v", c)
	}
	if c.WebhookRescueAfter != 30*time.Second {
		t.Fatalf("FOLIO_WEBHOOK_RESCUE_AFTER defaults to %v, want 30s", c.WebhookRescueAfter)
	}
}

func TestOverridesAndErrors(t *testing.T) {
	c, err := config.FromLookup(lookup(map[string]string{
		"FOLIO_DATABASE_URL": "postgres://x@localhost/db", "FOLIO_RATE_LIMIT": "5", "FOLIO_KEY_CACHE_TTL": "1s",
		"FOLIO_TRUSTED_PROXIES": "10.0.0.0/8, 127.0.0.1/32",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Postgres() || c.RateLimit != 5 || c.KeyCacheTTL != time.Second || len(c.TrustedProxies) != 2 {
		t.Fatalf("overrides not applied: %+v", c)
	}
	for name, env := range map[string]map[string]string{
		"bad int":       {"FOLIO_RATE_LIMIT": "many"},
		"zero limit":    {"FOLIO_RATE_LIMIT": "0"},
		"bad duration":  {"FOLIO_KEY_CACHE_TTL": "soon"},
		"ttl too long":  {"FOLIO_KEY_CACHE_TTL": "10s"},
		"mysql url":     {"FOLIO_DATABASE_URL": "mysql://x"},
		"sqlite rel":    {"FOLIO_DATABASE_URL": "sqlite://folio.db"},
		"sqlite root":   {"FOLIO_DATABASE_URL": "sqlite:///"},
		"cookie secure": {"FOLIO_COOKIE_SECURE": "yes"},
		"zero slow":     {"FOLIO_DB_SLOW_QUERY": "0s"},
		"origin path":   {"FOLIO_CORS_ORIGINS": "https://app.example.com/"},
		"origin scheme": {"FOLIO_CORS_ORIGINS": "app.example.com"},
		"origin case":   {"FOLIO_CORS_ORIGINS": "https://App.example.com"},
		"origin ftp":    {"FOLIO_CORS_ORIGINS": "ftp://app.example.com"},
		"origin query":  {"FOLIO_CORS_ORIGINS": "https://app.example.com?x"},
		"metrics port":  {"FOLIO_METRICS_ADDR": "9090"},
		"metrics name":  {"FOLIO_METRICS_ADDR": "127.0.0.1:http"},
		"metrics range": {"FOLIO_METRICS_ADDR": "127.0.0.1:70000"},
		"metrics url":   {"FOLIO_METRICS_ADDR": "http://127.0.0.1:9090"},
		"memory words":  {"FOLIO_MEMORY_LIMIT_MB": "48MiB"},
		"memory neg":    {"FOLIO_MEMORY_LIMIT_MB": "-1"},
		"memory huge":   {"FOLIO_MEMORY_LIMIT_MB": "1048577"},
	} {
		if _, err := config.FromLookup(lookup(env)); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

// TestSQLiteURL: FOLIO_DATABASE_URL=sqlite:///abs/path selects the embedded database at that path
// (the form `folio copy` takes), over FOLIO_SQLITE_PATH.
func TestSQLiteURL(t *testing.T) {
	c, err := config.FromLookup(lookup(map[string]string{"FOLIO_DATABASE_URL": "sqlite:///var/lib/folio/folio.db", "FOLIO_SQLITE_PATH": "/elsewhere.db"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Postgres() || c.SQLitePath != "/var/lib/folio/folio.db" {
		t.Fatalf("sqlite URL: postgres %v, path %q", c.Postgres(), c.SQLitePath)
	}
	pg, path, err := config.DatabaseAt("postgresql://u:p@h/db")
	if err != nil || pg != "postgresql://u:p@h/db" || path != "" {
		t.Fatalf("DatabaseAt(postgresql): %q %q %v", pg, path, err)
	}
	if _, _, err := config.DatabaseAt("mysql://u:hunter2@h/db"); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("DatabaseAt(mysql): %v", err)
	}
}

// TestMemoryLimitMB: folio serve's soft memory limit defaults to config.DefaultMemoryLimitMB; 0
// sets none.
func TestMemoryLimitMB(t *testing.T) {
	if c, _ := config.FromLookup(lookup(nil)); c.MemoryLimitMB != config.DefaultMemoryLimitMB {
		t.Fatalf("default FOLIO_MEMORY_LIMIT_MB %d, want %d", c.MemoryLimitMB, config.DefaultMemoryLimitMB)
	}
	for value, want := range map[string]int{"0": 0, "48": 48, "1048576": config.MaxMemoryLimitMB} {
		c, err := config.FromLookup(lookup(map[string]string{"FOLIO_MEMORY_LIMIT_MB": value}))
		if err != nil || c.MemoryLimitMB != want {
			t.Errorf("FOLIO_MEMORY_LIMIT_MB=%s: got %d, %v; want %d", value, c.MemoryLimitMB, err, want)
		}
	}
	bad := config.Default()
	bad.MemoryLimitMB = -1
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "FOLIO_MEMORY_LIMIT_MB") {
		t.Errorf("Validate of a negative limit: %v", err)
	}
}

func TestMetricsAddr(t *testing.T) {
	if c, _ := config.FromLookup(lookup(nil)); c.MetricsAddr != "" {
		t.Fatalf("default FOLIO_METRICS_ADDR %q, want unset (no metrics listener)", c.MetricsAddr)
	}
	for _, addr := range []string{"127.0.0.1:9090", ":9090", "[::1]:9090", "localhost:0"} {
		c, err := config.FromLookup(lookup(map[string]string{"FOLIO_METRICS_ADDR": addr}))
		if err != nil || c.MetricsAddr != addr {
			t.Errorf("FOLIO_METRICS_ADDR=%s: got %q, %v", addr, c.MetricsAddr, err)
		}
	}
}

func TestCORSOrigins(t *testing.T) {
	c, err := config.FromLookup(lookup(map[string]string{
		"FOLIO_CORS_ORIGINS": " https://app.example.com, http://localhost:5173 ,,*",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"https://app.example.com", "http://localhost:5173", "*"}
	if len(c.CORSOrigins) != len(want) {
		t.Fatalf("CORSOrigins = %q, want %q", c.CORSOrigins, want)
	}
	for i := range want {
		if c.CORSOrigins[i] != want[i] {
			t.Fatalf("CORSOrigins = %q, want %q", c.CORSOrigins, want)
		}
	}
	if c, _ := config.FromLookup(lookup(nil)); c.CORSOrigins != nil {
		t.Fatalf("unset FOLIO_CORS_ORIGINS gives %q, want none", c.CORSOrigins)
	}
}

// TestErrorsNameVariableValueAndRule: every bad value is one line naming the variable, the value
// (never a secret's) and what is allowed (CONTRACT.md section 19).
func TestErrorsNameVariableValueAndRule(t *testing.T) {
	for _, tc := range []struct {
		env       map[string]string
		want      []string
		forbidden string
	}{
		{map[string]string{"FOLIO_RATE_LIMIT": "many"}, []string{`FOLIO_RATE_LIMIT="many"`, "whole number of at least 1"}, ""},
		{map[string]string{"FOLIO_SHUTDOWN_TIMEOUT": "soon"}, []string{`FOLIO_SHUTDOWN_TIMEOUT="soon"`, "duration"}, ""},
		{map[string]string{"FOLIO_LOG_LEVEL": "loud"}, []string{`FOLIO_LOG_LEVEL="loud"`, "debug, info, warn, error"}, ""},
		{map[string]string{"FOLIO_COOKIE_SECURE": "yes"}, []string{`FOLIO_COOKIE_SECURE="yes"`, "auto, true, false"}, ""},
		{map[string]string{"FOLIO_WEBHOOK_ALLOW_PRIVATE": "1"}, []string{`FOLIO_WEBHOOK_ALLOW_PRIVATE="1"`, "true or false"}, ""},
		{map[string]string{"FOLIO_HTTP_ADDR": "8080"}, []string{`FOLIO_HTTP_ADDR="8080"`, "host:port"}, ""},
		{map[string]string{"FOLIO_HTTP_ADDR": ":99999"}, []string{`FOLIO_HTTP_ADDR=":99999"`, "0 to 65535"}, ""},
		{map[string]string{"FOLIO_KEY_CACHE_TTL": "10s"}, []string{`FOLIO_KEY_CACHE_TTL="10s"`, "between 0s and 5s"}, ""},
		{map[string]string{"FOLIO_WEBHOOK_RESCUE_AFTER": "500ms"}, []string{`FOLIO_WEBHOOK_RESCUE_AFTER="500ms"`, "at least 1s"}, ""},
		{map[string]string{"FOLIO_DATABASE_URL": "mysql://folio:hunter2@db/folio"}, []string{"FOLIO_DATABASE_URL", `"mysql://…"`, "postgres://"}, "hunter2"},
		{map[string]string{"FOLIO_DATABASE_URL": "hunter2@db"}, []string{"FOLIO_DATABASE_URL", "not shown"}, "hunter2"},
		{map[string]string{"FOLIO_REDIS_URL": "http://:hunter2@cache"}, []string{"FOLIO_REDIS_URL", "redis://"}, "hunter2"},
	} {
		_, err := config.FromLookup(lookup(tc.env))
		if err == nil {
			t.Errorf("%v: want an error", tc.env)
			continue
		}
		msg := err.Error()
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%v: error %q does not contain %q", tc.env, msg, w)
			}
		}
		if strings.Contains(msg, "\n") || (tc.forbidden != "" && strings.Contains(msg, tc.forbidden)) {
			t.Errorf("%v: error %q is not one line or shows the secret", tc.env, msg)
		}
	}
	// Case does not matter for the words.
	if c, err := config.FromLookup(lookup(map[string]string{"FOLIO_LOG_LEVEL": "DEBUG"})); err != nil || c.LogLevel != "debug" {
		t.Errorf("FOLIO_LOG_LEVEL=DEBUG: %q, %v", c.LogLevel, err)
	}
}

// TestSecretFiles: FOLIO_DATABASE_URL_FILE, FOLIO_REDIS_URL_FILE and FOLIO_KEY_PEPPER_FILE read
// the secret from a file (container secrets), without the blanks around it.
func TestSecretFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c, err := config.FromLookup(lookup(map[string]string{
		"FOLIO_DATABASE_URL_FILE": write("db", "postgres://folio:s3cret@db/folio\n"),
		"FOLIO_REDIS_URL_FILE":    write("redis", "redis://cache:6379/0\n"),
		"FOLIO_KEY_PEPPER_FILE":   write("pepper", "  pepper value \r\n"),
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.DatabaseURL != "postgres://folio:s3cret@db/folio" || c.RedisURL != "redis://cache:6379/0" || c.KeyPepper != "pepper value" {
		t.Fatalf("secrets from files: %q %q %q", c.DatabaseURL, c.RedisURL, c.KeyPepper)
	}
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"missing file": {map[string]string{"FOLIO_KEY_PEPPER_FILE": filepath.Join(dir, "nope")}, `FOLIO_KEY_PEPPER_FILE="` + filepath.Join(dir, "nope") + `": cannot read the file: no such file or directory`},
		"empty file":   {map[string]string{"FOLIO_KEY_PEPPER_FILE": write("empty", "\n")}, "the file is empty"},
		"both set":     {map[string]string{"FOLIO_KEY_PEPPER": "x", "FOLIO_KEY_PEPPER_FILE": write("p2", "y")}, "FOLIO_KEY_PEPPER and FOLIO_KEY_PEPPER_FILE are both set"},
	} {
		if _, err := config.FromLookup(lookup(tc.env)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, tc.want)
		}
	}
}

// TestUnknownVariables: a FOLIO_* variable folio does not read is a warning naming the closest
// one it does; folio's own tooling variables are not warned about.
func TestUnknownVariables(t *testing.T) {
	c, err := config.Load(config.Source{
		Lookup:   lookup(nil),
		ReadFile: os.ReadFile,
		Environ: []string{
			"FOLIO_RATE_LIMT=5", "FOLIO_DATABSE_URL=postgres://x", "FOLIO_COMPLETELY_DIFFERENT_THING=1",
			"FOLIO_HTTP_ADDR=:8080", "FOLIO_KEY_PEPPER_FILE=", "FOLIO_TEST_DATABASE_URL=x", "FOLIO_LOAD_CONCURRENCY=4",
			"FOLIO_UPDATE_README=1", "HOME=/root", "PATH=/bin",
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"FOLIO_RATE_LIMT is not a folio setting and is ignored; did you mean FOLIO_RATE_LIMIT?",
		"FOLIO_DATABSE_URL is not a folio setting and is ignored; did you mean FOLIO_DATABASE_URL?",
		"FOLIO_COMPLETELY_DIFFERENT_THING is not a folio setting and is ignored (docs/operations.md, Configuration, lists every setting)",
	}
	if strings.Join(c.Warnings, "\n") != strings.Join(want, "\n") {
		t.Fatalf("warnings:\n%s\nwant:\n%s", strings.Join(c.Warnings, "\n"), strings.Join(want, "\n"))
	}
}
