package auth

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"folio/platform/ratelimit"
)

// TestSetRateLimitHeaders keeps setRateLimitHeaders equal to setting the five headers one by one
// with Header.Set (what the guard did before): the same keys, as net/http sends them, and values.
func TestSetRateLimitHeaders(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, d := range []ratelimit.Decision{
		{Allowed: true, Limit: 600, Remaining: 599, Reset: now.Add(RateLimitWindow)},
		{Allowed: true, Limit: 600, Remaining: 600, Reset: now.Add(RateLimitWindow)},
		{Allowed: false, Limit: 1 << 30, Remaining: 0, Reset: now.Add(1500 * time.Millisecond)},
		{Allowed: true, Limit: 7, Remaining: 3, Reset: now.Add(-time.Second)},
	} {
		want := http.Header{}
		want.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
		want.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
		want.Set("X-RateLimit-Reset", strconv.FormatInt(d.Reset.Unix(), 10))
		policy, state := RateLimitHeaders(d, RateLimitWindow, now)
		want.Set("RateLimit-Policy", policy)
		want.Set("RateLimit", state)
		got := http.Header{"Ratelimit": {"stale"}}
		setRateLimitHeaders(got, d, RateLimitWindow, now)
		if len(got) != len(want) {
			t.Fatalf("%+v: got %v, want %v", d, got, want)
		}
		for k, v := range want {
			if len(got[k]) != 1 || got[k][0] != v[0] {
				t.Fatalf("%+v: %s is %q, want %q", d, k, got[k], v)
			}
		}
	}
	if policy, state := RateLimitHeaders(ratelimit.Decision{Limit: 600, Remaining: 598, Reset: now.Add(2500 * time.Millisecond)}, RateLimitWindow, now); policy != `"default";q=600;w=60` || state != `"default";r=598;t=3` {
		t.Fatalf("RateLimitHeaders: %q, %q", policy, state)
	}
}
