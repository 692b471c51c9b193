// Package db opens folio's database (PostgreSQL or the embedded SQLite file), sizes its pool,
// runs the migrations the modules contribute, and offers the transaction helpers the stores use.
package db

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/glebarez/sqlite"
	"github.com/jackc/pgx/v5/pgconn"
	"go.uber.org/zap"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"
)

// Options say which database to open and how large its pool is.
type Options struct {
	URL          string // postgres://... ; empty selects SQLite at SQLitePath
	SQLitePath   string
	MaxOpenConns int
	MaxIdleConns int
	SlowQuery    time.Duration // a query taking longer is logged (with its SQL, never its values); 0: DefaultSlowQuery
}

// sessionSettings are the PostgreSQL settings every folio connection asks for, unless the URL
// sets the parameter itself.
//
// plan_cache_mode=force_generic_plan: plan each prepared statement once per connection. pgx
// prepares every query; left to choose, PostgreSQL plans the first five executions per value and
// then keeps a generic plan only when its estimate, which depends on ANALYZE's random sample, says
// so. The list queries then cost either their planning time or not, from one start to the next (a
// page of 20 notes: about 0.5 or 0.7 ms of database CPU). Every query folio sends is an index
// lookup or a keyset page whose plan does not depend on the values.
//
// jit=off: a generic plan's cost estimate on a bloated table (autovacuum off, stale statistics)
// crossed jit_above_cost and PostgreSQL JIT-compiled the cursor query on every execution: 354 ms
// instead of 5.7 ms. folio's queries are short index scans that never gain from JIT.
var sessionSettings = []string{"plan_cache_mode=force_generic_plan", "jit=off"}

// withSessionSettings appends sessionSettings to a PostgreSQL URL, keeping any the URL sets.
func withSessionSettings(url string) string {
	for _, setting := range sessionSettings {
		name, _, _ := strings.Cut(setting, "=")
		if strings.Contains(url, name+"=") {
			continue
		}
		if strings.Contains(url, "?") {
			url += "&" + setting
		} else {
			url += "?" + setting
		}
	}
	return url
}

// Open opens the database and configures the connection pool.
//
// MaxOpenConns and MaxIdleConns default to the same number (4 per CPU, at least 8) so that a burst
// does not open and close connections: database/sql keeps only 2 idle by default, which under load
// means a new TCP+auth handshake (PostgreSQL) for most requests. SQLite runs in WAL mode, so the
// pool's connections read concurrently; writers serialise on BEGIN IMMEDIATE and wait up to
// busy_timeout (10 s) for each other, and for a CLI running beside the server.
func Open(opts Options, log *zap.Logger) (*gorm.DB, error) {
	cfg := &gorm.Config{
		Logger:                                   newLogger(log, opts.SlowQuery),
		NowFunc:                                  func() time.Time { return time.Now().UTC().Truncate(time.Millisecond) },
		DisableForeignKeyConstraintWhenMigrating: false,
		TranslateError:                           true,
	}
	var (
		gdb *gorm.DB
		err error
	)
	if opts.URL != "" {
		gdb, err = gorm.Open(postgres.Open(withSessionSettings(opts.URL)), cfg)
	} else {
		path := opts.SQLitePath
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("create sqlite directory: %w", err)
			}
		}
		// busy_timeout comes first: switching a new file to WAL needs its lock too, and processes
		// started together on one new file must wait for each other there as well.
		dsn := path + "?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
		gdb, err = gorm.Open(sqlite.Open(dsn), cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := guardUnitWrites(gdb); err != nil {
		return nil, err
	}
	if err := releaseSharedForGORM(gdb); err != nil {
		return nil, err
	}
	sqlDB, err := gdb.DB()
	if err != nil {
		return nil, err
	}
	sqlDB.SetMaxOpenConns(opts.MaxOpenConns)
	sqlDB.SetMaxIdleConns(min(opts.MaxIdleConns, opts.MaxOpenConns))
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	sqlDB.SetConnMaxLifetime(time.Hour)
	return gdb, nil
}

// IsPostgres reports whether gdb talks to PostgreSQL.
func IsPostgres(gdb *gorm.DB) bool { return gdb.Dialector.Name() == "postgres" }

