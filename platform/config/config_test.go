package config_test

import (
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
	} {
		if _, err := config.FromLookup(lookup(env)); err == nil {
			t.Errorf("%s: want an error", name)
		}
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
