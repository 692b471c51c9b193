package markdown_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"folio/platform/markdown"
)

// benchInputs returns the realistic meeting note (about 5 KB) and a 100 KB
// document: a run of such notes with varied names, dates and numbers, as a
// long-lived "weekly sync" note grows.
func benchInputs(b testing.TB) (small, large string) {
	b.Helper()
	data, err := os.ReadFile("testdata/bench/meeting-note.md")
	if err != nil {
		b.Fatal(err)
	}
	small = string(data)
	var sb strings.Builder
	names := []string{"ana.silva", "bob", "chen_li", "dmitri", "eva", "farah", "goran"}
	for week := 1; sb.Len() < 100_000; week++ {
		note := strings.ReplaceAll(small, "week 14", fmt.Sprintf("week %d", week))
		note = strings.ReplaceAll(note, "@bob", "@"+names[week%len(names)])
		note = strings.ReplaceAll(note, "340 ms", fmt.Sprintf("%d ms", 300+week))
		sb.WriteString(note)
		sb.WriteString("\n")
	}
	large = sb.String()[:100_000]
	if i := strings.LastIndexByte(large, '\n'); i > 0 {
		large = large[:i+1]
	}
	return small, large
}

// BenchmarkParseRender measures Parse followed by Render (the codec's work
// for one request carrying content) against stock goldmark converting the
// same Markdown to HTML.
func BenchmarkParseRender(b *testing.B) {
	small, large := benchInputs(b)
	gm := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))
	for _, in := range []struct {
		name string
		src  string
	}{{"5KB", small}, {"100KB", large}} {
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
