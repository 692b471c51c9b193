package ratelimit_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"folio/platform/clock"
	"folio/platform/ratelimit"
	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// redisClient connects to the test Redis; the client is closed when t ends.
func redisClient(t testing.TB) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatalf("parse %s: %v", testenv.RedisURLEnv, err)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("ping test redis at %s: %v", opt.Addr, err)
	}
	return c
}

// testPrefix returns a key prefix no other test (or run) uses, and deletes its keys when
// t ends: the test Redis may be shared, so it is never flushed.
func testPrefix(t testing.TB, c *redis.Client) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "folio-test:ratelimit:" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
	})
	return prefix
}

func TestRedis(t *testing.T) {
	c := redisClient(t)
	runSuite(t, func(t *testing.T, limit int, window time.Duration) (ratelimit.Limiter, *clock.Fake) {
		return fakeClockRedis(t, c, limit, window)
	})
}

// fakeClockRedis is a Redis limiter under its own key prefix whose script is given the fake
// clock's time instead of reading the server's.
func fakeClockRedis(t *testing.T, c *redis.Client, limit int, window time.Duration) (*ratelimit.Redis, *clock.Fake) {
	clk := clock.NewFake(suiteStart)
	r := ratelimit.NewRedis(c, testPrefix(t, c), limit, window)
	ratelimit.UseClockForTests(r, clk)
	return r, clk
}

// TestRedisUsesServerClock runs the production path, where the script reads TIME: the
// window is short so that it can pass in real time.
func TestRedisUsesServerClock(t *testing.T) {
	const window = 1500 * time.Millisecond
	c := redisClient(t)
	r := ratelimit.NewRedis(c, testPrefix(t, c), 2, window)
	ctx := context.Background()

	before := serverTime(t, c)
	first := allow(t, r, "u")
	after := serverTime(t, c)
	if first.Reset.Before(before.Add(window)) || first.Reset.After(after.Add(window)) {
		t.Fatalf("Reset = %v, want server time + %v, within [%v, %v]",
			first.Reset, window, before.Add(window), after.Add(window))
	}
	time.Sleep(500 * time.Millisecond)
	secondAt := serverTime(t, c)
	expect(t, allow(t, r, "u"), true, 2, 0, first.Reset)
	expect(t, allow(t, r, "u"), false, 2, 0, first.Reset)

	// Once the first request leaves the window, the second still counts.
	time.Sleep(first.Reset.Sub(serverTime(t, c)) + 50*time.Millisecond)
	d, err := r.Allow(ctx, "u")
	if err != nil || !d.Allowed || d.Remaining != 0 {
		t.Fatalf("after the first request left the window: %+v, %v; want allowed, 0 remaining", d, err)
	}
	if d.Reset.Before(secondAt.Add(window)) || d.Reset.After(secondAt.Add(window+100*time.Millisecond)) {
		t.Fatalf("Reset = %v, want the second request's time + %v (about %v)", d.Reset, window, secondAt.Add(window))
	}
}

func TestRedisKeyExpiresWithWindow(t *testing.T) {
	c := redisClient(t)
	prefix := testPrefix(t, c)
	r := ratelimit.NewRedis(c, prefix, 5, 30*time.Second)
	ctx := context.Background()

	mustPeek(t, r, "u")
	if n := c.Exists(ctx, prefix+"u").Val(); n != 0 {
		t.Fatalf("Peek wrote the key")
	}
	mustAllow(t, r, "u", true)
	ttl := c.PTTL(ctx, prefix+"u").Val()
	if ttl <= 0 || ttl > 30*time.Second {
		t.Fatalf("key TTL = %v, want within (0, 30s]", ttl)
	}
}

func TestRedisRunsWithoutCachedScript(t *testing.T) {
	c := redisClient(t)
	r := ratelimit.NewRedis(c, testPrefix(t, c), 2, time.Minute)
	mustAllow(t, r, "u", true)
	// Only the script cache is flushed (as a restart or failover would), never data.
	if err := c.ScriptFlush(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	expect(t, allow(t, r, "u"), true, 2, 0, peek(t, r, "u").Reset)
	mustAllow(t, r, "u", false)
}

func TestNewRedisRejectsInvalidConfiguration(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	for name, build := range map[string]func(){
		"nil client":      func() { ratelimit.NewRedis(nil, "p:", 1, time.Second) },
		"zero limit":      func() { ratelimit.NewRedis(c, "p:", 0, time.Second) },
		"sub-ms window":   func() { ratelimit.NewRedis(c, "p:", 1, time.Microsecond) },
		"negative window": func() { ratelimit.NewRedis(c, "p:", 1, -time.Second) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("NewRedis did not panic")
				}
			}()
			build()
		})
	}
}

func serverTime(t *testing.T, c *redis.Client) time.Time {
	t.Helper()
	now, err := c.Time(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return now
}
