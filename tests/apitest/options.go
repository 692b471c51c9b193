package apitest

import (
	"context"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

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
	return StartWith(t, c, extra...)
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

// run starts a built application and stops it when the test ends.
func run(t testing.TB, a *fx.App) {
	t.Helper()
	if err := a.Err(); err != nil {
		t.Fatalf("build app: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := a.Start(ctx); err != nil {
		t.Fatalf("start app: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			t.Logf("stop app: %v", err)
		}
	})
}

// ForEachDBWithClock runs fn as a subtest per database, each with a fresh server whose clock is a
// fake one standing at start until the test moves it.
func ForEachDBWithClock(t *testing.T, start time.Time, fn func(t *testing.T, s *Server, fake *clock.Fake), opts ...Option) {
	EachDB(t, func(t *testing.T, kind string) {
		fake := clock.NewFake(start)
		fn(t, StartFx(t, kind, opts, FakeClock(fake)), fake)
	})
}
