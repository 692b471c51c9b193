package platform

import (
	"math"
	"runtime/debug"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"folio/platform/buildinfo"
	"folio/platform/config"
	"folio/platform/httpx"
)

// logConfigWarnings logs what reading the configuration noticed without failing (a FOLIO_*
// variable folio does not know, with the closest one it does), once the logger exists.
func logConfigWarnings(c config.Config, log *zap.Logger) {
	for _, w := range c.Warnings {
		log.Named("config").Warn(w)
	}
}

// LogStart logs the server's one start line once it listens: which folio (version, commit), on
// which database, with or without Redis, at which address. It takes the server so that its start
// hook is appended, and so runs, after the server's.
func LogStart(lc fx.Lifecycle, c config.Config, s *httpx.Server, log *zap.Logger) {
	info := buildinfo.Read()
	database := "sqlite"
	if c.Postgres() {
		database = "postgres"
	}
	lc.Append(fx.StartHook(func() {
		fields := []zap.Field{zap.String("version", info.Version), zap.String("commit", info.Revision),
			zap.String("database", database), zap.Bool("redis", c.RedisURL != ""), zap.String("addr", s.Addr())}
		// The Go runtime's soft memory limit, when one is in force (FOLIO_MEMORY_LIMIT_MB, which
		// folio serve applies, or GOMEMLIMIT).
		if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
			fields = append(fields, zap.Int64("memoryLimitMiB", limit>>20))
		}
		log.Info("folio started", fields...)
	}))
}

// LogStop logs the server's one stop line after every other stop hook has run (in-flight requests
// drained, background work stopped, the database closed). Stop hooks run in the reverse order of
// their appending, so app.Serve invokes it before anything else appends a hook.
func LogStop(lc fx.Lifecycle, log *zap.Logger) {
	lc.Append(fx.StopHook(func() { log.Info("folio stopped") }))
}
