package auth

import (
	"strconv"
	"testing"
	"time"
)

// TestCacheBounded: past its bound a map of the cache starts over, so memory stays bounded by
// entries whatever callers send; expired entries are swept once a TTL has passed; Size reports
// what is held.
func TestCacheBounded(t *testing.T) {
	c := NewCache(time.Second)
	now := time.Now()
	for i := range cacheMaxEntries {
		c.put("k:"+strconv.Itoa(i), cacheEntry{}, now)
	}
	for i := range negativeMaxEntries {
		c.putNegative(strconv.Itoa(i), negativeEntry{}, now)
	}
	if entries, negative := c.Size(); entries != cacheMaxEntries || negative != negativeMaxEntries {
		t.Fatalf("Size() = %d, %d; want %d, %d", entries, negative, cacheMaxEntries, negativeMaxEntries)
	}
	c.put("k:one more", cacheEntry{}, now)
	c.putNegative("one more", negativeEntry{}, now)
	if entries, negative := c.Size(); entries != 1 || negative != 1 {
		t.Fatalf("past the bound Size() = %d, %d; want 1, 1 (each map starts over)", entries, negative)
	}
	if _, ok := c.get("k:one more", now); !ok {
		t.Fatal("the entry put after starting over is missing")
	}
	// Once a TTL has passed, the next put keeps only what has not expired.
	later := now.Add(2 * time.Second)
	c.put("k:later", cacheEntry{}, later)
	c.putNegative("later", negativeEntry{}, later)
	if entries, negative := c.Size(); entries != 1 || negative != 1 {
		t.Fatalf("a TTL later Size() = %d, %d; want 1, 1 (the expired entries swept)", entries, negative)
	}
	if _, ok := c.get("k:later", later); !ok {
		t.Fatal("the entry put at the sweep is missing")
	}
	c.Purge()
	if entries, negative := c.Size(); entries != 0 || negative != 0 {
		t.Fatalf("after Purge Size() = %d, %d", entries, negative)
	}
}
