package markdown

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// lengthCases are inputs whose canonical Markdown is longer than the input
// (issue 11). parse: the phase that refuses them ("" accepted, "Parse" the
// early count, "check" the exact check of ParseCanonical); reason: a piece
// of the message.
var lengthCases = []struct {
	name, in  string
	refusedBy string
	reason    string
	line      int
}{
	{
		// 40,020 characters that were stored as a 100 MB document.
		name:      "reference-link bomb",
		in:        "[x]: /" + strings.Repeat("a", 20_000) + "\n\n" + strings.Repeat("[x] ", 5_000),
		refusedBy: "Parse", reason: "each use of a reference link", line: 3,
	},
	{
		name:      "reference title bomb",
		in:        "[x]: /u \"" + strings.Repeat("t", 20_000) + "\"\n\n" + strings.Repeat("[x] ", 5_000),
		refusedBy: "Parse", reason: "each use of a reference link", line: 3,
	},
	{
		// 98 KB whose Markdown stays short (adjacent uses merge into one
		// link): each use decoded the destination again, 1.3-3.2 s.
		name: "merged uses of a long destination",
		in:   "[x]: /" + strings.Repeat("a", 49_000) + "\n\n" + strings.Repeat("[x]", 16_000),
	},
	{
		// A row longer than the header widens the table (issue 20): every
		// row is padded to the longest one, which the pre-count counts.
		name:      "table padded to a long row",
		in:        "| a |\n|---|\n" + strings.Repeat("|b", 500) + "\n" + strings.Repeat("x\n", 1_000),
		refusedBy: "Parse", reason: "table", line: 1,
	},
	{
		name:      "table padded to a wide header",
		in:        strings.Repeat("|a", 500) + "\n" + strings.Repeat("|-", 500) + "\n" + strings.Repeat("x\n", 1_000),
		refusedBy: "Parse", reason: "rows are padded", line: 1,
	},
	{
		name:      "link mark stored with every piece of its text",
		in:        "[" + strings.Repeat("*a*b", 2_000) + "](/" + strings.Repeat("u", 10_000) + ")",
		refusedBy: "Parse", reason: "stored again with each differently formatted piece", line: 1,
	},
	{
		// read back as 149,999 characters, which PATCH then refused
		name:      "escaping growth",
		in:        strings.Repeat("**a ", 25_000),
		refusedBy: "check", reason: "would be 149,999 characters",
	},
	{
		name:      "images as text",
		in:        strings.Repeat("![x] ", 20_000),
		refusedBy: "check", reason: "would be 119,999 characters",
	},
	{
		name:      "strikethrough doubled",
		in:        strings.Repeat("~a~ ", 25_000),
		refusedBy: "check", reason: "would be 149,999 characters",
	},
	{
		name:      "intraword underscores escaped",
		in:        strings.Repeat("_a_b ", 20_000),
		refusedBy: "check", reason: "would be 119,999 characters",
	},
	{
		// nested emphasis reads back as it is: near the limit, accepted
		name: "nested emphasis within the limit",
		in:   strings.Repeat("*a **b c** d* ", 7_142),
	},
	{
		name:      "long table of empty rows",
		in:        "|a|b|\n|-|-|\n" + strings.Repeat("|\n", 49_000),
		refusedBy: "Parse", reason: "rows are padded", line: 1,
	},
	{
		name:      "long table",
		in:        "|a|b|\n|-|-|\n" + strings.Repeat("a|b\n", 24_000),
		refusedBy: "Parse", reason: "every table row writes", line: 1,
	},
	{
		name:      "lazy lines under 16 list markers",
		in:        strings.Repeat("123456789. ", 16) + "a\n" + strings.Repeat("b\n", 49_000),
		refusedBy: "check", reason: "would be more than 100,000 characters",
	},
	{
		name: "renumbered list within the limit",
		in:   strings.Repeat("1) a\n", 12_000),
	},
}

func TestLengthLimit(t *testing.T) {
	for _, tt := range lengthCases {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			var out string
			alloc := allocatedBy(func() { _, out, err = ParseCanonical(tt.in) })
			// the work count: no case may build what it expands to
			if alloc > 2048*uint64(len(tt.in)) {
				t.Errorf("ParseCanonical allocated %d bytes for %d bytes of input", alloc, len(tt.in))
			}
			_, perr := Parse(tt.in)
			switch tt.refusedBy {
			case "":
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if n := utf8.RuneCountInString(out); n > MaxLength {
					t.Fatalf("accepted with %d characters", n)
				}
				if msg := checkLength(tt.in); msg != "" {
					t.Fatal(msg)
				}
				return
			case "Parse":
				if perr == nil {
					t.Fatalf("Parse accepted it")
				}
			case "check":
				if perr != nil {
					t.Fatalf("Parse refused it: %v", perr)
				}
			}
			var e *Error
			if !errors.As(err, &e) || e.Construct != ConstructLength || !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseCanonical = %v, want a length error", err)
			}
			if e.Line != tt.line {
				t.Errorf("line %d, want %d (%v)", e.Line, tt.line, err)
			}
			if !strings.Contains(err.Error(), tt.reason) || !strings.Contains(err.Error(), "100,000") && !strings.Contains(err.Error(), "200,000") {
				t.Errorf("message %q does not say %q and the limit", err, tt.reason)
			}
			if msg := checkLength(tt.in); msg != "" {
				t.Fatal(msg)
			}
		})
	}
}

