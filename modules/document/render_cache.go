package document

import (
	"crypto/sha256"
	"sync"
	"sync/atomic"
)

// Rendering a stored document back to Markdown (decode the JSON tree, then the codec's canonical
// renderer) is the most expensive step of every read: about 50 µs for a short note
// (BenchmarkRenderUncached; 150 to 200 µs before markdown.Decode read the tree in one pass). It is
// a pure function of the stored bytes, so Render memoizes it, keyed by the SHA-256 of those bytes
// (a collision would show one note's text for another, so the key is a cryptographic hash, not a
// fast one). A changed document has other bytes and so another key: nothing is ever invalidated.
// The cache lives in the process, so a new binary (perhaps with a changed renderer) starts empty.
//
// Memory is bounded by two generations: entries go to the current one; when it holds half the
// bound (FOLIO_RENDER_CACHE_MB, set by SetRenderCacheBytes) of text, it becomes the old one and the
// previous old one is dropped. A hit in the old generation moves the entry back to the current
// one, so what is read often stays.
//
// The bound is small because the cache is long-lived heap, which the collector lets the heap grow
// to twice of (GOGC=100): issue 17 bounds the server's resident memory at 100 MiB with 1M notes,
// and with two generations of 32 MiB the cache alone took 45 MB of heap (135 to 152 MiB resident
// under load) once a caller's 44,000 notes had been read. The default, two of 2 MiB, holds 3,500
// to 7,000 short notes (about 600 bytes counted each): the pages people read again (the first
// pages of their lists, the notes they open), not a whole large account read at random, where a
// miss costs the decoding and rendering again. It was two of 4 MiB until the one-pass Decode
// made a miss about three times cheaper; the 4 MiB saved keep the list of the longest notes
// under the memory bound at 1M (docs/performance.md: Memory).
const (
	renderCacheShards = 16
	// DefaultRenderCacheBytes is the default bound: 2 MiB per generation, over all shards
	// (config.Default's FOLIO_RENDER_CACHE_MB).
	DefaultRenderCacheBytes = 4 << 20
	// renderCacheMinLen: tiny documents render in microseconds; caching them saves nothing.
	renderCacheMinLen = 64
	// entryOverhead approximates the map entry, key and string header of one cached text.
	entryOverhead = 96
)

type renderShard struct {
	mu                 sync.Mutex
	cur, old           map[[sha256.Size]byte]string
	curBytes, oldBytes int // texts plus entryOverhead each, as counted against the bound
}

type renderMemo struct {
	shards [renderCacheShards]renderShard
	// shardBytes is what one shard's current generation holds before it turns old: half the
	// bound, over the shards; 0 turns the cache off. Atomic: the bound may be set while requests
	// render (a test's second server in the process).
	shardBytes atomic.Int64
}

var rendered = newRenderMemo(DefaultRenderCacheBytes)

func newRenderMemo(boundBytes int) *renderMemo {
	m := &renderMemo{}
	for i := range m.shards {
		m.shards[i].cur = map[[sha256.Size]byte]string{}
	}
	m.setBound(boundBytes)
	return m
}

// SetRenderCacheBytes bounds Render's cache at boundBytes of text over both generations (half
// each); 0 turns it off. The server sets it from FOLIO_RENDER_CACHE_MB before it serves.
func SetRenderCacheBytes(boundBytes int) { rendered.setBound(boundBytes) }

func (m *renderMemo) setBound(boundBytes int) {
	perShard := max(boundBytes, 0) / 2 / renderCacheShards
	if boundBytes > 0 {
		perShard = max(perShard, 1) // a tiny bound still caches, one text per shard and generation
	}
	m.shardBytes.Store(int64(perShard))
	if perShard == 0 {
		for i := range m.shards {
			s := &m.shards[i]
			s.mu.Lock()
			s.cur, s.old = map[[sha256.Size]byte]string{}, nil
			s.curBytes, s.oldBytes = 0, 0
			s.mu.Unlock()
		}
	}
}

// enabled reports whether the cache keeps anything: when it does not, Render skips the hash.
func (m *renderMemo) enabled() bool { return m.shardBytes.Load() > 0 }

func (m *renderMemo) shard(k *[sha256.Size]byte) *renderShard {
	return &m.shards[k[0]%renderCacheShards]
}

func (m *renderMemo) get(k [sha256.Size]byte) (string, bool) {
	s := m.shard(&k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.cur[k]; ok {
		return v, true
	}
	if v, ok := s.old[k]; ok {
		delete(s.old, k)
		s.oldBytes -= len(v) + entryOverhead
		s.putLocked(k, v, m.shardBytes.Load())
		return v, true
	}
	return "", false
}

func (m *renderMemo) put(k [sha256.Size]byte, v string) {
	limit := m.shardBytes.Load()
	if limit == 0 {
		return
	}
	s := m.shard(&k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.cur[k]; !ok {
		s.putLocked(k, v, limit)
	}
}

// putLocked adds an entry to the current generation, which turns old first if it holds limit
// bytes.
func (s *renderShard) putLocked(k [sha256.Size]byte, v string, limit int64) {
	if int64(s.curBytes) >= limit {
		s.old, s.oldBytes = s.cur, s.curBytes
		s.cur, s.curBytes = make(map[[sha256.Size]byte]string, len(s.cur)), 0
	}
	s.cur[k] = v
	s.curBytes += len(v) + entryOverhead
}

// size is what the cache holds now, over both generations: entries, and their bytes as counted
// against the bound.
func (m *renderMemo) size() (entries, bytes int) {
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		entries += len(s.cur) + len(s.old)
		bytes += s.curBytes + s.oldBytes
		s.mu.Unlock()
	}
	return entries, bytes
}

// RenderCacheSize is what Render's cache holds now: entries, and bytes (the texts plus an
// estimate of each entry's map overhead), over both generations. It is at most the bound plus two
// texts per shard.
func RenderCacheSize() (entries, bytes int) { return rendered.size() }
