package ratelimit_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"folio/platform/clock"
	"folio/platform/ratelimit"
	"folio/tests/testenv"
)

const fallbackTimeout = 200 * time.Millisecond

// slack absorbs scheduling delays under -race on a busy machine; a hang would be seconds.
const slack = 300 * time.Millisecond

// TestRedisBehindFallback runs the suite through Fallback over a healthy Redis: what the
// callers see must not change.
func TestRedisBehindFallback(t *testing.T) {
	c := redisClient(t)
	runSuite(t, func(t *testing.T, limit int, window time.Duration) (ratelimit.Limiter, *clock.Fake) {
		r, clk := fakeClockRedis(t, c, limit, window)
		f := ratelimit.NewFallback(r, ratelimit.NewMemory(limit, window, clk), nil,
			ratelimit.WithTimeout(5*time.Second)) // generous: -race on a loaded machine
		return f, clk
	})
}

func TestFallbackWhenRedisIsUnreachable(t *testing.T) {
	// Nothing listens on port 1: every call fails (after go-redis's own retries).
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	clk := clock.NewFake(suiteStart)
	logs, logger := observedLogger()
	f := ratelimit.NewFallback(
		ratelimit.NewRedis(c, "folio-test:", 3, time.Minute),
		ratelimit.NewMemory(3, time.Minute, clk),
		logger, ratelimit.WithTimeout(fallbackTimeout))

	for i := range 3 {
		d := timedAllow(t, f, "u", fallbackTimeout+slack)
		expect(t, d, true, 3, 2-i, suiteStart.Add(time.Minute))
	}
	expect(t, timedAllow(t, f, "u", fallbackTimeout+slack), false, 3, 0, suiteStart.Add(time.Minute))
	if !f.Degraded() {
		t.Error("Degraded() = false while Redis is unreachable")
	}
	warnings := logs.FilterMessageSnippet("unavailable").All()
	if len(warnings) != 1 || warnings[0].Level != zap.WarnLevel {
		t.Fatalf("logged %v, want one warning (the others are throttled)", logs.All())
	}
}

func TestFallbackWhenRedisHangs(t *testing.T) {
	// A server that accepts connections and never answers. The client keeps its default
	// options: it ignores context deadlines and would wait its own ReadTimeout (seconds).
	addr := testenv.SilentRedis(t)
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	f := ratelimit.NewFallback(
		ratelimit.NewRedis(c, "folio-test:", 2, time.Minute),
		ratelimit.NewMemory(2, time.Minute, clock.NewFake(suiteStart)),
		nil, ratelimit.WithTimeout(fallbackTimeout))

	mustAllowWithin(t, f, true, fallbackTimeout+slack)
	mustAllowWithin(t, f, true, fallbackTimeout+slack)
	mustAllowWithin(t, f, false, fallbackTimeout+slack)

	// Once Redis is known to hang, no call waits on it: the background probe does.
	var (
		wg   sync.WaitGroup
		fast atomic.Int64
	)
	for range 20 {
		wg.Go(func() {
			start := time.Now()
			if d, err := f.Allow(context.Background(), "u"); err != nil || d.Allowed {
				t.Errorf("Allow = %+v, %v; want rejected by the local limiter", d, err)
			}
			if time.Since(start) < fallbackTimeout/2 {
				fast.Add(1)
			}
		})
	}
	wg.Wait()
	if n := fast.Load(); n != 20 {
		t.Fatalf("%d of 20 concurrent calls returned without waiting on Redis, want all", n)
	}
}

func TestFallbackReturnsToPrimary(t *testing.T) {
	clk := clock.NewFake(suiteStart)
	primary := &switchable{Limiter: ratelimit.NewMemory(3, time.Minute, clk)}
	local := ratelimit.NewMemory(3, time.Minute, clk)
	logs, logger := observedLogger()
	f := ratelimit.NewFallback(primary, local, logger, ratelimit.WithTimeout(fallbackTimeout),
		ratelimit.WithProbeInterval(0))
	defer f.Close()

	// Healthy: the primary decides, and what it accepts is mirrored locally.
	mustAllow(t, f, "u", true)
	mustAllow(t, f, "u", true)
	if got := primary.calls.Load(); got != 2 {
		t.Fatalf("primary called %d times, want 2", got)
	}

	// Down: the local limiter takes over with this instance's history, not from zero.
	primary.fail.Store(true)
	expect(t, allow(t, f, "u"), true, 3, 0, suiteStart.Add(time.Minute))
	mustAllow(t, f, "u", false)
	expect(t, peek(t, f, "u"), false, 3, 0, suiteStart.Add(time.Minute))
	if !f.Degraded() {
		t.Fatal("Degraded() = false after primary errors")
	}

	// Back: the background probe finds out without any request (an idle instance must not
	// decide its first requests after an outage locally, from a history that misses what the
	// other instances accepted meanwhile), and the primary decides again (it has counted only
	// the two requests it saw). The probe's Peeks counted nothing.
	primary.fail.Store(false)
	deadline := time.Now().Add(5 * time.Second)
	for f.Degraded() {
		if time.Now().After(deadline) {
			t.Fatal("Degraded() = true 5s after the primary came back, with no request meanwhile")
		}
		time.Sleep(5 * time.Millisecond)
	}
	before := primary.calls.Load()
	expect(t, allow(t, f, "u"), true, 3, 0, suiteStart.Add(time.Minute))
	if primary.calls.Load() == before {
		t.Fatal("the first request after the primary came back was not decided by it")
	}
	if len(logs.FilterMessageSnippet("answering again").All()) != 1 {
		t.Fatalf("logged %v, want one recovery message", logs.All())
	}
}

