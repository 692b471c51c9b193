package auth

import (
	"sync"
	"time"
)

// Cache keeps authenticated keys and sessions for a short time so that a request does not pay a
// database round trip. Revocation: the instance that revokes calls Invalidate at once; every other
// instance stops accepting the key when its entry expires, and the TTL is at most 5 seconds. A
// key's expiry (like a session's) is kept in its entry and checked on every request, so an expired
// key is refused from its expiry instant on, cached or not.
//
// It also remembers, for the same TTL, which key prefixes have no key or a revoked one (a negative
// entry), in a map of its own: a client retrying a bad key, or a flood of them, then costs no
// database lookup per request, and a flood of random prefixes cannot push the positive entries
// out (see Guard.authenticate: failures are checked, not refused unseen, over the failure limit).
type Cache struct {
	ttl      time.Duration
	mu       sync.Mutex // guards both maps
	entries  expiring[cacheEntry]
	negative expiring[negativeEntry]
}

// negativeEntry is a cached "no such key", "revoked" or "expired" (revocation and expiry are
// permanent).
type negativeEntry struct {
	revoked bool
	expired bool
}

const negativeMaxEntries = 10_000

type cacheEntry struct {
	principal      Principal
	restrictionErr error
	sessionCSRF    string
	sessionExpires time.Time  // a cached session is refused from this instant on, like an uncached one
	keyExpires     *time.Time // likewise for a cached key that expires (nil: never)
	secretHash     []byte
}

// cacheMaxEntries bounds the keys and sessions cached (about 400 bytes each, so about 4 MiB): more
// credentials than that authenticating within two TTLs (at the default 3 s, thousands of distinct
// keys or sessions a second) only makes the map start over more often.
const cacheMaxEntries = 10_000

// NewCache returns a cache whose entries live ttl (0 disables caching).
func NewCache(ttl time.Duration) *Cache {
	return &Cache{ttl: ttl, entries: expiring[cacheEntry]{max: cacheMaxEntries}, negative: expiring[negativeEntry]{max: negativeMaxEntries}}
}

func (c *Cache) get(key string, now time.Time) (cacheEntry, bool) {
	return lookup(c, &c.entries, key, now)
}

func (c *Cache) put(key string, e cacheEntry, now time.Time) { store(c, &c.entries, key, e, now) }

// getNegative reports whether the key prefix is known to have no key (or a revoked one).
func (c *Cache) getNegative(prefix string, now time.Time) (negativeEntry, bool) {
	return lookup(c, &c.negative, prefix, now)
}

func (c *Cache) putNegative(prefix string, e negativeEntry, now time.Time) {
	store(c, &c.negative, prefix, e, now)
}

// lookup finds key in m, one of c's maps, under c's lock; with caching off it finds nothing.
func lookup[V any](c *Cache, m *expiring[V], key string, now time.Time) (V, bool) {
	if c.ttl <= 0 {
		var none V
		return none, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return m.get(key, now)
}

// store keeps v under key in m, one of c's maps, for c's TTL; with caching off it keeps nothing.
func store[V any](c *Cache, m *expiring[V], key string, v V, now time.Time) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	m.put(key, v, now, now.Add(c.ttl))
}

// expiring is one of the cache's maps: an entry is found until it expires. Its memory follows the
// credentials seen in about the last two TTLs: at most once per TTL a put keeps only the entries
// that have not expired, copied into a new map (a Go map never shrinks, so deleting them would
// keep its largest size; expired entries used to stay until the map was full). Reaching max
// entries drops them all (entries are cheap to rebuild), which bounds it against a flood. The
// Cache's mutex guards it.
type expiring[V any] struct {
	max       int
	entries   map[string]expiringEntry[V]
	nextSweep time.Time
}

type expiringEntry[V any] struct {
	v       V
	expires time.Time
}

func (m *expiring[V]) get(key string, now time.Time) (V, bool) {
	e, ok := m.entries[key]
	if !ok || now.After(e.expires) {
		var none V
		return none, false
	}
	return e.v, true
}

// put keeps v under key until expires (now plus the TTL), which is also when the next sweep may
// run.
func (m *expiring[V]) put(key string, v V, now, expires time.Time) {
	switch {
	case m.entries == nil || len(m.entries) >= m.max:
		m.entries = map[string]expiringEntry[V]{}
		m.nextSweep = expires
	case !now.Before(m.nextSweep):
		live := make(map[string]expiringEntry[V])
		for k, e := range m.entries {
			if !now.After(e.expires) {
				live[k] = e
			}
		}
		m.entries = live
		m.nextSweep = expires
	}
	m.entries[key] = expiringEntry[V]{v: v, expires: expires}
}

func (m *expiring[V]) delete(key string) { delete(m.entries, key) }

func (m *expiring[V]) clear() { m.entries = nil }

// Size is how many entries the cache holds now: keys and sessions (at most cacheMaxEntries), and
// negative entries (at most negativeMaxEntries). Expired entries count until the next sweep.
func (c *Cache) Size() (entries, negative int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries.entries), len(c.negative.entries)
}

// InvalidateKey drops a key (by its 8-character prefix) from this instance's cache.
func (c *Cache) InvalidateKey(prefix string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries.delete("k:" + prefix)
	c.negative.delete(prefix)
}

// InvalidateSession drops a session (by the hash of its token) from this instance's cache.
func (c *Cache) InvalidateSession(tokenHash []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries.delete("s:" + string(tokenHash))
}

// Purge empties this instance's cache, e.g. after a membership change that may affect any key's
// restriction.
func (c *Cache) Purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries.clear()
	c.negative.clear()
}
