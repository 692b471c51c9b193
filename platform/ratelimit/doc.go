// Package ratelimit limits how many requests a key (a user) may make in a rolling window.
//
// The limit is exact: never more than Limit accepted requests in any window-long interval,
// whatever its start. Both limiters keep a sliding log of the accepted requests' times
// rather than fixed-window counters (which let 2×Limit through across a window boundary)
// or a token bucket (which admits a burst above Limit after a quiet period). Rejected
// requests are not logged, so a client that keeps retrying is not locked out for longer.
//
//   - Memory holds the log in this process: for a single instance, and as the fallback.
//   - Redis holds it in a sorted set per key and decides in one atomic Lua script, using
//     the Redis server's clock, so every instance shares one count and one timeline even
//     when their own clocks disagree.
//   - Fallback puts Redis first and Memory behind it.
//
// # When Redis is unreachable: fail open to the local limiter
//
// Every call to Redis is bounded by a short timeout (DefaultTimeout, 200ms). When it
// fails or times out, the decision is made by the in-memory limiter of this instance, and
// a warning is logged at most once per DefaultWarnInterval (with the number of failures
// in between). Only the request that finds Redis down waits the timeout: while Redis is
// failing, requests are decided locally at once, and a background probe (a Peek, which
// counts nothing; once per DefaultProbeInterval, 1s, whether requests come or not) asks
// Redis whether it answers again, so the limit becomes shared again within about a second of
// Redis coming back, on an idle instance too.
//
// Why this and not the alternatives:
//
//   - Failing closed (refusing everything) would turn a cache outage into a full API
//     outage. The rate limit protects the service from abuse; it is not what the service
//     is for.
//   - Failing fully open (no limit) would remove the abuse protection exactly when the
//     infrastructure is already degraded, and let key-guessing run at full speed.
//   - Waiting for Redis would hold every request for the client's own timeouts (seconds)
//     and pile up goroutines and connections.
//
// The cost is known and bounded: while Redis is down each instance enforces the limit
// alone, so a user spread over N instances may get up to N×Limit per window. Requests
// Redis accepts are also recorded in the local limiter, so at the switch an instance
// remembers its own recent traffic instead of granting a fresh Limit. Counts made locally
// during the outage are not copied back to Redis.
//
// Configure the go-redis client with ContextTimeoutEnabled so that a call abandoned at
// the timeout also releases its connection promptly; Fallback bounds the wait either way.
package ratelimit
