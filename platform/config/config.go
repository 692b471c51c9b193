// Package config reads folio's configuration from FOLIO_* environment variables (and, for the
// three secrets, from the files that their *_FILE variants name: container secrets). Every
// variable, its default and its meaning is listed in docs/operations.md (Configuration); keep the two in step.
//
// The whole configuration is read and checked before anything else is built (cmd/folio calls
// FromEnv first): a bad value ends the process with one line naming the variable, the value and
// what is allowed, instead of a dependency-graph error. A FOLIO_* variable that folio does not
// read is not an error (it may be meant for another version) but a warning naming the closest
// variable folio knows, since a misspelt setting otherwise does nothing silently.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is the whole configuration of one folio process.
type Config struct {
	HTTPAddr          string        // FOLIO_HTTP_ADDR
	DatabaseURL       string        // FOLIO_DATABASE_URL: postgres://... or empty for SQLite (a sqlite:/// URL sets SQLitePath)
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
	DBConnectTimeout  time.Duration // FOLIO_DB_CONNECT_TIMEOUT: how long start waits for the database to answer
	MetricsAddr       string        // FOLIO_METRICS_ADDR: host:port of the Prometheus listener; empty: no metrics
	ImportWait        time.Duration // FOLIO_IMPORT_WAIT: how long an import waits for the one under way before 503
	MemoryLimitMB     int           // FOLIO_MEMORY_LIMIT_MB: `folio serve`'s soft memory limit for the Go runtime (MiB); 0: none. GOMEMLIMIT wins
	// Webhook deliveries (CONTRACT.md section 18): http URLs and non-public addresses are refused
	// unless these say otherwise (tests and local setups).
	WebhookAllowInsecure bool          // FOLIO_WEBHOOK_ALLOW_INSECURE
	WebhookAllowPrivate  bool          // FOLIO_WEBHOOK_ALLOW_PRIVATE
	WebhookRetryBase     time.Duration // FOLIO_WEBHOOK_RETRY_BASE: the first retry's delay; each next one doubles, up to 6h
	WebhookRescueAfter   time.Duration // FOLIO_WEBHOOK_RESCUE_AFTER: when a delivery whose instance died is given back to the queue
	LogLevel             string        // FOLIO_LOG_LEVEL
	LogFormat            string        // FOLIO_LOG_FORMAT: json or console

	// Warnings are what reading the environment noticed without failing (a FOLIO_* variable folio
	// does not know); the process logs them once its logger exists.
	Warnings []string
}

// MaxMemoryLimitMB is the largest FOLIO_MEMORY_LIMIT_MB (1 TiB): a limit in bytes that cannot
// overflow.
const MaxMemoryLimitMB = 1 << 20

// DefaultMemoryLimitMB is FOLIO_MEMORY_LIMIT_MB's default (docs/performance.md, Memory).
const DefaultMemoryLimitMB = 32

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
		MemoryLimitMB:     DefaultMemoryLimitMB,
		KeyCacheTTL:       3 * time.Second,
		SessionTTL:        30 * 24 * time.Hour,
		CookieSecure:      "auto",
		ShutdownTimeout:   15 * time.Second,
		DBConnectTimeout:  30 * time.Second,
		ImportWait:        20 * time.Second,
		WebhookRetryBase:  10 * time.Second,
		// webhooks.Timeout × 3: a delivery cut off at 2 × Timeout is rescued 10 s later.
		WebhookRescueAfter: 30 * time.Second,
		LogLevel:           "info",
		LogFormat:          "json",
	}
}

// FromEnv reads the configuration from the process's environment, starting from Default.
func FromEnv() (Config, error) {
	return Load(Source{Lookup: os.LookupEnv, Environ: os.Environ(), ReadFile: os.ReadFile})
}

// FromLookup reads the configuration through lookup alone (tests: a map; no unknown-variable
// warnings, since there is no list of names).
func FromLookup(lookup func(string) (string, bool)) (Config, error) {
	return Load(Source{Lookup: lookup, ReadFile: os.ReadFile})
}

// Source is where Load reads: the variables, the list of every variable set (for the warnings) and
// the files that *_FILE variables name.
type Source struct {
	Lookup   func(string) (string, bool)
	Environ  []string // "NAME=value" entries, as os.Environ gives them
	ReadFile func(string) ([]byte, error)
}

