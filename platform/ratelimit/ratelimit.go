package ratelimit

import (
	"context"
	"fmt"
	"time"
)

// Decision is the outcome of one check.
type Decision struct {
	Allowed bool
	Limit   int
	// Remaining is how many more requests the key may make right now, after this one.
	Remaining int
	// Reset is when the oldest counted request leaves the window, that is when one more
	// slot frees; now+window when nothing is counted.
	Reset time.Time
}

// Limiter decides whether a key may make one more request in the rolling window.
type Limiter interface {
	// Allow counts one request for key if that keeps the key within Limit in the rolling
	// window; rejected requests are NOT counted.
	Allow(ctx context.Context, key string) (Decision, error)
	// Peek reports the decision Allow would make, without counting anything.
	Peek(ctx context.Context, key string) (Decision, error)
}

// mustValid panics on a configuration no limiter can honour: it is a programming or
// configuration-validation error, not a runtime condition.
func mustValid(kind string, limit int, window time.Duration) {
	if limit < 1 {
		panic(fmt.Sprintf("ratelimit: %s limit must be at least 1, got %d", kind, limit))
	}
	if window <= 0 {
		panic(fmt.Sprintf("ratelimit: %s window must be positive, got %v", kind, window))
	}
}
