package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"folio/platform/clock"
)

// slidingLogScript is the whole check, run atomically by Redis. The key is a sorted set
// of accepted requests: score = time in microseconds, member = a unique id (two requests
// may share a microsecond). Times come from the server's TIME, so instances whose own
// clocks disagree still share one timeline.
//
// KEYS[1] the sorted set
// ARGV[1] limit
// ARGV[2] window in microseconds
// ARGV[3] window in milliseconds, rounded up (the key's expiry)
// ARGV[4] member for this request
// ARGV[5] "1" to count the request if it is allowed (Allow), "0" to only look (Peek)
// ARGV[6] optional: "now" in microseconds, set only by this package's tests
//
// Returns {allowed (1|0), remaining, reset in microseconds}.
//
// Numbers computed in Lua are only ever passed as scores, which Redis parses as doubles
// (exact for microsecond timestamps); the expiry comes from Go as an integer string.
const slidingLogScript = `
if redis.replicate_commands then redis.replicate_commands() end
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local record = ARGV[5] == '1'
local now
if ARGV[6] then
  now = tonumber(ARGV[6])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local cutoff = now - window
if record then
  redis.call('ZREMRANGEBYSCORE', key, '-inf', cutoff)
end
local count = redis.call('ZCOUNT', key, cutoff + 1, '+inf')
local allowed = count < limit
if allowed and record then
  redis.call('ZADD', key, now, ARGV[4])
  redis.call('PEXPIRE', key, ARGV[3])
end
local remaining = 0
if allowed then remaining = limit - count - 1 end
local reset = now + window
local oldest = redis.call('ZRANGEBYSCORE', key, cutoff + 1, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
if oldest[2] then reset = tonumber(oldest[2]) + window end
if allowed then return {1, remaining, reset} end
return {0, remaining, reset}
`

var redisScript = redis.NewScript(slidingLogScript)

// Redis is an exact sliding-log limiter shared by every instance that uses the same Redis
// and prefix. Each check is one atomic Lua script (EVALSHA, falling back to EVAL when
// the server does not have it cached). It is safe for concurrent use. It adds no timeout
// of its own: wrap it in a Fallback, which bounds every call.
type Redis struct {
	client   redis.UniversalClient
	prefix   string
	limit    int
	windowUS int64
	windowMS string
	instance string        // random, so members never collide across instances
	seq      atomic.Uint64 // then a counter, so they never collide within one
	testNow  clock.Clock   // nil in production: the server's clock decides
}

// NewRedis returns a limiter that accepts at most limit requests per key in any
// window-long interval, keeping its state in Redis under prefix+key. It panics if
// client is nil, limit < 1 or window < 1ms.
func NewRedis(client redis.UniversalClient, prefix string, limit int, window time.Duration) *Redis {
	mustValid("redis", limit, window)
	if client == nil {
		panic("ratelimit: redis client is nil")
	}
	if window < time.Millisecond {
		panic(fmt.Sprintf("ratelimit: redis window must be at least 1ms, got %v", window))
	}
	var id [8]byte
	_, _ = rand.Read(id[:]) // crypto/rand.Read never fails
	return &Redis{
		client:   client,
		prefix:   prefix,
		limit:    limit,
		windowUS: window.Microseconds(),
		windowMS: strconv.FormatInt(int64((window+time.Millisecond-1)/time.Millisecond), 10),
		instance: hex.EncodeToString(id[:]) + ":",
	}
}

// Allow counts one request for key if the key has fewer than limit requests in the window.
func (r *Redis) Allow(ctx context.Context, key string) (Decision, error) {
	return r.check(ctx, key, true)
}

// Peek reports what Allow would decide for key now, without counting or writing.
func (r *Redis) Peek(ctx context.Context, key string) (Decision, error) {
	return r.check(ctx, key, false)
}

func (r *Redis) check(ctx context.Context, key string, record bool) (Decision, error) {
	mode, member := "0", ""
	if record {
		mode, member = "1", r.instance+strconv.FormatUint(r.seq.Add(1), 36)
	}
	args := make([]any, 5, 6)
	args[0], args[1], args[2], args[3], args[4] = r.limit, r.windowUS, r.windowMS, member, mode
	if r.testNow != nil {
		args = append(args, r.testNow.Now().UnixMicro())
	}
	res, err := redisScript.Run(ctx, r.client, []string{r.prefix + key}, args...).Int64Slice()
	if err != nil {
		return Decision{}, fmt.Errorf("ratelimit: redis check: %w", err)
	}
	if len(res) != 3 {
		return Decision{}, fmt.Errorf("ratelimit: redis check: unexpected reply %v", res)
	}
	return Decision{
		Allowed:   res[0] == 1,
		Limit:     r.limit,
		Remaining: int(res[1]),
		Reset:     time.UnixMicro(res[2]).UTC(),
	}, nil
}
