package accounts

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestArgonSlotsBoundConcurrentHashes: however many sign-ins arrive at once, at most
// cap(argonSlots) argon2id computations (19 MiB each) run at the same time; the others wait and
// then complete.
func TestArgonSlotsBoundConcurrentHashes(t *testing.T) {
	var running, most atomic.Int32
	var wg sync.WaitGroup
	const callers = 16
	done := make([]bool, callers)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done[i] = withArgonSlot(func() bool {
				n := running.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				time.Sleep(5 * time.Millisecond) // long enough for the others to pile up
				running.Add(-1)
				return true
			})
		}()
	}
	wg.Wait()
	if got, limit := most.Load(), int32(cap(argonSlots)); got > limit || got < 2 {
		t.Fatalf("at most %d computations ran at once, want between 2 and the bound %d", got, limit)
	}
	for i, ok := range done {
		if !ok {
			t.Fatalf("caller %d never ran", i)
		}
	}
	if !checkPassword("correct horse", hashPassword("correct horse")) || checkPassword("wrong", hashPassword("correct horse")) {
		t.Fatal("hash and check disagree through the slots")
	}
}