// allocatedBy is the bytes f allocates: the least of three calls. The count is
// the process's (MemStats.TotalAlloc), so a test running beside it, or the
// codec's pools refilling after a collection emptied them, add to one call
// (the strikethrough case once measured 262 MB against its usual 169 MB);
// the least of three is the work the input itself makes f do.
func allocatedBy(f func()) uint64 {
	least := uint64(0)
	for i := range 3 {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		f()
		runtime.ReadMemStats(&m1)
		if n := m1.TotalAlloc - m0.TotalAlloc; i == 0 || n < least {
			least = n
		}
	}
	return least
}

// TestLengthBoundary: documents right at the limit are accepted, one
// character more is refused, counted in characters (not bytes), and what is
// accepted is accepted again as it reads back.
func TestLengthBoundary(t *testing.T) {
	for _, unit := range []string{"a", "é", "😀"} {
		words := func(n int) string { // n characters of canonical Markdown
			var b strings.Builder
			for i := 0; i < n; i++ {
				if i%10 == 9 && i != n-1 {
					b.WriteByte(' ')
				} else {
					b.WriteString(unit)
				}
			}
			return b.String()
		}
		at, past := words(MaxLength), words(MaxLength+1)
		d, out, err := ParseCanonical(at + "\n")
		if err != nil {
			t.Fatalf("%s: %d characters refused: %v", unit, MaxLength, err)
		}
		if out != at || !docEqual(d, mustParseInternal(t, at)) {
			t.Fatalf("%s: read back differs", unit)
		}
		if msg := checkLength(at); msg != "" {
			t.Fatalf("%s: %s", unit, msg)
		}
		_, _, err = ParseCanonical(past)
		if err == nil || !strings.Contains(err.Error(), "would be 100,001 characters") && !strings.Contains(err.Error(), "at least 100,001") {
			t.Fatalf("%s: %d characters: %v", unit, MaxLength+1, err)
		}
	}
	// At the limit once escaped: 25,000 "*a" read back as "\*a" (74,999
	// characters with the spaces), and 33,333 "*ab " as 133,332.
	if _, _, err := ParseCanonical(strings.Repeat("*a ", 25_000)); err != nil {
		t.Fatalf("escaped within the limit: %v", err)
	}
	if msg := checkLength(strings.Repeat("*ab ", 33_333)); msg != "" {
		t.Fatal(msg)
	}
}

// TestLengthGrowthProperty runs the length property (checkLength) on the
// growth families at sizes around the point where their Markdown passes the
// limit, so that both sides of the boundary are checked.
func TestLengthGrowthProperty(t *testing.T) {
	for _, name := range []string{"escape-growth", "images-as-text", "table-empty-rows", "lazy-deep-list", "ordered-renumber", "ref-merge", "tags"} {
		build := pathological[name]
		for n := 60_000; n <= 100_000; n += 20_000 {
			if msg := checkLength(build(n)); msg != "" {
				t.Errorf("%s, %d bytes: %s", name, n, msg)
			}
		}
	}
}

func mustParseInternal(t *testing.T, s string) Doc {
	t.Helper()
	d, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

// TestRuneCount holds runeCount to utf8.RuneCountInString on ASCII,
// multi-byte and invalid UTF-8 at every alignment.
func TestRuneCount(t *testing.T) {
	parts := []string{"a", "abcdefgh", "é", "—", "😀", "\xff", "\xe2\x80", "\x80", " ", "xyzxyzxyzxyz"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for k := rng.IntN(12); k > 0; k-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		if got, want := runeCount(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("runeCount(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestRenderParsedCap holds renderParsed (ParseCanonical's render) to the
// canonicalising render it replaces at every cap: the same Markdown, or
// both give up. It gives up on the inline Markdown it counts as that
// render keeps it (a callout's first paragraph twice, every table cell), so
// a cap below the output's length tests the count, not only the output.
func TestRenderParsedCap(t *testing.T) {
	small, _ := BenchInputs(t)
	inputs := []string{
		small,
		"> **Why:** a *b*\n> c\n>\n> d\n\n> **Decision:** x\n\n| a | b |\n| - | - |\n|  | c |\n\n# h\n\n- [ ] t\n- [x] u\n",
		"> **Why:**\n>\n> - a\n\n##\n\n|a|\n|-|\n||\n",
		// One long last line: the output's cap is checked at line starts
		// only, so the count of kept Markdown decides.
		"> **Why:** " + strings.Repeat("a *b* ", 40),
		strings.Repeat("a *b* ", 40),
		"x\n\n|" + strings.Repeat(" a |", 40) + "\n|" + strings.Repeat("-|", 40) + "\n",
	}
	for _, in := range inputs {
		d, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		full := Render(d)
		for maxBytes := 1; maxBytes <= len(full)+2; maxBytes++ {
			out, ok := capped(func() string { return renderParsed(d, maxBytes) })
			want, wantOK := capped(func() string { return renderCanonical(d, maxBytes, true) })
			if out != want || ok != wantOK {
				t.Fatalf("cap %d: renderParsed gave up: %v, renderCanonical: %v (input %.40q)", maxBytes, !ok, !wantOK, in)
			}
		}
	}
}
