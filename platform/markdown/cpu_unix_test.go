//go:build unix

package markdown

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time the calling OS thread has used. Unlike wall time
// it does not count the time other processes take from us on a busy machine.
func threadCPU(t *testing.T) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		t.Fatalf("clock_gettime: %v", err)
	}
	return time.Duration(ts.Nano())
}