// TestFallbackIdleInstanceReturnsToPrimary: an instance that gets no request during and after an
// outage still finds the primary back on its own (the background probe does not wait for
// requests), so its first request afterwards is decided by the shared primary, not locally. Before,
// it was decided locally and only started a probe: across two instances a new user could get a
// few requests over the limit right after Redis came back.
func TestFallbackIdleInstanceReturnsToPrimary(t *testing.T) {
	clk := clock.NewFake(suiteStart)
	primary := &switchable{Limiter: ratelimit.NewMemory(3, time.Minute, clk)}
	f := ratelimit.NewFallback(primary, ratelimit.NewMemory(3, time.Minute, clk), nil,
		ratelimit.WithTimeout(fallbackTimeout), ratelimit.WithProbeInterval(time.Millisecond))
	defer f.Close()

	primary.fail.Store(true)
	expect(t, allow(t, f, "u"), true, 3, 2, suiteStart.Add(time.Minute)) // decided locally
	waitFor(t, "the primary is probed while down, with no request", func() bool { return primary.calls.Load() >= 4 })
	primary.fail.Store(false)
	waitFor(t, "Degraded() is false after the primary came back, with no request", func() bool { return !f.Degraded() })
	// The primary decides: it never saw the request made during the outage (the local limiter,
	// which did, would say 1 remaining).
	expect(t, allow(t, f, "u"), true, 3, 2, suiteStart.Add(time.Minute))
}

// waitFor polls cond until it holds, failing the test after 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 5s: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestFallbackDoesNotDecideForCanceledCaller(t *testing.T) {
	clk := clock.NewFake(suiteStart)
	primary := &switchable{Limiter: ratelimit.NewMemory(3, time.Minute, clk), delay: time.Second}
	f := ratelimit.NewFallback(primary, ratelimit.NewMemory(3, time.Minute, clk), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := f.Allow(ctx, "u"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Allow with an expired caller context: err = %v, want DeadlineExceeded", err)
	}
	if f.Degraded() {
		t.Fatal("a caller's canceled context marked the primary as down")
	}
}

// switchable wraps a limiter and can be made to fail or to be slow.
type switchable struct {
	ratelimit.Limiter
	fail  atomic.Bool
	delay time.Duration
	calls atomic.Int64
}

var errDown = errors.New("primary down")

func (s *switchable) Allow(ctx context.Context, key string) (ratelimit.Decision, error) {
	if err := s.enter(ctx); err != nil {
		return ratelimit.Decision{}, err
	}
	return s.Limiter.Allow(ctx, key)
}

func (s *switchable) Peek(ctx context.Context, key string) (ratelimit.Decision, error) {
	if err := s.enter(ctx); err != nil {
		return ratelimit.Decision{}, err
	}
	return s.Limiter.Peek(ctx, key)
}

func (s *switchable) enter(ctx context.Context) error {
	s.calls.Add(1)
	if s.fail.Load() {
		return errDown
	}
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func observedLogger() (*observer.ObservedLogs, *zap.Logger) {
	core, logs := observer.New(zap.InfoLevel)
	return logs, zap.New(core)
}

func timedAllow(t *testing.T, l ratelimit.Limiter, key string, within time.Duration) ratelimit.Decision {
	t.Helper()
	start := time.Now()
	d := allow(t, l, key)
	if took := time.Since(start); took > within {
		t.Fatalf("Allow took %v, want at most %v", took, within)
	}
	return d
}

func mustAllowWithin(t *testing.T, l ratelimit.Limiter, allowed bool, within time.Duration) {
	t.Helper()
	if d := timedAllow(t, l, "u", within); d.Allowed != allowed {
		t.Fatalf("Allow = %+v, want Allowed=%v", d, allowed)
	}
}
