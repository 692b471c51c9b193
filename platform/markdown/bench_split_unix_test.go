//go:build unix

package markdown

import (
	"bytes"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"golang.org/x/sys/unix"
)

// BenchmarkWriteSplit says where a write's time goes, on the 100 KB
// document, in process CPU time (every thread's, the collector's too) per
// call: goldmark's Markdown-to-HTML (the baseline), goldmark's parse alone
// as the codec's full path configures it (mdParser), goldmark's block parse
// alone as the fast path's stage 1 configures it (mdBlockParser), the
// codec's own block parse (blockParse, stage 2), Parse, Parse with stage 2
// off (Parse_stage1), Parse with the fast path off (Parse_full), the
// capped render of
// ParseCanonical, ParseCanonical, and Encode, run one after the other on
// each iteration.
func BenchmarkWriteSplit(b *testing.B) {
	_, large := BenchInputs(b)
	src := []byte(large)
	gm := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))
	d, err := Parse(large)
	if err != nil {
		b.Fatal(err)
	}
	cpu := func() time.Duration {
		var ts unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
			b.Fatalf("clock_gettime: %v", err)
		}
		return time.Duration(ts.Nano())
	}
	steps := []struct {
		name string
		run  func()
	}{
		{"goldmark_html", func() {
			var buf bytes.Buffer
			if err := gm.Convert(src, &buf); err != nil {
				b.Fatal(err)
			}
		}},
		{"goldmark_parse", func() {
			pc := parser.NewContext()
			c := &converter{}
			pc.Set(budgetKey, &c.budget)
			pc.Set(dlistKey, &c.dlists)
			mdParser.Parse(text.NewReader(src), parser.WithContext(pc))
		}},
		{"goldmark_blocks", func() {
			pc := parser.NewContext()
			c := &converter{}
			pc.Set(budgetKey, &c.budget)
			mdBlockParser.Parse(text.NewReader(src), parser.WithContext(pc))
		}},
		{"blockParse", func() {
			pc := parser.NewContext()
			c := &converter{}
			pc.Set(budgetKey, &c.budget)
			if _, ok := blockParse(src, pc); !ok {
				b.Fatal("blockParse bailed")
			}
		}},
		{"Parse", func() {
			if _, err := Parse(large); err != nil {
				b.Fatal(err)
			}
		}},
		{"Parse_stage1", func() {
			fastBlocks = false
			_, err := Parse(large)
			fastBlocks = true
			if err != nil {
				b.Fatal(err)
			}
		}},
		{"Parse_full", func() {
			fastPath = false
			_, err := Parse(large)
			fastPath = true
			if err != nil {
				b.Fatal(err)
			}
		}},
		{"render", func() {
			if _, ok := renderCapped(d, 4*MaxLength+1, true); !ok {
				b.Fatal("over the cap")
			}
		}},
		{"ParseCanonical", func() {
			if _, _, err := ParseCanonical(large); err != nil {
				b.Fatal(err)
			}
		}},
		{"Encode", func() {
			if _, err := Encode(d); err != nil {
				b.Fatal(err)
			}
		}},
	}
	spent := make([]time.Duration, len(steps))
	for i := 0; i < b.N; i++ {
		for k, s := range steps {
			t := cpu()
			s.run()
			spent[k] += cpu() - t
		}
	}
	for k, s := range steps {
		b.ReportMetric(float64(spent[k].Microseconds())/float64(b.N), s.name+"_cpu_µs")
	}
}
