//go:build unix

package markdown

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkRenderParsed measures the capped render of ParseCanonical alone
// (renderParsed), on Parse's output of the two bench notes. cpu_µs/op is
// the process's CPU time per render (the collector's included), which moves
// less than wall time on a shared machine.
func BenchmarkRenderParsed(b *testing.B) {
	small, large := BenchInputs(b)
	for _, in := range []struct{ name, src string }{{"5KB", small}, {"100KB", large}} {
		d, err := Parse(in.src)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.src)))
			b.ReportAllocs()
			t0 := processCPUTime(b)
			for i := 0; i < b.N; i++ {
				_ = renderParsed(d, 4*MaxLength)
			}
			b.ReportMetric(float64((processCPUTime(b)-t0).Nanoseconds())/1e3/float64(b.N), "cpu_µs/op")
		})
	}
}

// processCPUTime is the CPU time of every thread of the process.
func processCPUTime(b *testing.B) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		b.Fatalf("clock_gettime: %v", err)
	}
	return time.Duration(ts.Nano())
}
