// Package platform wires what every module shares into one fx module: configuration, logging,
// the clock, the database and its migrations, the HTTP engine and server, the OpenAPI document,
// authentication, the rate limiters, and the metrics and traces (package observability). Each piece lives in its own package and is usable without fx; this file only
// connects them.
package platform

import (
	"context"
	"fmt"
	"os"

	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"gorm.io/gorm"

	"folio/platform/apidoc"
	"folio/platform/apiref"
	"folio/platform/auth"
	"folio/platform/background"
	"folio/platform/clock"
	"folio/platform/config"
	"folio/platform/db"
	"folio/platform/httpx"
	"folio/platform/idempotency"
	"folio/platform/observability"
	"folio/platform/ratelimit"
)

// Module provides the shared platform.
var Module = fx.Module("platform",
	fx.Provide(
		config.FromEnv,
		newLogOutput,
		newLogger,
		func() clock.Clock { return clock.System{} },
		background.New,
		newDatabase,
		newMigrated,
		newLimiters,
		newSizes,
		func(c config.Config) auth.Hasher { return auth.NewHasher(c.KeyPepper) },
		func(c config.Config) *auth.Cache { return auth.NewCache(c.KeyCacheTTL) },
		newGuard,
		auth.NewRule,
		fx.Annotate(func(g *auth.Guard) gin.HandlerFunc { return g.Middleware() }, fx.ResultTags(`group:"apiGuard"`)),
		idempotency.New,
		fx.Annotate((*idempotency.Middleware).Handler, fx.ResultTags(`group:"apiAfterGuard"`)),
		db.AsMigrations(idempotency.Migrations),
		func(c config.Config) httpx.ServerConfig {
			return httpx.ServerConfig{Addr: c.HTTPAddr, ShutdownTimeout: c.ShutdownTimeout}
		},
		func(c config.Config) httpx.TrustedProxies { return c.TrustedProxies },
		func(c config.Config) httpx.CORSOrigins { return c.CORSOrigins },
		func(c config.Config) apidoc.Facts { return apidoc.Facts{RateLimit: c.RateLimit} },
		httpx.AsRoutes(newHealth),
		// The OpenAPI document, assembled once at start from the modules' parts and served as is.
		apidoc.New,
		httpx.AsRoutes(func(d *apidoc.Document) *apidoc.Document { return d }),
		httpx.AsRoutes(apiref.New),
		httpx.NewEngine,
		newServer,
	),
	observability.Module,
	fx.Invoke(logConfigWarnings),
)

// WithLogger routes fx's own events to zap at debug level, errors included, so a CLI's output
// stays clean: whoever runs the graph reports its error once, in one line (cmd/folio prints the
// root cause; a dependency-graph dump helps only whoever debugs folio, at FOLIO_LOG_LEVEL=debug).
var WithLogger = fx.WithLogger(func(l *zap.Logger) fxevent.Logger {
	z := &fxevent.ZapLogger{Logger: l.Named("fx")}
	z.UseLogLevel(zapcore.DebugLevel)
	z.UseErrorLevel(zapcore.DebugLevel)
	return z
})

// LogOutput is where every log line goes: stderr. Tests replace it (fx.Replace) to read what a
// real server logs.
type LogOutput struct{ zapcore.WriteSyncer }

func newLogOutput() LogOutput { return LogOutput{zapcore.Lock(os.Stderr)} }

// newLogger builds the logger: JSON (zap's production encoding) or console lines, at
// FOLIO_LOG_LEVEL, with the caller and without stack traces. It never samples: zap's production
// preset keeps only the first 100 lines of one message per second and every 100th after that,
// which dropped most access and error lines under load (CONTRACT.md section 1 promises every
// failure logged with its request id).
func newLogger(c config.Config, out LogOutput) (*zap.Logger, error) {
	level, err := zapcore.ParseLevel(c.LogLevel)
	if err != nil {
		return nil, fmt.Errorf("FOLIO_LOG_LEVEL: %w", err)
	}
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	if c.LogFormat == "console" {
		enc = zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig())
	}
	core := zapcore.NewCore(enc, out, level)
	return zap.New(core, zap.AddCaller(), zap.ErrorOutput(out)), nil
}

func newDatabase(lc fx.Lifecycle, c config.Config, log *zap.Logger) (*gorm.DB, error) {
	gdb, err := db.OpenWaiting(db.Options{URL: c.DatabaseURL, SQLitePath: c.SQLitePath, MaxOpenConns: c.DBMaxOpenConns, MaxIdleConns: c.DBMaxIdleConns, SlowQuery: c.DBSlowQuery}, log, c.DBConnectTimeout)
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(func() error {
		sqlDB, err := gdb.DB()
		if err != nil {
			return err
		}
		return sqlDB.Close()
	}))
	return gdb, nil
}

