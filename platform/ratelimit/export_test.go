package ratelimit

import "folio/platform/clock"

// UseClockForTests makes r send c's time to its script instead of letting the server's
// TIME decide. Only tests can call it: it lets the shared suite move time instantly.
func UseClockForTests(r *Redis, c clock.Clock) { r.testNow = c }

// KeyCount reports how many keys m currently holds, for the eviction test.
func KeyCount(m *Memory) int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += len(s.logs)
		s.mu.Unlock()
	}
	return n
}
