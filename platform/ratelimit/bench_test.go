package ratelimit_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"folio/platform/clock"
	"folio/platform/ratelimit"
)

var benchKeys = func() []string {
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = "user-" + strconv.Itoa(i)
	}
	return keys
}()

// BenchmarkMemoryAllow measures Memory.Allow from all Ps at once over 1024 keys, on the
// system clock.
//   - at-limit: 100 per minute, so after the first 102,400 requests nearly every check
//     is a rejection (trim, count): the steady state of keys being hammered.
//   - under-limit: 100 per millisecond, so most requests are accepted (trim, record)
//     and the idle-key sweep runs every millisecond.
func BenchmarkMemoryAllow(b *testing.B) {
	for _, bc := range []struct {
		name   string
		window time.Duration
	}{{"at-limit", time.Minute}, {"under-limit", time.Millisecond}} {
		b.Run(bc.name, func(b *testing.B) {
			m := ratelimit.NewMemory(100, bc.window, clock.System{})
			benchParallel(b, m)
		})
	}
}

// BenchmarkRedisAllow measures one round trip of the script per check (a local server
// in the usual setup: FOLIO_TEST_REDIS_URL).
func BenchmarkRedisAllow(b *testing.B) {
	c := redisClient(b)
	newLimiter := func(b *testing.B) *ratelimit.Redis {
		return ratelimit.NewRedis(c, testPrefix(b, c), 100, time.Minute)
	}
	b.Run("serial", func(b *testing.B) {
		r := newLimiter(b)
		ctx := context.Background()
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.Allow(ctx, benchKeys[i%len(benchKeys)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("parallel", func(b *testing.B) {
		benchParallel(b, newLimiter(b))
	})
}

func benchParallel(b *testing.B, l ratelimit.Limiter) {
	var next atomic.Int64
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := int(next.Add(1)) * 7919 // each goroutine starts elsewhere in the keys
		for pb.Next() {
			if _, err := l.Allow(ctx, benchKeys[i%len(benchKeys)]); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}
