package ratelimit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"folio/platform/ratelimit"
)

// TestRedisLogger: go-redis's own lines about an unreachable server (by default plain text on
// stderr, one per failed dial) reach zap as warnings, throttled: one per interval, with the count
// of the lines in between.
func TestRedisLogger(t *testing.T) {
	logs, logger := observedLogger()
	redis.SetLogger(ratelimit.NewRedisLogger(logger, time.Hour))
	t.Cleanup(func() { redis.SetLogger(ratelimit.NewRedisLogger(nil, 0)) })

	// Nothing listens on port 1; one dial attempt per call, and a pool larger than the calls, so
	// that every call dials (and logs) rather than repeating the pool's last dial error.
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialerRetries: 1, PoolSize: 50, MaxRetries: -1})
	defer c.Close()
	const calls = 5
	for range calls {
		if err := c.Ping(context.Background()).Err(); err == nil {
			t.Fatal("ping to port 1 succeeded")
		}
	}
	got := logs.FilterMessage("redis client").All()
	if len(got) != 1 || got[0].Level != zap.WarnLevel {
		t.Fatalf("logged %v, want one warning (the other lines throttled)", logs.All())
	}
	if d, _ := got[0].ContextMap()["detail"].(string); !strings.Contains(d, "failed to dial") || strings.HasPrefix(d, "redis: ") {
		t.Fatalf("detail %q, want go-redis's line without its prefix", d)
	}

}
