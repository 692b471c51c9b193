package ratelimit

import "folio/platform/clock"

// UseClockForTests makes r send c's time to its script instead of letting the server's
// TIME decide. Only tests can call it: it lets the shared suite move time instantly.
func UseClockForTests(r *Redis, c clock.Clock) { r.testNow = c }
