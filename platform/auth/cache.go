package auth

import (
	"sync"
	"time"
)

// Cache keeps authenticated keys and sessions for a short time so that a request does not pay a
// database round trip. Revocation: the instance that revokes calls Invalidate at once; every other
// instance stops accepting the key when its entry expires, and the TTL is at most 5 seconds.
//
// It also remembers, for the same TTL, which key prefixes have no key or a revoked one (a negative
// entry), in a map of its own: a client retrying a bad key, or a flood of them, then costs no
// database lookup per request, and a flood of random prefixes cannot push the positive entries
// out (see Guard.authenticate: failures are checked, not refused unseen, over the failure limit).
type Cache struct {
	ttl      time.Duration
	mu       sync.Mutex
	entries  map[string]cacheEntry
	negative map[string]negativeEntry
}

// negativeEntry is a cached "no such key" or "revoked" (revocation is permanent).
type negativeEntry struct {
	revoked bool
	expires time.Time
}

const negativeMaxEntries = 10_000

type cacheEntry struct {
	principal      Principal
	restrictionErr error
	sessionCSRF    string
	sessionExpires time.Time // a cached session is refused from this instant on, like an uncached one
	secretHash     []byte
	expires        time.Time
}

const cacheMaxEntries = 50_000

// NewCache returns a cache whose entries live ttl (0 disables caching).
func NewCache(ttl time.Duration) *Cache {
	return &Cache{ttl: ttl, entries: map[string]cacheEntry{}, negative: map[string]negativeEntry{}}
}

func (c *Cache) get(key string, now time.Time) (cacheEntry, bool) {
	if c.ttl <= 0 {
		return cacheEntry{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || now.After(e.expires) {
		return cacheEntry{}, false
	}
	return e, true
}

func (c *Cache) put(key string, e cacheEntry, now time.Time) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= cacheMaxEntries {
		// Entries are cheap to rebuild; dropping them all keeps memory bounded without bookkeeping.
		c.entries = map[string]cacheEntry{}
	}
	e.expires = now.Add(c.ttl)
	c.entries[key] = e
}

// getNegative reports whether the key prefix is known to have no key (or a revoked one).
func (c *Cache) getNegative(prefix string, now time.Time) (e negativeEntry, ok bool) {
	if c.ttl <= 0 {
		return negativeEntry{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok = c.negative[prefix]
	if !ok || now.After(e.expires) {
		return negativeEntry{}, false
	}
	return e, true
}

func (c *Cache) putNegative(prefix string, revoked bool, now time.Time) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.negative) >= negativeMaxEntries {
		c.negative = map[string]negativeEntry{}
	}
	c.negative[prefix] = negativeEntry{revoked: revoked, expires: now.Add(c.ttl)}
}

// InvalidateKey drops a key (by its 8-character prefix) from this instance's cache.
func (c *Cache) InvalidateKey(prefix string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, "k:"+prefix)
	delete(c.negative, prefix)
}

// InvalidateSession drops a session (by the hash of its token) from this instance's cache.
func (c *Cache) InvalidateSession(tokenHash []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, "s:"+string(tokenHash))
}

// Purge empties this instance's cache, e.g. after a membership change that may affect any key's
// restriction.
func (c *Cache) Purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = map[string]cacheEntry{}
	c.negative = map[string]negativeEntry{}
}
