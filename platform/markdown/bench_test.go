package markdown_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"folio/platform/markdown"
)

// benchInputs returns the realistic meeting note (about 5 KB) and a 100 KB
// document (BenchInputs).
func benchInputs(b testing.TB) (small, large string) { return markdown.BenchInputs(b) }

// benchCase is one input of the comparisons with goldmark.
type benchCase struct {
	name string
	src  string
}

// benchCases are the 5 KB meeting note and the 100 KB document.
func benchCases(b testing.TB) []benchCase {
	small, large := benchInputs(b)
	return []benchCase{{"5KB", small}, {"100KB", large}}
}

// goldmarkHTML is stock goldmark with the extensions the codec accepts, the
// baseline of the throughput goal.
func goldmarkHTML() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))
}

// BenchmarkParseCanonical measures the service's write path: Parse and the
// exact length check (a capped render), on inputs within the limit.
func BenchmarkParseCanonical(b *testing.B) {
	for _, in := range benchCases(b) {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.src)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, _, err := markdown.ParseCanonical(in.src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseRender measures Parse followed by Render (the codec's work
// for one request carrying content) against stock goldmark converting the
// same Markdown to HTML.
func BenchmarkParseRender(b *testing.B) {
	gm := goldmarkHTML()
	for _, in := range benchCases(b) {
		b.Run(in.name+"/codec", func(b *testing.B) {
			b.SetBytes(int64(len(in.src)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				d, err := markdown.Parse(in.src)
				if err != nil {
					b.Fatal(err)
				}
				_ = markdown.Render(d)
			}
		})
		b.Run(in.name+"/goldmark-html", func(b *testing.B) {
			b.SetBytes(int64(len(in.src)))
			b.ReportAllocs()
			src := []byte(in.src)
			var buf bytes.Buffer
			for i := 0; i < b.N; i++ {
				buf.Reset()
				if err := gm.Convert(src, &buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParse and BenchmarkRender split the codec's cost.
func BenchmarkParse(b *testing.B) {
	_, large := benchInputs(b)
	b.SetBytes(int64(len(large)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := markdown.Parse(large); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRender(b *testing.B) {
	_, large := benchInputs(b)
	d, err := markdown.Parse(large)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(large)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = markdown.Render(d)
	}
}

// BenchmarkRatio runs goldmark's Markdown-to-HTML and the codec's write
// alternately on the same input, so that both see the same machine load and
// garbage collector state, and reports each one's MB/s and the codec's
// throughput as a fraction of goldmark's. The codec's side is exactly what a
// write runs: ParseCanonical (Parse, the exact length check and the stored
// Markdown, from one capped render); codec/goldmark is the goal (1.0 or
// more, issue 35). codec+encode/goldmark adds Encode (the stored JSON), the
// rest of a write's codec work, timed in the same iterations.
func BenchmarkRatio(b *testing.B) {
	gm := goldmarkHTML()
	for _, in := range benchCases(b) {
		b.Run(in.name, func(b *testing.B) {
			src := []byte(in.src)
			var buf bytes.Buffer
			var codec, encode, html time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				buf.Reset()
				if err := gm.Convert(src, &buf); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				d, _, err := markdown.ParseCanonical(in.src)
				if err != nil {
					b.Fatal(err)
				}
				parsed := time.Now()
				if _, err := markdown.Encode(d); err != nil {
					b.Fatal(err)
				}
				end := time.Now()
				html += mid.Sub(start)
				codec += parsed.Sub(mid)
				encode += end.Sub(parsed)
			}
			mb := func(d time.Duration) float64 { return float64(len(src)) * float64(b.N) / d.Seconds() / 1e6 }
			b.ReportMetric(mb(codec), "codec_MB/s")
			b.ReportMetric(mb(html), "goldmark_MB/s")
			b.ReportMetric(mb(codec)/mb(html), "codec/goldmark")
			b.ReportMetric(mb(codec+encode)/mb(html), "codec+encode/goldmark")
		})
	}
}

// BenchmarkScale measures Parse+Render per input byte at growing prefixes of
// the 100 KB document: a linear cost keeps ns/B flat.
func BenchmarkScale(b *testing.B) {
	_, large := benchInputs(b)
	for _, n := range []int{5_000, 10_000, 20_000, 50_000, len(large)} {
		src := large[:n]
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				d, err := markdown.Parse(src)
				if err != nil {
					b.Fatal(err)
				}
				_ = markdown.Render(d)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/B")
		})
	}
}
