package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestSetMemoryLimit: FOLIO_MEMORY_LIMIT_MB becomes the runtime's soft memory limit; 0 sets none;
// GOMEMLIMIT, when set, is left as the runtime read it.
func TestSetMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	debug.SetMemoryLimit(math.MaxInt64)
	if got := setMemoryLimit(40, env(nil)); got != 40<<20 || debug.SetMemoryLimit(-1) != 40<<20 {
		t.Errorf("FOLIO_MEMORY_LIMIT_MB=40: limit %d, want %d", got, 40<<20)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	if got := setMemoryLimit(0, env(nil)); got != math.MaxInt64 {
		t.Errorf("FOLIO_MEMORY_LIMIT_MB=0: limit %d, want none", got)
	}

	// The runtime applied GOMEMLIMIT=1GiB at start (here by hand); the setting does not replace it.
	debug.SetMemoryLimit(1 << 30)
	if got := setMemoryLimit(40, env(map[string]string{"GOMEMLIMIT": "1GiB"})); got != 1<<30 {
		t.Errorf("GOMEMLIMIT=1GiB and FOLIO_MEMORY_LIMIT_MB=40: limit %d, want %d", got, 1<<30)
	}
}