// Migrated is a marker: whatever depends on it starts after the migrations have run.
type Migrated struct{}

type migratedParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	DB        *gorm.DB
	Sets      []db.Migrations `group:"migrations"`
	Logger    *zap.Logger
}

func newMigrated(p migratedParams) Migrated {
	p.Lifecycle.Append(fx.StartHook(func(ctx context.Context) error {
		if err := db.Migrate(p.DB.WithContext(ctx), p.Sets); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		p.Logger.Debug("migrations applied")
		return nil
	}))
	return Migrated{}
}

// Limiters are the two rate limiters of the API guard.
type Limiters struct {
	User    ratelimit.Limiter
	Failure ratelimit.Limiter
	// The in-process limiters: User and Failure themselves, or their fallbacks behind Redis
	// (which also record what Redis accepts). Their sizes are in the metrics.
	userLocal, failureLocal *ratelimit.Memory
}

// newLimiters builds in-memory limiters, or Redis-backed ones with an in-memory fallback when
// FOLIO_REDIS_URL is set (see package ratelimit for what happens while Redis is unreachable).
func newLimiters(lc fx.Lifecycle, c config.Config, clk clock.Clock, log *zap.Logger) (Limiters, error) {
	const window = auth.RateLimitWindow
	userLocal := ratelimit.NewMemory(c.RateLimit, window, clk)
	failLocal := ratelimit.NewMemory(c.AuthFailureLimit, window, clk)
	if c.RedisURL == "" {
		return Limiters{User: userLocal, Failure: failLocal, userLocal: userLocal, failureLocal: failLocal}, nil
	}
	opts, err := redis.ParseURL(c.RedisURL)
	if err != nil {
		return Limiters{}, fmt.Errorf("FOLIO_REDIS_URL: %w", err)
	}
	opts.ContextTimeoutEnabled = true
	client := redis.NewClient(opts)
	lc.Append(fx.StopHook(client.Close))
	named := log.Named("ratelimit")
	// go-redis logs through a process-wide logger, to stderr in plain text by default.
	redis.SetLogger(ratelimit.NewRedisLogger(named, ratelimit.DefaultWarnInterval))
	user := ratelimit.NewFallback(ratelimit.NewRedis(client, "folio:rl:user:", c.RateLimit, window), userLocal, named, ratelimit.WithTimeout(c.RedisTimeout))
	fail := ratelimit.NewFallback(ratelimit.NewRedis(client, "folio:rl:authfail:", c.AuthFailureLimit, window), failLocal, named, ratelimit.WithTimeout(c.RedisTimeout))
	lc.Append(fx.StopHook(func() { user.Close(); fail.Close() }))
	return Limiters{User: user, Failure: fail, userLocal: userLocal, failureLocal: failLocal}, nil
}

// newSizes hands the metrics what they report the sizes of: every in-process cache and limiter.
func newSizes(cache *auth.Cache, l Limiters) observability.Sizes {
	return observability.Sizes{
		AuthCache:      cache.Size,
		UserLimiter:    l.userLocal.Size,
		FailureLimiter: l.failureLocal.Size,
	}
}

type guardParams struct {
	fx.In
	Credentials  auth.Credentials
	Restrictions auth.RestrictionChecker
	Hasher       auth.Hasher
	Cache        *auth.Cache
	Limiters     Limiters
	Clock        clock.Clock
	Logger       *zap.Logger
	Observer     auth.Observer `optional:"true"` // the metrics, when on
}

func newGuard(p guardParams) *auth.Guard {
	return &auth.Guard{
		Credentials: p.Credentials, Restrictions: p.Restrictions, Hasher: p.Hasher, Cache: p.Cache,
		UserLimit: p.Limiters.User, FailureLimit: p.Limiters.Failure, Clock: p.Clock, Log: p.Logger.Named("auth"),
		Observer: p.Observer,
	}
}

func newHealth(gdb *gorm.DB) (httpx.Health, error) {
	sqlDB, err := gdb.DB()
	return httpx.Health{DB: sqlDB}, err
}

// newServer builds the HTTP server after the migrations (its start hook then runs after theirs).
func newServer(p httpx.ServerParams, _ Migrated) (*httpx.Server, error) { return httpx.NewServer(p) }
