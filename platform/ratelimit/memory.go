package ratelimit

import (
	"context"
	"hash/maphash"
	"sync"
	"time"

	"folio/platform/clock"
)

// shardCount spreads keys over independent locks so that unrelated keys rarely contend.
// A power of two, so the shard is picked with a mask.
const shardCount = 64

// Memory is an exact sliding-log limiter held in this process. It is safe for concurrent
// use. Each key keeps a ring of at most limit timestamps (the accepted requests still in
// the window); a key whose newest request has left the window is dropped by a sweep that
// each shard runs on access at most once per window, so memory follows the keys active in
// about the last two windows.
type Memory struct {
	limit  int
	window int64 // nanoseconds
	clk    clock.Clock
	seed   maphash.Seed
	shards [shardCount]memShard
}

type memShard struct {
	mu        sync.Mutex
	logs      map[string]*slidingLog
	nextSweep int64 // unix nanoseconds
	// Keep neighbouring shards' locks on different cache lines.
	_ [40]byte
}

// NewMemory returns an in-memory limiter that accepts at most limit requests per key in
// any window-long interval. A nil clk means the system clock. It panics if limit < 1 or
// window <= 0.
func NewMemory(limit int, window time.Duration, clk clock.Clock) *Memory {
	mustValid("memory", limit, window)
	if clk == nil {
		clk = clock.System{}
	}
	m := &Memory{limit: limit, window: int64(window), clk: clk, seed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].logs = make(map[string]*slidingLog)
	}
	return m
}

// Allow counts one request for key if the key has fewer than limit requests in the window.
// It never returns an error.
func (m *Memory) Allow(_ context.Context, key string) (Decision, error) {
	return m.check(key, true), nil
}

// Peek reports what Allow would decide for key now, without counting. It never returns an
// error.
func (m *Memory) Peek(_ context.Context, key string) (Decision, error) {
	return m.check(key, false), nil
}

func (m *Memory) check(key string, record bool) Decision {
	now := m.clk.Now().UnixNano()
	cutoff := now - m.window // a request at or before cutoff is outside the window
	s := &m.shards[maphash.String(m.seed, key)&(shardCount-1)]

	s.mu.Lock()
	defer s.mu.Unlock()
	if now >= s.nextSweep {
		s.sweep(cutoff)
		s.nextSweep = now + m.window
	}

	l := s.logs[key]
	count := 0
	if l != nil {
		l.trim(cutoff)
		count = l.n
	}
	d := Decision{Allowed: count < m.limit, Limit: m.limit}
	if d.Allowed {
		d.Remaining = m.limit - count - 1
		if record {
			if l == nil {
				l = &slidingLog{}
				s.logs[key] = l
			}
			// The wall clock may step back; recording no earlier than the newest entry
			// keeps the ring sorted, and errs on the side of counting a request longer.
			at := now
			if l.n > 0 && l.newest() > at {
				at = l.newest()
			}
			l.push(at, m.limit)
		}
	}
	if l != nil && l.n > 0 {
		d.Reset = time.Unix(0, l.oldest()+m.window).UTC()
	} else {
		d.Reset = time.Unix(0, now+m.window).UTC()
	}
	return d
}

// Size is what the limiter holds now: the keys it tracks, and the timestamps their logs have room
// for (8 bytes each; a log grows to at most limit). Keys are the ones active in about the last two
// windows, so the memory is bounded by those keys times limit.
func (m *Memory) Size() (keys, timestamps int) {
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		keys += len(s.logs)
		for _, l := range s.logs {
			timestamps += len(l.ts)
		}
		s.mu.Unlock()
	}
	return keys, timestamps
}

// sweep drops the keys with nothing left in the window. Such a key behaves exactly like
// an unknown key, so dropping it changes no decision.
func (s *memShard) sweep(cutoff int64) {
	for k, l := range s.logs {
		if l.n == 0 || l.newest() <= cutoff {
			delete(s.logs, k)
		}
	}
}

// slidingLog is a ring buffer of accepted-request times, oldest first. It grows on
// demand up to the limit, so a key that makes few requests costs little.
type slidingLog struct {
	ts   []int64
	head int
	n    int
}

func (l *slidingLog) oldest() int64 { return l.ts[l.head] }

func (l *slidingLog) newest() int64 { return l.ts[(l.head+l.n-1)%len(l.ts)] }

// trim forgets the requests at or before cutoff.
func (l *slidingLog) trim(cutoff int64) {
	for l.n > 0 && l.ts[l.head] <= cutoff {
		l.head = (l.head + 1) % len(l.ts)
		l.n--
	}
	if l.n == 0 {
		l.head = 0
	}
}

// push appends t; the caller guarantees l.n < limit.
func (l *slidingLog) push(t int64, limit int) {
	if l.n == len(l.ts) {
		size := min(max(2*len(l.ts), 4), limit)
		grown := make([]int64, size)
		for i := range l.n {
			grown[i] = l.ts[(l.head+i)%len(l.ts)]
		}
		l.ts, l.head = grown, 0
	}
	l.ts[(l.head+l.n)%len(l.ts)] = t
	l.n++
}
