package markdown_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"folio/platform/markdown"
)

var update = flag.Bool("update", false, "rewrite the expected files of TestGolden")

// TestGolden renders each testdata/golden/NAME.md and compares the result
// with NAME.golden.md, or the rejection with NAME.error. The pairs document
// the canonical form: open them side by side.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/golden/*.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, in := range inputs {
		if strings.HasSuffix(in, ".golden.md") {
			continue
		}
		n++
		base := strings.TrimSuffix(in, ".md")
		t.Run(filepath.Base(base), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := markdown.Parse(string(src))
			if want, rerr := os.ReadFile(base + ".error"); rerr == nil {
				if err == nil || !errors.Is(err, markdown.ErrInvalid) {
					t.Fatalf("Parse = %v, want the error %q", err, want)
				}
				if got := err.Error() + "\n"; got != string(want) {
					t.Errorf("error %q, want %q", got, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got := markdown.Render(doc)
			if *update {
				if err := os.WriteFile(base+".golden.md", []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(base + ".golden.md")
			if err != nil {
				t.Fatalf("missing expected output (run with -update and review): %v", err)
			}
			if got != string(want) {
				t.Errorf("Render(Parse(%s)) =\n%s\nwant\n%s", in, got, want)
			}
			// The expected output is itself canonical.
			again, err := markdown.Parse(got)
			if err != nil || markdown.Render(again) != got {
				t.Errorf("expected output is not a fixed point")
			}
		})
	}
	if n < 15 {
		t.Fatalf("only %d golden inputs", n)
	}
}
