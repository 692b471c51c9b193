package apitest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"gorm.io/gorm"

	"folio/modules/accounts"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/config"
)

// FakeClock is the fx option that replaces the application's clock (the rate limiters, the key
// and session cache, sessions and every timestamp the services write) with fake.
func FakeClock(fake *clock.Fake) fx.Option {
	return fx.Replace(fx.Annotate(fake, fx.As(new(clock.Clock))))
}

// StartFx starts a server on a fresh database of the given kind, like Start, with extra fx options
// (for example FakeClock) added to the application graph.
func StartFx(t testing.TB, kind string, opts []Option, extra ...fx.Option) *Server {
	t.Helper()
	c := Config(t, kind)
	for _, o := range opts {
		o(&c)
	}
	s := StartWith(t, c, extra...)
	s.sqlReads()
	return s
}

var sqlReadCounters sync.Map // *Server -> *atomic.Int64

// sqlReads returns the server's counter of reading statements sent to the database, registering
// its GORM callbacks on first use (servers from StartFx register at start).
func (s *Server) sqlReads() *atomic.Int64 {
	if c, ok := sqlReadCounters.Load(s); ok {
		return c.(*atomic.Int64)
	}
	c := new(atomic.Int64)
	// GORM renders a subquery (a *gorm.DB passed as an argument) by running the query callbacks
	// on a DryRun session: nothing reaches the database, so it is not a read.
	inc := func(db *gorm.DB) {
		if !db.DryRun {
			c.Add(1)
		}
	}
	_ = s.DB.Callback().Query().After("gorm:query").Register("apitest:sql_reads_query", inc)
	_ = s.DB.Callback().Row().After("gorm:row").Register("apitest:sql_reads_row", inc)
	_ = s.DB.Callback().Raw().After("gorm:raw").Register("apitest:sql_reads_raw", inc)
	sqlReadCounters.Store(s, c)
	return c
}

// SQLReads returns how many reading statements (SELECT through Find/First/Take/Scan/Count/Row/Raw)
// fn sent to the database. Unlike Queries, a subquery embedded in a statement is not counted on
// its own: it travels in the same round trip.
func (s *Server) SQLReads(fn func()) int64 {
	c := s.sqlReads()
	before := c.Load()
	fn()
	return c.Load() - before
}

// RateLimit is an Option that sets the per-user limit (requests per rolling minute).
func RateLimit(n int) Option { return func(c *config.Config) { c.RateLimit = n } }

// AuthFailureLimit is an Option that sets the per-address limit on failed authentications.
func AuthFailureLimit(n int) Option { return func(c *config.Config) { c.AuthFailureLimit = n } }

// OpenSession signs u in to a web session (what the settings UI does after a password check).
func (s *Server) OpenSession(t testing.TB, u User) accounts.SignedIn {
	t.Helper()
	si, err := s.Accounts.OpenSession(context.Background(), accounts.User{ID: u.ID, Email: u.Email, Name: u.Name})
	if err != nil {
		t.Fatalf("open session: %v", err)
	}
	return si
}

// SessionHeader returns the request headers of a cookie-authenticated request: the folio_session
// cookie and, when csrf is not empty, the X-CSRF-Token header.
func SessionHeader(token, csrf string) map[string]string {
	h := map[string]string{"Cookie": auth.SessionCookie + "=" + token}
	if csrf != "" {
		h[auth.CSRFHeader] = csrf
	}
	return h
}

// KeyPrefix returns the 8-character prefix of a raw key (the CLI and RevokeKey take it).
func KeyPrefix(t testing.TB, raw string) string {
	t.Helper()
	prefix, _, err := auth.ParseKey(raw)
	if err != nil {
		t.Fatalf("not a key: %q", raw)
	}
	return prefix
}

// ObserveLogs returns an fx option for StartFx or StartWith that copies every log entry of the
// application, at every level whatever FOLIO_LOG_LEVEL says, to the returned observer.
func ObserveLogs() (fx.Option, *observer.ObservedLogs) {
	core, logs := observer.New(zapcore.DebugLevel)
	return fx.Decorate(func(l *zap.Logger) *zap.Logger {
		return l.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return zapcore.NewTee(c, core) }))
	}), logs
}