// Load reads and checks the whole configuration. Its error is one line: the variable, the value
// (a secret's value is never shown) and what is allowed.
func Load(src Source) (Config, error) {
	c := Default()
	r := reader{lookup: src.Lookup, readFile: src.ReadFile, known: map[string]bool{}}
	r.str("FOLIO_HTTP_ADDR", &c.HTTPAddr)
	r.secret("FOLIO_DATABASE_URL", &c.DatabaseURL)
	r.str("FOLIO_SQLITE_PATH", &c.SQLitePath)
	if hasScheme(c.DatabaseURL, "sqlite") {
		// The embedded database named as a URL (what `folio copy` takes too): it wins over
		// FOLIO_SQLITE_PATH.
		_, path, err := DatabaseAt(c.DatabaseURL)
		if err != nil && r.err == nil {
			r.err = fmt.Errorf("FOLIO_DATABASE_URL: %w", err)
		}
		c.DatabaseURL, c.SQLitePath = "", path
	}
	r.int("FOLIO_DB_MAX_OPEN_CONNS", &c.DBMaxOpenConns, 1)
	r.int("FOLIO_DB_MAX_IDLE_CONNS", &c.DBMaxIdleConns, 0)
	r.positiveDur("FOLIO_DB_SLOW_QUERY", &c.DBSlowQuery)
	r.dur("FOLIO_DB_CONNECT_TIMEOUT", &c.DBConnectTimeout)
	r.secret("FOLIO_REDIS_URL", &c.RedisURL)
	r.dur("FOLIO_REDIS_TIMEOUT", &c.RedisTimeout)
	r.int("FOLIO_RATE_LIMIT", &c.RateLimit, 1)
	r.int("FOLIO_AUTH_FAILURE_LIMIT", &c.AuthFailureLimit, 1)
	r.int("FOLIO_NOTEBOOK_ITEM_LIMIT", &c.NotebookItemLimit, 1)
	r.dur("FOLIO_KEY_CACHE_TTL", &c.KeyCacheTTL)
	r.secret("FOLIO_KEY_PEPPER", &c.KeyPepper)
	r.dur("FOLIO_SESSION_TTL", &c.SessionTTL)
	r.oneOf("FOLIO_COOKIE_SECURE", &c.CookieSecure, "auto", "true", "false")
	c.TrustedProxies = r.list("FOLIO_TRUSTED_PROXIES")
	c.CORSOrigins = r.list("FOLIO_CORS_ORIGINS")
	r.dur("FOLIO_SHUTDOWN_TIMEOUT", &c.ShutdownTimeout)
	r.str("FOLIO_METRICS_ADDR", &c.MetricsAddr)
	r.positiveDur("FOLIO_IMPORT_WAIT", &c.ImportWait)
	r.int("FOLIO_MEMORY_LIMIT_MB", &c.MemoryLimitMB, 0)
	r.bool("FOLIO_WEBHOOK_ALLOW_INSECURE", &c.WebhookAllowInsecure)
	r.bool("FOLIO_WEBHOOK_ALLOW_PRIVATE", &c.WebhookAllowPrivate)
	r.positiveDur("FOLIO_WEBHOOK_RETRY_BASE", &c.WebhookRetryBase)
	r.positiveDur("FOLIO_WEBHOOK_RESCUE_AFTER", &c.WebhookRescueAfter)
	r.oneOf("FOLIO_LOG_LEVEL", &c.LogLevel, "debug", "info", "warn", "error")
	r.oneOf("FOLIO_LOG_FORMAT", &c.LogFormat, "json", "console")
	if r.err != nil {
		return Config{}, r.err
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	c.Warnings = unknownVariables(src.Environ, r.known)
	return c, nil
}

// Validate checks the values that the readers cannot check one by one. Tests that build a Config
// by hand get the same checks.
func (c Config) Validate() error {
	if err := validateListenAddr(c.HTTPAddr); err != nil {
		return fmt.Errorf("FOLIO_HTTP_ADDR=%q: %w", c.HTTPAddr, err)
	}
	if c.MetricsAddr != "" {
		if err := validateListenAddr(c.MetricsAddr); err != nil {
			return fmt.Errorf("FOLIO_METRICS_ADDR=%q: %w", c.MetricsAddr, err)
		}
	}
	if c.DatabaseURL != "" && !hasScheme(c.DatabaseURL, "postgres", "postgresql") {
		return fmt.Errorf("FOLIO_DATABASE_URL=%s: must start with postgres://, postgresql:// or sqlite:/// (unset it for the embedded SQLite)", redactURL(c.DatabaseURL))
	}
	if c.RedisURL != "" && !hasScheme(c.RedisURL, "redis", "rediss", "unix") {
		return fmt.Errorf("FOLIO_REDIS_URL=%s: must start with redis://, rediss:// or unix:// (or be unset)", redactURL(c.RedisURL))
	}
	if c.MemoryLimitMB < 0 || c.MemoryLimitMB > MaxMemoryLimitMB {
		return fmt.Errorf("FOLIO_MEMORY_LIMIT_MB=%d: must be between 0 (no limit) and %d", c.MemoryLimitMB, MaxMemoryLimitMB)
	}
	if c.KeyCacheTTL < 0 || c.KeyCacheTTL > 5*time.Second {
		return fmt.Errorf("FOLIO_KEY_CACHE_TTL=%q: must be between 0s and 5s (a revocation must reach every instance within 5 seconds)", c.KeyCacheTTL)
	}
	if c.WebhookRescueAfter < time.Second {
		return fmt.Errorf("FOLIO_WEBHOOK_RESCUE_AFTER=%q: must be at least 1s", c.WebhookRescueAfter)
	}
	for _, o := range c.CORSOrigins {
		if err := validateOrigin(o); err != nil {
			return fmt.Errorf("FOLIO_CORS_ORIGINS: %w", err)
		}
	}
	return nil
}

// validateListenAddr accepts what net.Listen("tcp", addr) accepts as a host and a port: ":8080",
// "127.0.0.1:8080", "[::1]:0".
func validateListenAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("must be host:port or :port, such as :8080 or 127.0.0.1:8080")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return errors.New("the port must be a number from 0 to 65535")
	}
	return nil
}

