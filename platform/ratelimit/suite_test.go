package ratelimit_test

import (
	"context"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"

	"folio/platform/clock"
	"folio/platform/ratelimit"
)

// suiteStart is where every suite clock starts: on a minute boundary, so that the suite
// can place requests at the end of one calendar minute and the start of the next.
var suiteStart = time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)

// newLimiterFunc builds a fresh limiter, with no state shared with any other, whose notion
// of "now" is the returned fake clock, set to suiteStart.
type newLimiterFunc func(t *testing.T, limit int, window time.Duration) (ratelimit.Limiter, *clock.Fake)

// runSuite is the behaviour every Limiter must have. Each implementation's test runs it.
func runSuite(t *testing.T, newLimiter newLimiterFunc) {
	t.Run("limit reached exactly", func(t *testing.T) {
		l, clk := newLimiter(t, 5, time.Minute)
		reset := clk.Now().Add(time.Minute)
		for i := range 5 {
			expect(t, allow(t, l, "u"), true, 5, 4-i, reset)
		}
		expect(t, allow(t, l, "u"), false, 5, 0, reset)
		expect(t, allow(t, l, "u"), false, 5, 0, reset)
	})

	t.Run("limit of one", func(t *testing.T) {
		l, clk := newLimiter(t, 1, 10*time.Second)
		expect(t, allow(t, l, "u"), true, 1, 0, clk.Now().Add(10*time.Second))
		expect(t, allow(t, l, "u"), false, 1, 0, clk.Now().Add(10*time.Second))
		clk.Advance(10 * time.Second)
		expect(t, allow(t, l, "u"), true, 1, 0, clk.Now().Add(10*time.Second))
	})

	t.Run("rejected requests are not counted", func(t *testing.T) {
		l, clk := newLimiter(t, 3, 10*time.Second)
		for range 3 {
			mustAllow(t, l, "u", true)
		}
		clk.Advance(5 * time.Second)
		for range 10 {
			mustAllow(t, l, "u", false)
		}
		// The three accepted requests leave the window now. Had the ten rejected ones
		// been counted, they would still fill it for five more seconds.
		clk.Advance(5 * time.Second)
		for i := range 3 {
			expect(t, allow(t, l, "u"), true, 3, 2-i, clk.Now().Add(10*time.Second))
		}
		mustAllow(t, l, "u", false)
	})

	t.Run("window rolls, it is not a fixed minute", func(t *testing.T) {
		l, clk := newLimiter(t, 100, time.Minute)
		clk.Advance(59 * time.Second) // 12:00:59, the end of a calendar minute
		burst := clk.Now()
		for range 100 {
			mustAllow(t, l, "u", true)
		}
		clk.Advance(2 * time.Second) // 12:01:01, the start of the next one
		d := allow(t, l, "u")
		expect(t, d, false, 100, 0, burst.Add(time.Minute))
		clk.Set(burst.Add(time.Minute - time.Millisecond))
		mustAllow(t, l, "u", false)
		clk.Set(burst.Add(time.Minute)) // the burst has left the window
		expect(t, allow(t, l, "u"), true, 100, 99, clk.Now().Add(time.Minute))
	})

	t.Run("matches an exact rolling-window model over a random schedule", func(t *testing.T) {
		const limit, window = 100, time.Minute
		l, clk := newLimiter(t, limit, window)
		rng := rand.New(rand.NewPCG(1, 2))
		var accepted []time.Time // the model: every accepted request, in order
		rejected := 0
		for step := range 2500 {
			clk.Advance(time.Duration(rng.IntN(1200)) * time.Millisecond)
			now := clk.Now()
			for range 1 + rng.IntN(4) {
				first := sort.Search(len(accepted), func(i int) bool {
					return accepted[i].After(now.Add(-window))
				})
				inWindow := accepted[first:]
				want := ratelimit.Decision{Allowed: len(inWindow) < limit, Limit: limit}
				if want.Allowed {
					want.Remaining = limit - len(inWindow) - 1
				}
				switch {
				case len(inWindow) > 0:
					want.Reset = inWindow[0].Add(window)
				case want.Allowed:
					want.Reset = now.Add(window)
				}
				if p := peek(t, l, "u"); !sameDecision(p, want) {
					t.Fatalf("step %d: Peek = %+v, model says %+v", step, p, want)
				}
				if d := allow(t, l, "u"); !sameDecision(d, want) {
					t.Fatalf("step %d: Allow = %+v, model says %+v", step, d, want)
				}
				if want.Allowed {
					accepted = append(accepted, now)
				} else {
					rejected++
				}
			}
		}
		// The schedule must exercise both outcomes, or the comparison proves little.
		if len(accepted) < 10*limit || rejected < 10*limit {
			t.Fatalf("weak schedule: %d accepted, %d rejected", len(accepted), rejected)
		}
		// And, independently of the model: no window-long interval holds more than limit.
		for i := range accepted {
			j := sort.Search(len(accepted), func(j int) bool {
				return !accepted[j].Before(accepted[i].Add(window))
			})
			if j-i > limit {
				t.Fatalf("%d requests accepted in [%v, +%v)", j-i, accepted[i], window)
			}
		}
	})

	t.Run("remaining and reset", func(t *testing.T) {
		l, clk := newLimiter(t, 3, 10*time.Second)
		t0 := clk.Now()
		expect(t, peek(t, l, "u"), true, 3, 2, t0.Add(10*time.Second))
		expect(t, allow(t, l, "u"), true, 3, 2, t0.Add(10*time.Second))
		clk.Advance(2 * time.Second)
		expect(t, allow(t, l, "u"), true, 3, 1, t0.Add(10*time.Second))
		clk.Advance(2 * time.Second)
		expect(t, allow(t, l, "u"), true, 3, 0, t0.Add(10*time.Second))
		clk.Advance(time.Second)
		expect(t, allow(t, l, "u"), false, 3, 0, t0.Add(10*time.Second))
		// At t0+10s the first request leaves; the next slot frees when the second does.
		clk.Set(t0.Add(10 * time.Second))
		expect(t, allow(t, l, "u"), true, 3, 0, t0.Add(12*time.Second))
		expect(t, allow(t, l, "u"), false, 3, 0, t0.Add(12*time.Second))
	})

	t.Run("keys are independent", func(t *testing.T) {
		l, clk := newLimiter(t, 2, time.Minute)
		mustAllow(t, l, "a", true)
		mustAllow(t, l, "a", true)
		mustAllow(t, l, "a", false)
		expect(t, allow(t, l, "b"), true, 2, 1, clk.Now().Add(time.Minute))
		expect(t, allow(t, l, "b"), true, 2, 0, clk.Now().Add(time.Minute))
		mustAllow(t, l, "b", false)
		mustAllow(t, l, "a", false)
		expect(t, peek(t, l, "c"), true, 2, 1, clk.Now().Add(time.Minute))
	})

	t.Run("peek counts nothing", func(t *testing.T) {
		l, clk := newLimiter(t, 3, time.Minute)
		t0 := clk.Now()
		for range 10 {
			expect(t, peek(t, l, "u"), true, 3, 2, t0.Add(time.Minute))
		}
		expect(t, allow(t, l, "u"), true, 3, 2, t0.Add(time.Minute))
		clk.Advance(time.Second)
		expect(t, peek(t, l, "u"), true, 3, 1, t0.Add(time.Minute))
		expect(t, peek(t, l, "u"), true, 3, 1, t0.Add(time.Minute))
		mustAllow(t, l, "u", true)
		expect(t, peek(t, l, "u"), true, 3, 0, t0.Add(time.Minute))
		mustAllow(t, l, "u", true)
		for range 10 {
			expect(t, peek(t, l, "u"), false, 3, 0, t0.Add(time.Minute))
		}
		mustAllow(t, l, "u", false)
		clk.Set(t0.Add(time.Minute))
		expect(t, peek(t, l, "u"), true, 3, 0, t0.Add(time.Second+time.Minute))
	})

	t.Run("concurrent requests never exceed the limit", func(t *testing.T) {
		const limit, workers, perWorker = 50, 16, 25
		l, _ := newLimiter(t, limit, time.Minute)
		var (
			mu        sync.Mutex
			remaining []int // Remaining of every accepted request on the shared key
			wg        sync.WaitGroup
		)
		ctx := context.Background()
		for w := range workers {
			own := "own-" + string(rune('a'+w))
			wg.Go(func() {
				for range perWorker {
					d, err := l.Allow(ctx, "hot")
					if err != nil {
						t.Error(err)
						return
					}
					if d.Allowed {
						mu.Lock()
						remaining = append(remaining, d.Remaining)
						mu.Unlock()
					}
					// Each worker's own key stays under the limit whatever the others do.
					if d, err := l.Allow(ctx, own); err != nil || !d.Allowed {
						t.Errorf("own key %s: %+v, %v", own, d, err)
						return
					}
				}
			})
		}
		wg.Wait()
		if len(remaining) != limit {
			t.Fatalf("%d of %d concurrent requests accepted, want exactly %d",
				len(remaining), workers*perWorker, limit)
		}
		// Every accepted request saw a different count: the checks did not interleave.
		sort.Ints(remaining)
		for i, r := range remaining {
			if r != i {
				t.Fatalf("Remaining values of accepted requests = %v, want 0..%d once each", remaining, limit-1)
			}
		}
		mustAllow(t, l, "hot", false)
	})
}

