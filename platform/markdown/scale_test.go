package markdown_test

import (
	"os"
	"runtime"
	"testing"
	"time"

	"folio/platform/markdown"
)

func TestScaleProbe(t *testing.T) {
	if os.Getenv("MARKDOWN_RATIO") == "" {
		t.Skip("a measurement probe, not a check: set MARKDOWN_RATIO=1 to print the scaling table")
	}
	_, large := benchInputs(t)
	for _, n := range []int{5_000, 10_000, 20_000, 50_000, len(large)} {
		src := large[:n]
		bp, br := time.Hour, time.Hour
		for r := 0; r < 30; r++ {
			runtime.GC()
			st := time.Now()
			d, _ := markdown.Parse(src)
			bp = min(bp, time.Since(st))
			st = time.Now()
			markdown.Render(d)
			br = min(br, time.Since(st))
		}
		t.Logf("%6d B  parse %9v (%5.1f ns/B)  render %9v (%5.1f ns/B)", n, bp, float64(bp.Nanoseconds())/float64(n), br, float64(br.Nanoseconds())/float64(n))
	}
}