func hasScheme(u string, schemes ...string) bool {
	for _, s := range schemes {
		if strings.HasPrefix(strings.ToLower(u), s+"://") {
			return true
		}
	}
	return false
}

// redactURL shows a URL's scheme only: the rest may hold a password.
func redactURL(u string) string {
	if i := strings.Index(u, "://"); i > 0 && i < 20 {
		return fmt.Sprintf("%q", u[:i+3]+"…")
	}
	return "(value not shown: it may hold a password)"
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

// DatabaseAt reads a database URL as FOLIO_DATABASE_URL and `folio copy` take it: postgres:// or
// postgresql:// (returned as postgresURL), or sqlite:///absolute/path/to/file.db (the path, as
// sqlitePath). Anything else, or a SQLite path that is not absolute, is an error that shows the
// URL's scheme only (a PostgreSQL URL may hold a password).
func DatabaseAt(u string) (postgresURL, sqlitePath string, err error) {
	switch {
	case hasScheme(u, "postgres", "postgresql"):
		return u, "", nil
	case hasScheme(u, "sqlite"):
		path := u[len("sqlite://"):]
		if i := strings.IndexAny(path, "?#"); i >= 0 {
			path = path[:i]
		}
		if !strings.HasPrefix(path, "/") || path == "/" {
			return "", "", fmt.Errorf("%q: a SQLite database is named by its absolute path, sqlite:///absolute/path/to/file.db", u)
		}
		return "", path, nil
	}
	return "", "", fmt.Errorf("%s: must start with postgres://, postgresql:// or sqlite:///", redactURL(u))
}

// Postgres reports whether the configuration selects PostgreSQL.
func (c Config) Postgres() bool { return c.DatabaseURL != "" }

type reader struct {
	lookup   func(string) (string, bool)
	readFile func(string) ([]byte, error)
	known    map[string]bool // every variable name read, for the unknown-variable warnings
	err      error
}

func (r *reader) get(name string) (string, bool) {
	r.known[name] = true
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

// secret reads name, or the file that name_FILE gives (Docker and Kubernetes secrets are files):
// its content, without the blanks around it. Setting both is a mistake, not a precedence rule.
func (r *reader) secret(name string, dst *string) {
	fileVar := name + "_FILE"
	path, fromFile := r.get(fileVar)
	v, direct := r.get(name)
	switch {
	case fromFile && direct:
		r.fail(fmt.Errorf("%s and %s are both set: set one of them", name, fileVar))
	case fromFile:
		b, err := r.readFile(path)
		if err != nil {
			r.fail(fmt.Errorf("%s=%q: cannot read the file: %v", fileVar, path, unwrapPath(err)))
			return
		}
		if v = strings.TrimSpace(string(b)); v == "" {
			r.fail(fmt.Errorf("%s=%q: the file is empty", fileVar, path))
			return
		}
		*dst = v
	case direct:
		*dst = v
	}
}

// unwrapPath drops the path that an *fs.PathError repeats ("open /x: no such file" → "no such file").
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (r *reader) oneOf(name string, dst *string, allowed ...string) {
	v, ok := r.get(name)
	if !ok {
		return
	}
	v = strings.ToLower(v)
	if !slices.Contains(allowed, v) {
		r.fail(fmt.Errorf("%s=%q: must be one of %s", name, v, strings.Join(allowed, ", ")))
		return
	}
	*dst = v
}

func (r *reader) int(name string, dst *int, min int) {
	v, ok := r.get(name)
	if !ok {
		return
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min {
		r.fail(fmt.Errorf("%s=%q: must be a whole number of at least %d", name, v, min))
		return
	}
	*dst = n
}

func (r *reader) dur(name string, dst *time.Duration)         { r.duration(name, dst, false) }
func (r *reader) positiveDur(name string, dst *time.Duration) { r.duration(name, dst, true) }

func (r *reader) duration(name string, dst *time.Duration, positive bool) {
	v, ok := r.get(name)
	if !ok {
		return
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil || d < 0:
		r.fail(fmt.Errorf("%s=%q: must be a duration such as 3s, 250ms or 2h", name, v))
	case positive && d == 0:
		r.fail(fmt.Errorf("%s=%q: must be a duration above zero, such as 10s or 200ms", name, v))
	default:
		*dst = d
	}
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
		r.fail(fmt.Errorf("%s=%q: must be true or false", name, v))
	}
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// notSettings are FOLIO_* variables that folio's own tooling reads (tests, the load harness, the
// image and compose scripts, the documented client examples): set beside the server, they are not
// misspelt settings.
var notSettings = []string{
	"FOLIO_TEST_", "FOLIO_LOAD_", "FOLIO_UPDATE_README", "FOLIO_BUILD_TRACE", "FOLIO_IMAGE",
	"FOLIO_PUBLISH", "FOLIO_CA_BUNDLE", "FOLIO_REVISION", "FOLIO_URL", "FOLIO_KEY", "FOLIO_API_KEY",
}

// unknownVariables warns about each FOLIO_* variable in environ that folio does not read, naming
// the closest one it does.
func unknownVariables(environ []string, known map[string]bool) []string {
	names := slices.Sorted(maps.Keys(known))
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "FOLIO_") || known[name] || isNotSetting(name) {
			continue
		}
		msg := fmt.Sprintf("%s is not a folio setting and is ignored", name)
		if best, d := closest(name, names); d <= max(2, len(name)/4) {
			msg += fmt.Sprintf("; did you mean %s?", best)
		} else {
			msg += " (docs/operations.md, Configuration, lists every setting)"
		}
		out = append(out, msg)
	}
	return out
}

func isNotSetting(name string) bool {
	for _, n := range notSettings {
		if name == n || (strings.HasSuffix(n, "_") && strings.HasPrefix(name, n)) {
			return true
		}
	}
	return false
}

// closest is the name in names nearest to name by edit distance, and that distance.
func closest(name string, names []string) (string, int) {
	best, bestD := "", -1
	for _, n := range names {
		if d := editDistance(name, n); bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	return best, bestD
}

// editDistance is the Levenshtein distance between a and b (bytes: the names are ASCII).
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
