package markdown

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func loadTricky(tb testing.TB) map[string]string {
	tb.Helper()
	files, err := filepath.Glob("testdata/tricky/*.md")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no tricky cases: %v", err)
	}
	out := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".md")] = string(data)
	}
	return out
}

// TestTrickyCases runs every property, and the HTML oracle, over the
// hand-written cases.
func TestTrickyCases(t *testing.T) {
	cases := loadTricky(t)
	if len(cases) < 60 {
		t.Fatalf("only %d tricky cases", len(cases))
	}
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		s := cases[name]
		if msg := checkMarkdown(s); msg != "" {
			t.Errorf("%s: %q\n%s", name, s, msg)
		}
		if msg := checkOracle(s); msg != "" {
			t.Errorf("%s: oracle\n%s", name, msg)
		}
	}
}

// FuzzRoundTrip checks, for any Markdown string: no panic; a rejection is a
// well-formed *Error; an accepted input round-trips (Parse(Render(d)) == d,
// Render is a fixed point), keeps its text and tags, survives JSON; and,
// without "__", stock goldmark renders the same HTML for the input and its
// rendering (unless it holds a construct normalised on purpose).
func FuzzRoundTrip(f *testing.F) {
	for _, ex := range loadSpec(f) {
		f.Add(ex.Markdown)
	}
	cases := loadTricky(f)
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		f.Add(cases[name])
	}
	f.Fuzz(func(t *testing.T, s string) {
		if msg := checkMarkdown(s); msg != "" {
			t.Fatalf("input %q\n%s", s, msg)
		}
		if msg := checkOracle(s); msg != "" {
			t.Fatalf("%s", msg)
		}
	})
}

// FuzzRenderTree checks the semantic round trip on documents generated from
// the fuzzer's bytes: Render never panics, its output parses back to the
// canonical form of the document, renders to itself and keeps the tags.
func FuzzRenderTree(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b"))
	f.Add([]byte("tricky alphabet, marks and nesting: *_~`[]#@|\\<>&!-+=.:()"))
	f.Add([]byte("\x03\x03\x00\x01[ ] [x] task items\x03\x04\x00\x02"))
	for i := 0; i < 32; i++ {
		seed := make([]byte, 96)
		for j := range seed {
			seed[j] = byte(i*31 + j*17 + j*j)
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if msg := checkTree(genDoc(data)); msg != "" {
			t.Fatalf("%s", msg)
		}
	})
}
