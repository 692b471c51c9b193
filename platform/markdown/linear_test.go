package markdown

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// pathological input families: each builds about n bytes.
var pathological = map[string]func(n int) string{
	"openers-then-closers": func(n int) string { return strings.Repeat("*a ", n/6) + strings.Repeat("a_ ", n/6) },
	"brackets":             func(n int) string { return strings.Repeat("[", n) },
	"link-openers":         func(n int) string { return strings.Repeat("[a](", n/4) },
	"backtick-ladder": func(n int) string {
		var b strings.Builder
		for k := 1; b.Len() < n; k++ {
			b.WriteString(strings.Repeat("`", k%200+1) + " a ")
		}
		return b.String()
	},
	"angle":             func(n int) string { return strings.Repeat("<a ", n/3) },
	"stars":             func(n int) string { return strings.Repeat("*", n) },
	"alternating-marks": func(n int) string { return strings.Repeat("a*b_c~", n/6) },
	"rule-of-three":     func(n int) string { return strings.Repeat("**a*", n/4) },
	"nested-brackets":   func(n int) string { return strings.Repeat("[", n/2) + strings.Repeat("]", n/2) },
	"ref-defs":          func(n int) string { return strings.Repeat("[a]: /u\n[a] ", n/12) },
	"entities":          func(n int) string { return strings.Repeat("&amp;&#35;x", n/11) },
	"backslashes":       func(n int) string { return strings.Repeat("\\", n) },
	"table-columns":     func(n int) string { return strings.Repeat("|a", n/4) + "\n" + strings.Repeat("|-", n/4) + "\n" },
	"table-rows":        func(n int) string { return "|a|b|\n|-|-|\n" + strings.Repeat("|`x`|**y**|\n", n/12) },
	"deep-quotes":       func(n int) string { return strings.Repeat(strings.Repeat("> ", 16)+"a\n", n/33) },
	"deep-lists": func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			for d := 0; d < 16; d++ {
				b.WriteString(strings.Repeat("  ", d) + "- x\n")
			}
		}
		return b.String()
	},
	"too-deep-quotes": func(n int) string { return strings.Repeat(">", n) + " a\n" },
	"too-deep-lists":  func(n int) string { return strings.Repeat("- ", n/2) + "a\n" },
	"tags":            func(n int) string { return strings.Repeat("#tag @who ", n/10) },
	"hard-breaks":     func(n int) string { return strings.Repeat("a\\\n", n/3) },
	"one-long-line":   func(n int) string { return strings.Repeat("word ", n/5) },
	"html-block":      func(n int) string { return "<div>\n" + strings.Repeat("<p>x</p>\n", n/9) + "</div>\n" },
	"emphasis-nest":   func(n int) string { return strings.Repeat("*a **b ", n/14) + strings.Repeat(" c** d*", n/14) },
	"crossing-marks":  func(n int) string { return strings.Repeat("*a **b* c** ", n/12) },
	"paren-titles":    func(n int) string { return strings.Repeat("[a](b (", n/7) },
	"quote-titles":    func(n int) string { return "[a](b \"" + strings.Repeat("[a](b '", n/7) },
	"far-title":       func(n int) string { return strings.Repeat("[a](b \"", n/7) + "\"" },
	"pointy-dest":     func(n int) string { return strings.Repeat("[a](<b", n/6) + ">" },
	"ref-labels":      func(n int) string { return "[x]: /u\n\n" + strings.Repeat("[a][", n/4) },
	"image-openers":   func(n int) string { return strings.Repeat("![", n/2) },
	"comments":        func(n int) string { return strings.Repeat("a <!-- ", n/7) },
	"proc-instr":      func(n int) string { return strings.Repeat("a <? ", n/5) },
	"cdata":           func(n int) string { return strings.Repeat("a <![CDATA[ ", n/12) },
	"declarations":    func(n int) string { return strings.Repeat("a <!X ", n/6) },
	"lines-brackets":  func(n int) string { return strings.Repeat("[a]\n", n/4) },
	"heading-hashes":  func(n int) string { return "# " + strings.Repeat("#", n) + " x" },
	"underscores":     func(n int) string { return strings.Repeat("_a ", n/3) },
	"escaped-stars":   func(n int) string { return strings.Repeat("\\*a ", n/4) },
	"code-fences":     func(n int) string { return strings.Repeat("```\nx\n", n/6) },
	"lazy-quote":      func(n int) string { return "> a\n" + strings.Repeat("b\n", n/2) },
	"many-tags":       func(n int) string { return strings.Repeat("x #a_b_c_d ", n/11) },
	"blank-lines":     func(n int) string { return strings.Repeat("a\n\n", n/3) },

	// Output longer than the input (issue 11): a reference definition's
	// destination or title written at every use, merged uses of a long
	// destination (the Markdown stays short; each use was decoded again),
	// escapes, rows padded to a wide header, a link mark stored with every
	// piece of a link's text, lazy lines indented by 16 list markers.
	"ref-bomb": func(n int) string { return "[x]: /" + strings.Repeat("a", n/2) + "\n\n" + strings.Repeat("[x] ", n/8) },
	"ref-title-bomb": func(n int) string {
		return "[x]: /u \"" + strings.Repeat("t", n/2) + "\"\n\n" + strings.Repeat("[x] ", n/8)
	},
	"ref-merge": func(n int) string { return "[x]: /" + strings.Repeat("a", n/2) + "\n\n" + strings.Repeat("[x]", n/6) },
	"ref-alternate": func(n int) string {
		return "[x]: /" + strings.Repeat("a", n/4) + "\n[y]: /" + strings.Repeat("b", n/4) + "\n\n" + strings.Repeat("[x][y]", n/12)
	},
	"escape-growth":  func(n int) string { return strings.Repeat("**a ", n/4) },
	"images-as-text": func(n int) string { return strings.Repeat("![x] ", n/5) },
	"strike-growth":  func(n int) string { return strings.Repeat("~a~ ", n/4) },
	"table-padding": func(n int) string {
		return strings.Repeat("|a", n/8) + "\n" + strings.Repeat("|-", n/8) + "\n" + strings.Repeat("x\n", n/4)
	},
	"table-empty-rows": func(n int) string { return "|a|b|\n|-|-|\n" + strings.Repeat("|\n", n/2) },
	"link-pieces": func(n int) string {
		return "[" + strings.Repeat("*a*b", n/8) + "](/" + strings.Repeat("u", n/2) + ")"
	},
	"lazy-deep-list":   func(n int) string { return strings.Repeat("123456789. ", 16) + "a\n" + strings.Repeat("b\n", n/2) },
	"ordered-renumber": func(n int) string { return strings.Repeat("1) a\n", n/5) },
}

