// Package config reads folio's configuration from FOLIO_* environment variables (and nothing
// else). Every variable, its default and its meaning is listed in README.md; keep the two in step.
package config

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Config is the whole configuration of one folio process.
type Config struct {
	HTTPAddr          string        // FOLIO_HTTP_ADDR
	DatabaseURL       string        // FOLIO_DATABASE_URL: postgres://... or empty for SQLite
	SQLitePath        string        // FOLIO_SQLITE_PATH
	DBMaxOpenConns    int           // FOLIO_DB_MAX_OPEN_CONNS
	DBMaxIdleConns    int           // FOLIO_DB_MAX_IDLE_CONNS
	DBSlowQuery       time.Duration // FOLIO_DB_SLOW_QUERY: a query taking longer is logged (SQL without values)
	RedisURL          string        // FOLIO_REDIS_URL
	RedisTimeout      time.Duration // FOLIO_REDIS_TIMEOUT
	RateLimit         int           // FOLIO_RATE_LIMIT: accepted requests per user per rolling minute
	AuthFailureLimit  int           // FOLIO_AUTH_FAILURE_LIMIT: failed authentications per address per minute
	NotebookItemLimit int           // FOLIO_NOTEBOOK_ITEM_LIMIT
	KeyCacheTTL       time.Duration // FOLIO_KEY_CACHE_TTL: at most 5s
	KeyPepper         string        // FOLIO_KEY_PEPPER: optional HMAC key for API key hashes
	SessionTTL        time.Duration // FOLIO_SESSION_TTL
	CookieSecure      string        // FOLIO_COOKIE_SECURE: auto, true or false
	TrustedProxies    []string      // FOLIO_TRUSTED_PROXIES: comma-separated CIDRs
	CORSOrigins       []string      // FOLIO_CORS_ORIGINS: comma-separated origins allowed to call the API from a browser
	ShutdownTimeout   time.Duration // FOLIO_SHUTDOWN_TIMEOUT
	MetricsAddr       string        // FOLIO_METRICS_ADDR: host:port of the Prometheus listener; empty: no metrics
	// Webhook deliveries (CONTRACT.md section 18): http URLs and non-public addresses are refused
	// unless these say otherwise (tests and local setups).
	WebhookAllowInsecure bool          // FOLIO_WEBHOOK_ALLOW_INSECURE
	WebhookAllowPrivate  bool          // FOLIO_WEBHOOK_ALLOW_PRIVATE
	WebhookRetryBase     time.Duration // FOLIO_WEBHOOK_RETRY_BASE: the first retry's delay; each next one doubles, up to 6h
	LogLevel             string        // FOLIO_LOG_LEVEL
	LogFormat            string        // FOLIO_LOG_FORMAT: json or console
}

// Default returns the configuration used when no variable is set.
func Default() Config {
	conns := 4 * runtime.NumCPU()
	if conns < 8 {
		conns = 8
	}
	return Config{
		HTTPAddr:          ":8080",
		SQLitePath:        "./folio-data/folio.db",
		DBMaxOpenConns:    conns,
		DBMaxIdleConns:    conns,
		DBSlowQuery:       200 * time.Millisecond,
		RedisTimeout:      200 * time.Millisecond,
		RateLimit:         100,
		AuthFailureLimit:  20,
		NotebookItemLimit: 10000,
		KeyCacheTTL:       3 * time.Second,
		SessionTTL:        30 * 24 * time.Hour,
		CookieSecure:      "auto",
		ShutdownTimeout:   15 * time.Second,
		WebhookRetryBase:  10 * time.Second,
		LogLevel:          "info",
		LogFormat:         "json",
	}
}

// FromEnv reads the configuration from the environment, starting from Default.
func FromEnv() (Config, error) { return FromLookup(os.LookupEnv) }

// FromLookup reads the configuration through lookup (os.LookupEnv in production, a map in tests).
func FromLookup(lookup func(string) (string, bool)) (Config, error) {
	c := Default()
	r := reader{lookup: lookup}
	r.str("FOLIO_HTTP_ADDR", &c.HTTPAddr)
	r.str("FOLIO_DATABASE_URL", &c.DatabaseURL)
	r.str("FOLIO_SQLITE_PATH", &c.SQLitePath)
	r.int("FOLIO_DB_MAX_OPEN_CONNS", &c.DBMaxOpenConns, 1)
	r.int("FOLIO_DB_MAX_IDLE_CONNS", &c.DBMaxIdleConns, 0)
	r.dur("FOLIO_DB_SLOW_QUERY", &c.DBSlowQuery)
	r.str("FOLIO_REDIS_URL", &c.RedisURL)
	r.dur("FOLIO_REDIS_TIMEOUT", &c.RedisTimeout)
	r.int("FOLIO_RATE_LIMIT", &c.RateLimit, 1)
	r.int("FOLIO_AUTH_FAILURE_LIMIT", &c.AuthFailureLimit, 1)
	r.int("FOLIO_NOTEBOOK_ITEM_LIMIT", &c.NotebookItemLimit, 1)
	r.dur("FOLIO_KEY_CACHE_TTL", &c.KeyCacheTTL)
	r.str("FOLIO_KEY_PEPPER", &c.KeyPepper)
	r.dur("FOLIO_SESSION_TTL", &c.SessionTTL)
	r.str("FOLIO_COOKIE_SECURE", &c.CookieSecure)
	c.TrustedProxies = r.list("FOLIO_TRUSTED_PROXIES")
	c.CORSOrigins = r.list("FOLIO_CORS_ORIGINS")
	r.dur("FOLIO_SHUTDOWN_TIMEOUT", &c.ShutdownTimeout)
	r.str("FOLIO_METRICS_ADDR", &c.MetricsAddr)
	r.bool("FOLIO_WEBHOOK_ALLOW_INSECURE", &c.WebhookAllowInsecure)
	r.bool("FOLIO_WEBHOOK_ALLOW_PRIVATE", &c.WebhookAllowPrivate)
	r.dur("FOLIO_WEBHOOK_RETRY_BASE", &c.WebhookRetryBase)
	r.str("FOLIO_LOG_LEVEL", &c.LogLevel)
	r.str("FOLIO_LOG_FORMAT", &c.LogFormat)
	if r.err != nil {
		return Config{}, r.err
	}
	return c, c.Validate()
}