func allow(t *testing.T, l ratelimit.Limiter, key string) ratelimit.Decision {
	t.Helper()
	return decide(t, "Allow", l.Allow, key)
}

func peek(t *testing.T, l ratelimit.Limiter, key string) ratelimit.Decision {
	t.Helper()
	return decide(t, "Peek", l.Peek, key)
}

// decide asks the limiter (its method named what) about key; an error fails the test.
func decide(t *testing.T, what string, ask func(context.Context, string) (ratelimit.Decision, error), key string) ratelimit.Decision {
	t.Helper()
	d, err := ask(context.Background(), key)
	if err != nil {
		t.Fatalf("%s(%q): %v", what, key, err)
	}
	return d
}

func mustAllow(t *testing.T, l ratelimit.Limiter, key string, allowed bool) {
	t.Helper()
	if d := allow(t, l, key); d.Allowed != allowed {
		t.Fatalf("Allow(%q) = %+v, want Allowed=%v", key, d, allowed)
	}
}

func expect(t *testing.T, d ratelimit.Decision, allowed bool, limit, remaining int, reset time.Time) {
	t.Helper()
	want := ratelimit.Decision{Allowed: allowed, Limit: limit, Remaining: remaining, Reset: reset}
	if !sameDecision(d, want) {
		t.Fatalf("decision = %+v, want %+v", d, want)
	}
}

func sameDecision(a, b ratelimit.Decision) bool {
	return a.Allowed == b.Allowed && a.Limit == b.Limit && a.Remaining == b.Remaining && a.Reset.Equal(b.Reset)
}
