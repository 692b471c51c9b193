//go:build unix

package markdown_test

import (
	"bytes"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"folio/platform/markdown"
)

// processCPU is the CPU time the whole process has used: every thread's,
// the garbage collector's workers included.
func processCPU(b *testing.B) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		b.Fatalf("clock_gettime: %v", err)
	}
	return time.Duration(ts.Nano())
}

// BenchmarkWriteCPU is BenchmarkRatio counted in the process's CPU time
// instead of wall time: goldmark's Markdown-to-HTML and ParseCanonical
// alternately, cpu_codec/goldmark the codec's throughput as a fraction of
// goldmark's. On a machine shared with other work, wall time counts the
// time other processes take; CPU time mostly does not, so this figure moves
// less between runs (the collector's work lands in whichever side is
// running when it does it, as in BenchmarkRatio).
func BenchmarkWriteCPU(b *testing.B) {
	gm := goldmarkHTML()
	for _, in := range benchCases(b) {
		b.Run(in.name, func(b *testing.B) {
			src := []byte(in.src)
			var buf bytes.Buffer
			var codec, html time.Duration
			for i := 0; i < b.N; i++ {
				t0 := processCPU(b)
				buf.Reset()
				if err := gm.Convert(src, &buf); err != nil {
					b.Fatal(err)
				}
				t1 := processCPU(b)
				if _, _, err := markdown.ParseCanonical(in.src); err != nil {
					b.Fatal(err)
				}
				t2 := processCPU(b)
				html += t1 - t0
				codec += t2 - t1
			}
			b.ReportMetric(float64(html)/float64(codec), "cpu_codec/goldmark")
			b.ReportMetric(float64(codec.Microseconds())/float64(b.N), "codec_cpu_µs/op")
			b.ReportMetric(float64(html.Microseconds())/float64(b.N), "goldmark_cpu_µs/op")
		})
	}
}
