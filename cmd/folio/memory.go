package main

import "runtime/debug"

// setMemoryLimit gives the Go runtime folio serve's soft memory limit, FOLIO_MEMORY_LIMIT_MB (mb
// MiB; 0: none): as the process's Go memory (heap, stacks, the runtime's own; not the binary's
// mapped pages) nears it, the collector runs more often than GOGC alone would have it, instead
// of letting the heap grow to twice what is live. GOMEMLIMIT, when set, wins: the runtime has
// read it at start and folio leaves it. It returns the limit in force, in bytes (math.MaxInt64:
// none), which the start line shows (memoryLimitMiB). See docs/performance.md, Memory, for the
// default and what it costs.
func setMemoryLimit(mb int, getenv func(string) string) int64 {
	if getenv("GOMEMLIMIT") == "" && mb > 0 {
		debug.SetMemoryLimit(int64(mb) << 20)
	}
	return debug.SetMemoryLimit(-1)
}
