package ratelimit

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Defaults for NewFallback.
const (
	DefaultTimeout       = 200 * time.Millisecond
	DefaultWarnInterval  = 30 * time.Second
	DefaultProbeInterval = time.Second
)

// Fallback asks a shared primary limiter (Redis) and, when that fails or is slow, a local
// one, so that a request is never refused or held up because Redis is unreachable. See the
// package documentation for why. It is safe for concurrent use.
type Fallback struct {
	primary Limiter
	local   Limiter
	log     *zap.Logger
	timeout time.Duration

	degraded   atomic.Bool // the last primary call failed
	probing    atomic.Bool // the background probe loop is running
	probeEvery time.Duration
	closed     chan struct{}
	closeOnce  sync.Once

	warnDown throttle
	warnUp   throttle
}

// FallbackOption configures NewFallback.
type FallbackOption func(*Fallback)

// WithTimeout bounds every call to the primary (default DefaultTimeout). The bound holds
// even if the primary ignores its context: the call is then abandoned, not awaited.
func WithTimeout(d time.Duration) FallbackOption {
	return func(f *Fallback) {
		if d > 0 {
			f.timeout = d
		}
	}
}

// WithWarnInterval sets how often, at most, the fallback logs that the primary is failing
// (default DefaultWarnInterval); the warnings in between are counted, not written.
func WithWarnInterval(d time.Duration) FallbackOption {
	return func(f *Fallback) {
		f.warnDown.every = d
		f.warnUp.every = d
	}
}

// WithProbeInterval sets how often a degraded fallback asks the primary in the background
// whether it answers again (default DefaultProbeInterval; at least a millisecond).
func WithProbeInterval(d time.Duration) FallbackOption {
	return func(f *Fallback) {
		if d >= 0 {
			f.probeEvery = d
		}
	}
}

// NewFallback returns a limiter that decides with primary and, whenever primary returns an
// error or does not answer within the timeout, with local. local must not fail (a Memory
// with the same limit and window). A nil logger logs nothing.
func NewFallback(primary, local Limiter, logger *zap.Logger, opts ...FallbackOption) *Fallback {
	if logger == nil {
		logger = zap.NewNop()
	}
	f := &Fallback{
		primary:    primary,
		local:      local,
		log:        logger,
		timeout:    DefaultTimeout,
		probeEvery: DefaultProbeInterval,
		warnDown:   throttle{every: DefaultWarnInterval},
		warnUp:     throttle{every: DefaultWarnInterval},
		closed:     make(chan struct{}),
	}
	for _, o := range opts {
		o(f)
	}
	return f
}

// Allow counts one request for key with the primary, or with the local limiter when the
// primary is unavailable. A request the primary accepts is also recorded locally, so that
// the local limiter takes over with this instance's recent history rather than from zero.
func (f *Fallback) Allow(ctx context.Context, key string) (Decision, error) {
	return f.check(ctx, key, true)
}

// Peek reports what Allow would decide for key, from the primary or, when it is
// unavailable, from the local limiter.
func (f *Fallback) Peek(ctx context.Context, key string) (Decision, error) {
	return f.check(ctx, key, false)
}

// Close stops the background probe (if one runs). The fallback still answers afterwards, from
// the primary or, if it was degraded, locally.
func (f *Fallback) Close() {
	f.closeOnce.Do(func() { close(f.closed) })
}

// Degraded reports whether the last call to the primary failed, so that decisions are
// currently made per instance. Useful for health reporting.
func (f *Fallback) Degraded() bool { return f.degraded.Load() }

func (f *Fallback) check(ctx context.Context, key string, record bool) (Decision, error) {
	op := Limiter.Peek
	if record {
		op = Limiter.Allow
	}
	// While degraded, no request waits on the primary: the local limiter decides at once, and
	// a background probe finds out when the primary answers again. A dead or hanging Redis thus
	// costs one timeout, for the request that found it down, not one per request for as long as
	// it is down.
	if f.degraded.Load() {
		return op(f.local, ctx, key)
	}
	d, err := f.callPrimary(ctx, key, op)
	if err == nil {
		f.up()
		if record && d.Allowed {
			_, _ = f.local.Allow(ctx, key)
		}
		return d, nil
	}
	if ctx.Err() != nil {
		// The caller gave up: nothing to decide, and no sign that the primary is down.
		return Decision{}, ctx.Err()
	}
	f.down(err)
	return op(f.local, ctx, key)
}

// probeKey is the key the background probe peeks at (Peek counts and writes nothing).
const probeKey = "probe"

// startProbing starts, unless it runs already, the loop that asks the primary once per probe
// interval whether it answers again, until it does. The loop does not wait for requests: an
// instance that gets none during an outage still finds the primary back within a probe interval
// of its recovery, so its first requests afterwards are shared again instead of decided locally
// from a history that misses what the other instances accepted meanwhile.
func (f *Fallback) startProbing() {
	if !f.probing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		every := max(f.probeEvery, time.Millisecond)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-f.closed:
				f.probing.Store(false)
				return
			case <-t.C:
			}
			if _, err := f.callPrimary(context.Background(), probeKey, Limiter.Peek); err != nil {
				f.warnFailure(err)
				continue
			}
			f.up()
			f.probing.Store(false)
			// A request may have found the primary down again between up and here, while this
			// loop still counted as running: then no other loop was started, so go on.
			if f.degraded.Load() {
				f.startProbing()
			}
			return
		}
	}()
}

// callPrimary runs op on the primary with the timeout. The call runs in its own goroutine
// because a client may not honour context deadlines (go-redis only does with
// ContextTimeoutEnabled); an abandoned call finishes in the background and is discarded.
func (f *Fallback) callPrimary(ctx context.Context, key string, op func(Limiter, context.Context, string) (Decision, error)) (Decision, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	type result struct {
		d   Decision
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := op(f.primary, ctx, key)
		done <- result{d, err}
	}()
	select {
	case r := <-done:
		return r.d, r.err
	case <-ctx.Done():
		return Decision{}, ctx.Err()
	}
}

func (f *Fallback) down(err error) {
	f.degraded.Store(true)
	f.warnFailure(err)
	f.startProbing()
}

func (f *Fallback) warnFailure(err error) {
	if n, ok := f.warnDown.allow(); ok {
		f.log.Warn("rate limit: shared limiter unavailable, limiting per instance",
			zap.Error(err), zap.Int("failuresSinceLastWarning", n))
	}
}

func (f *Fallback) up() {
	if f.degraded.CompareAndSwap(true, false) {
		if _, ok := f.warnUp.allow(); ok {
			f.log.Info("rate limit: shared limiter answering again")
		}
	}
}

// throttle lets an event through at most once per interval and counts the others.
type throttle struct {
	mu    sync.Mutex
	every time.Duration
	last  time.Time
	n     int
}

// allow reports whether to log now and how many events (this one included) occurred
// since the last time it said yes.
func (t *throttle) allow() (int, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n++
	now := time.Now()
	if !t.last.IsZero() && now.Sub(t.last) < t.every {
		return 0, false
	}
	n := t.n
	t.last, t.n = now, 0
	return n, true
}