// ForUpdate locks the selected rows until the transaction ends. On PostgreSQL it is SELECT ... FOR
// UPDATE; SQLite has no row locks, but folio opens SQLite transactions with BEGIN IMMEDIATE
// (_txlock=immediate), which takes the database's write lock at the start of every transaction, so
// the same read-then-write sections are serialised there too.
func ForUpdate(tx *gorm.DB) *gorm.DB {
	if IsPostgres(tx) {
		return tx.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	return tx
}

// Transaction runs fn in a transaction on gdb bound to ctx. When ctx carries a Unit (an
// idempotent request), fn runs in the unit's transaction instead, which the unit's owner commits
// once the response is known (see Unit).
func Transaction(ctx context.Context, gdb *gorm.DB, fn func(tx *gorm.DB) error) error {
	giveBackShared(ctx, gdb) // a transaction takes a connection of its own (see Shared)
	if u := unitFrom(ctx); u != nil {
		return u.join(ctx, gdb, fn)
	}
	return beginOnConn(ctx, gdb, fn)
}

// IsUniqueViolation reports whether err is a unique-constraint violation on either database.
func IsUniqueViolation(err error) bool {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return true
	}
	// The SQLite driver does not translate every constraint error; match its text.
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// Take loads the one row q selects, locked until the transaction ends when lock is set (ForUpdate);
// no row is notFound, the caller's own error (ErrNotFound of its module).
func Take[T any](q *gorm.DB, lock bool, notFound error) (T, error) {
	if lock {
		q = ForUpdate(q)
	}
	var row T
	err := q.Take(&row).Error
	if IsNotFound(err) {
		var none T
		return none, notFound
	}
	return row, err
}

// IsNotFound reports whether err says a row was not found.
func IsNotFound(err error) bool { return errors.Is(err, gorm.ErrRecordNotFound) }

type zapGormLogger struct {
	log  *zap.Logger
	slow time.Duration
}

// DefaultSlowQuery is how long a query may take before it is logged, when Options.SlowQuery is 0.
const DefaultSlowQuery = 200 * time.Millisecond

// MaxLoggedSQL caps the SQL text of one log line (bytes; a longer text is cut and marked): a
// statement with thousands of placeholders must not make a megabyte log line.
const MaxLoggedSQL = 2 << 10

func newLogger(log *zap.Logger, slow time.Duration) logger.Interface {
	if log == nil {
		log = zap.NewNop()
	}
	if slow <= 0 {
		slow = DefaultSlowQuery
	}
	return &zapGormLogger{log: log.Named("db"), slow: slow}
}

func (l *zapGormLogger) LogMode(logger.LogLevel) logger.Interface { return l }
func (l *zapGormLogger) Info(_ context.Context, msg string, args ...any) {
	l.log.Info(capText(fmt.Sprintf(msg, args...), MaxLoggedSQL))
}
func (l *zapGormLogger) Warn(_ context.Context, msg string, args ...any) {
	l.log.Warn(capText(fmt.Sprintf(msg, args...), MaxLoggedSQL))
}
func (l *zapGormLogger) Error(_ context.Context, msg string, args ...any) {
	l.log.Error(capText(fmt.Sprintf(msg, args...), MaxLoggedSQL))
}

// ParamsFilter implements gorm.ParamsFilter: gorm calls it when it renders a statement for Trace,
// and with no parameters its Explain leaves the placeholders (? or $n$) where the bound values
// would have been written, quoted by the dialect ('...' on PostgreSQL, "..." on SQLite). So the
// logged SQL never holds a bound value (password hashes, emails, tokens, whole notes).
func (l *zapGormLogger) ParamsFilter(_ context.Context, sql string, _ ...any) (string, []any) {
	return sql, nil
}

// Trace logs slow queries and unexpected errors, with the parameterised SQL (see ParamsFilter),
// cut at MaxLoggedSQL bytes.
func (l *zapGormLogger) Trace(_ context.Context, begin time.Time, fc func() (string, int64), err error) {
	elapsed := time.Since(begin)
	if l.logged(elapsed, err) {
		sql, _ := fc()
		l.logStatement(elapsed, sql, err)
	}
}

// traceText is Trace for a statement whose text is at hand (a native one, see native.trace).
func (l *zapGormLogger) traceText(begin time.Time, sql string, err error) {
	elapsed := time.Since(begin)
	if l.logged(elapsed, err) {
		l.logStatement(elapsed, sql, err)
	}
}

// logged reports whether a statement that took elapsed and ended with err is logged: an
// unexpected error, or a slow statement.
func (l *zapGormLogger) logged(elapsed time.Duration, err error) bool {
	return unexpected(err) || elapsed > l.slow
}

func unexpected(err error) bool {
	return err != nil && !errors.Is(err, gorm.ErrRecordNotFound) && !IsUniqueViolation(err) && !errors.Is(err, context.Canceled)
}

// logStatement writes the line of a statement that logged reported.
func (l *zapGormLogger) logStatement(elapsed time.Duration, sql string, err error) {
	if unexpected(err) {
		l.log.Warn("query failed", zap.String("error", capText(err.Error(), MaxLoggedSQL)), zap.Duration("elapsed", elapsed), zap.String("sql", loggedSQL(sql)))
		return
	}
	l.log.Warn("slow query", zap.Duration("elapsed", elapsed), zap.String("sql", loggedSQL(sql)))
}

// pgPlaceholder is what gorm's Explain leaves of PostgreSQL's $n when it has no value for it.
var pgPlaceholder = regexp.MustCompile(`\$([0-9]+)\$`)

// loggedSQL is the SQL as logged: placeholders back in PostgreSQL's $n form, at most MaxLoggedSQL bytes.
func loggedSQL(sql string) string {
	if strings.Contains(sql, "$") {
		sql = pgPlaceholder.ReplaceAllString(sql, "$$$1")
	}
	return capText(sql, MaxLoggedSQL)
}

// capText cuts s to at most max bytes (on a UTF-8 boundary) and says how long it was.
func capText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes in all)", len(s))
}

