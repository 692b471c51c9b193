package ratelimit

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