// parseRender is the codec's work for a request carrying content: Parse,
// the exact length check (a render) and, for an accepted input, Encode (the
// stored JSON) and Render.
func parseRender(s string) {
	if d, _, err := ParseCanonical(s); err == nil {
		_, _ = Encode(d)
		_ = Render(d)
	}
}

// costs returns the CPU cost of Parse+Render for a and for b: the least of a
// few interleaved runs, each on one locked thread with the garbage collector
// off, so that neither the collector's background work nor the rest of a
// shared machine lands in one measurement and not the other.
func costs(t *testing.T, a, b string) (ca, cb time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	ca, cb = time.Duration(1<<62), time.Duration(1<<62)
	for i := 0; i < 5; i++ {
		for k, s := range []string{a, b} {
			runtime.GC()
			start := threadCPU(t)
			parseRender(s)
			d := threadCPU(t) - start
			if k == 0 {
				ca = min(ca, d)
			} else {
				cb = min(cb, d)
			}
		}
	}
	return ca, cb
}

// TestLinearTime checks that Parse+Render cost grows linearly: for each
// pathological family, 8 times the input may cost at most 40 times as much
// CPU, well under what a quadratic cost gives (64). Linear families measure 8
// to about 20 (allocation and cache costs per byte grow with the heap).
// Before the linear inline parsers, six families measured 46 to 138. It
// measures the CPU time of its own thread (see costs), not wall time, so
// that a busy machine does not make it fail.
func TestLinearTime(t *testing.T) {
	if testing.Short() {
		t.Skip("measures CPU cost")
	}
	const small, factor = 12_500, 8
	for name, build := range pathological {
		a, b := build(small), build(small*factor)
		ta, tb := costs(t, a, b)
		ratio := float64(tb) / float64(max(ta, 50*time.Microsecond))
		t.Logf("%-22s %6d B %9v  %7d B %9v  ratio %.1f", name, len(a), ta, len(b), tb, ratio)
		if ratio > 5*factor {
			t.Errorf("%s: %d bytes took %v, %d bytes took %v (ratio %.1f)", name, len(a), ta, len(b), tb, ratio)
		}
	}
}

// allocated returns the bytes parseRender allocates for s: the least of
// three calls. The inline writer's buffers come from a sync.Pool, which a
// collection may have emptied before a call (then the call grows them
// again: rule-of-three's 100 KB allocated 27 MB with the pool's writer and
// 109 MB without, which made the ratio pass 40 about every other run).
func allocated(s string) uint64 {
	least := uint64(0)
	for i := 0; i < 3; i++ {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		parseRender(s)
		runtime.ReadMemStats(&m1)
		if n := m1.TotalAlloc - m0.TotalAlloc; i == 0 || n < least {
			least = n
		}
	}
	return least
}

// TestLinearMemory is the work count beside TestLinearTime: the bytes
// Parse, the length check and Render allocate (which do not depend on the
// machine's load) grow linearly for every pathological family, and stay
// under 4 KB per input byte (the most any family allocates is about 1.6 KB
// per byte). Before the length limit, the reference-link families built
// output of destination × uses bytes (a 40 KB note made 100 MB).
func TestLinearMemory(t *testing.T) {
	const small, factor = 12_500, 8
	for name, build := range pathological {
		a, b := build(small), build(small*factor)
		ma, mb := allocated(a), allocated(b)
		ratio := float64(mb) / float64(max(ma, 64<<10))
		t.Logf("%-22s %6d B %9d B  %7d B %10d B  ratio %.1f", name, len(a), ma, len(b), mb, ratio)
		if ratio > 5*factor || mb > 4096*uint64(len(b)) {
			t.Errorf("%s: %d bytes allocated %d, %d bytes allocated %d (ratio %.1f)", name, len(a), ma, len(b), mb, ratio)
		}
	}
}
