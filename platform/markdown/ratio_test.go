package markdown_test

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"folio/platform/markdown"
)

// TestThroughputRatio compares the codec with goldmark's Markdown-to-HTML on
// the benchmark inputs, alternating the two so that both see the same load,
// and logs the best time of each. Run with -v -run TestThroughputRatio.
func TestThroughputRatio(t *testing.T) {
	if testing.Short() || os.Getenv("MARKDOWN_RATIO") == "" {
		t.Skip("set MARKDOWN_RATIO=1 to measure")
	}
	small, large := benchInputs(t)
	gm := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))
	for _, in := range []struct {
		name string
		src  string
	}{{"5KB", small}, {"100KB", large}} {
		src := []byte(in.src)
		var buf bytes.Buffer
		best := func(f func()) time.Duration {
			start := time.Now()
			f()
			return time.Since(start)
		}
		bc, bg := time.Hour, time.Hour
		rounds := 400
		if len(src) > 50_000 {
			rounds = 40
		}
		for r := 0; r < rounds; r++ {
			bg = min(bg, best(func() { buf.Reset(); _ = gm.Convert(src, &buf) }))
			bc = min(bc, best(func() {
				d, _ := markdown.Parse(in.src)
				_ = markdown.Render(d)
			}))
		}
		mb := func(d time.Duration) float64 { return float64(len(src)) / d.Seconds() / 1e6 }
		t.Logf("%-6s codec %9v (%5.1f MB/s)  goldmark-html %9v (%5.1f MB/s)  codec/goldmark throughput %.2f",
			in.name, bc, mb(bc), bg, mb(bg), mb(bc)/mb(bg))
	}
}