// OpenWaiting opens the database like Open, waiting up to timeout for a PostgreSQL server that
// does not answer yet (a container started beside its database): it tries a bare connection with
// a growing pause (250 ms doubling to 5 s), logging each retry, and opens the pool once one
// succeeds. A server that answers with an error (a wrong password, a missing database) fails at
// once, except "the database system is starting up". SQLite is a local file: nothing to wait for.
func OpenWaiting(opts Options, log *zap.Logger, timeout time.Duration) (*gorm.DB, error) {
	if opts.URL != "" {
		if err := waitForPostgres(opts.URL, log, timeout); err != nil {
			return nil, err
		}
	}
	return Open(opts, log)
}

func waitForPostgres(url string, log *zap.Logger, timeout time.Duration) error {
	if log == nil {
		log = zap.NewNop()
	}
	deadline := time.Now().Add(timeout)
	pause := 250 * time.Millisecond
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		conn, err := pgconn.Connect(ctx, url)
		cancel()
		if err == nil {
			if attempt > 1 {
				log.Info("database reachable", zap.Int("attempt", attempt))
			}
			return conn.Close(context.Background())
		}
		if !retryableConnectError(err) {
			return fmt.Errorf("open database: %w", err)
		}
		if time.Now().Add(pause).After(deadline) {
			return fmt.Errorf("the database did not answer within FOLIO_DB_CONNECT_TIMEOUT (%s): %w", timeout, err)
		}
		log.Warn("database not reachable yet; retrying",
			zap.Int("attempt", attempt), zap.Duration("retryIn", pause), zap.Error(err))
		time.Sleep(pause)
		pause = min(2*pause, 5*time.Second)
	}
}

// retryableConnectError tells a server that is not there yet (no answer: refused, unreachable,
// timed out; or "starting up") from one that answered no.
func retryableConnectError(err error) bool {
	var parseErr *pgconn.ParseConfigError
	if errors.As(err, &parseErr) {
		return false // the URL itself is wrong: waiting cannot mend it
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "57P03" // cannot_connect_now: starting up, shutting down, recovering
	}
	return true
}

// SessionURL is url with the session settings every folio connection runs with (generic plans, no
// JIT; see sessionSettings). The load harness's floor server connects with it, so that both run
// their statements under the same plans.
func SessionURL(url string) string { return withSessionSettings(url) }