// Validate checks the values that the readers cannot check one by one.
func (c Config) Validate() error {
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		return fmt.Errorf("FOLIO_DATABASE_URL must start with postgres:// (or be unset for SQLite)")
	}
	if c.KeyCacheTTL < 0 || c.KeyCacheTTL > 5*time.Second {
		return fmt.Errorf("FOLIO_KEY_CACHE_TTL must be between 0s and 5s: revocations must reach every instance within 5 seconds")
	}
	if c.WebhookRetryBase <= 0 {
		return fmt.Errorf("FOLIO_WEBHOOK_RETRY_BASE must be a positive duration such as 10s")
	}
	if c.DBSlowQuery <= 0 {
		return fmt.Errorf("FOLIO_DB_SLOW_QUERY must be a positive duration such as 200ms")
	}
	switch c.CookieSecure {
	case "auto", "true", "false":
	default:
		return fmt.Errorf("FOLIO_COOKIE_SECURE must be auto, true or false")
	}
	for _, o := range c.CORSOrigins {
		if err := validateOrigin(o); err != nil {
			return fmt.Errorf("FOLIO_CORS_ORIGINS: %w", err)
		}
	}
	switch c.LogFormat {
	case "json", "console":
	default:
		return fmt.Errorf("FOLIO_LOG_FORMAT must be json or console")
	}
	if c.MetricsAddr != "" {
		if err := validateHostPort(c.MetricsAddr); err != nil {
			return fmt.Errorf("FOLIO_METRICS_ADDR: %w", err)
		}
	}
	return nil
}

// validateHostPort checks a listen address: host:port, with an optional host (":9090" listens on
// every interface) and a numeric port (0 picks a free one).
func validateHostPort(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port (for example 127.0.0.1:9090 or :9090)", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q has no valid port: write a number between 0 and 65535", addr)
	}
	return nil
}

// validateOrigin checks one FOLIO_CORS_ORIGINS entry: "*" (any origin: safe because the API
// accepts only keys cross-origin, never cookies), or an origin exactly as a browser sends it in the
// Origin header, scheme://host[:port] in lower case with no path, so that a trailing slash or a
// capital cannot silently match nothing.
func validateOrigin(o string) error {
	if o == "*" {
		return nil
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(o, "?") || o != strings.ToLower(o) {
		return fmt.Errorf("%q is not an origin: write scheme://host[:port] in lower case, without a path or a trailing slash (or * for any origin)", o)
	}
	return nil
}

// Postgres reports whether the configuration selects PostgreSQL.
func (c Config) Postgres() bool { return c.DatabaseURL != "" }

type reader struct {
	lookup func(string) (string, bool)
	err    error
}

func (r *reader) get(name string) (string, bool) {
	v, ok := r.lookup(name)
	if !ok || strings.TrimSpace(v) == "" {
		return "", false
	}
	return strings.TrimSpace(v), true
}

// list reads a comma-separated list; blanks around and between entries are dropped.
func (r *reader) list(name string) []string {
	var raw string
	r.str(name, &raw)
	var out []string
	for _, v := range strings.Split(raw, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func (r *reader) str(name string, dst *string) {
	if v, ok := r.get(name); ok {
		*dst = v
	}
}

func (r *reader) int(name string, dst *int, min int) {
	v, ok := r.get(name)
	if !ok {
		return
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min {
		r.fail(fmt.Errorf("%s must be an integer >= %d, got %q", name, min, v))
		return
	}
	*dst = n
}

func (r *reader) dur(name string, dst *time.Duration) {
	v, ok := r.get(name)
	if !ok {
		return
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		r.fail(fmt.Errorf("%s must be a duration such as 3s or 250ms, got %q", name, v))
		return
	}
	*dst = d
}

func (r *reader) bool(name string, dst *bool) {
	v, ok := r.get(name)
	if !ok {
		return
	}
	switch v {
	case "true":
		*dst = true
	case "false":
		*dst = false
	default:
		r.fail(fmt.Errorf("%s must be true or false", name))
	}
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}
