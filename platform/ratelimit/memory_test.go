package ratelimit_test

import (
	"fmt"
	"testing"
	"time"

	"folio/platform/clock"
	"folio/platform/ratelimit"
)

func newMemory(t *testing.T, limit int, window time.Duration) (ratelimit.Limiter, *clock.Fake) {
	clk := clock.NewFake(suiteStart)
	return ratelimit.NewMemory(limit, window, clk), clk
}

func TestMemory(t *testing.T) {
	runSuite(t, newMemory)
}

func TestMemoryEvictsIdleKeys(t *testing.T) {
	clk := clock.NewFake(suiteStart)
	m := ratelimit.NewMemory(1, 10*time.Second, clk)
	for i := range 1000 {
		mustAllow(t, m, fmt.Sprintf("old-%d", i), true)
	}
	if keys, timestamps := m.Size(); keys != 1000 || timestamps != 1000 {
		t.Fatalf("%d keys held with room for %d timestamps, want 1000 and 1000 (a log grows to the limit, 1, at most)", keys, timestamps)
	}
	for i := range 1000 {
		mustPeek(t, m, fmt.Sprintf("never-counted-%d", i))
	}
	if n, _ := m.Size(); n != 1000 {
		t.Fatalf("Peek on unknown keys: %d keys held, want still 1000", n)
	}

	clk.Advance(15 * time.Second)
	mustAllow(t, m, "live", true) // still in the window at the next sweep
	clk.Advance(5 * time.Second)
	// 5000 new keys touch every shard, so every shard sweeps once.
	for i := range 5000 {
		mustAllow(t, m, fmt.Sprintf("new-%d", i), true)
	}
	if n, _ := m.Size(); n != 5001 {
		t.Fatalf("%d keys held, want 5001 (the 1000 idle ones evicted)", n)
	}
	mustAllow(t, m, "live", false) // its request was kept, not evicted with the idle ones
}

func TestMemoryClockSteppingBack(t *testing.T) {
	clk := clock.NewFake(suiteStart)
	m := ratelimit.NewMemory(2, 10*time.Second, clk)
	mustAllow(t, m, "u", true)
	clk.Set(suiteStart.Add(-5 * time.Second))
	mustAllow(t, m, "u", true)
	mustAllow(t, m, "u", false)
	// Both requests count from suiteStart at the latest, so both leave 10s after it.
	clk.Set(suiteStart.Add(10*time.Second - time.Millisecond))
	mustAllow(t, m, "u", false)
	clk.Set(suiteStart.Add(10 * time.Second))
	expect(t, allow(t, m, "u"), true, 2, 1, suiteStart.Add(20*time.Second))
}

func TestMemoryRejectsInvalidConfiguration(t *testing.T) {
	for _, tc := range []struct {
		limit  int
		window time.Duration
	}{{0, time.Minute}, {-1, time.Minute}, {1, 0}, {1, -time.Second}} {
		t.Run(fmt.Sprintf("%d per %v", tc.limit, tc.window), func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("NewMemory did not panic")
				}
			}()
			ratelimit.NewMemory(tc.limit, tc.window, nil)
		})
	}
}

func mustPeek(t *testing.T, l ratelimit.Limiter, key string) {
	t.Helper()
	if d := peek(t, l, key); !d.Allowed {
		t.Fatalf("Peek(%q) = %+v, want allowed", key, d)
	}
}
