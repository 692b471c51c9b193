package markdown

import (
	"encoding/json"
	"os"
	"testing"
)

type specExample struct {
	Example  int    `json:"example"`
	Section  string `json:"section"`
	Markdown string `json:"markdown"`
}

func loadSpec(tb testing.TB) []specExample {
	tb.Helper()
	data, err := os.ReadFile("testdata/commonmark-spec.json")
	if err != nil {
		tb.Fatal(err)
	}
	var ex []specExample
	if err := json.Unmarshal(data, &ex); err != nil {
		tb.Fatal(err)
	}
	return ex
}

// TestCommonMarkExamples runs every property over the spec's examples.
func TestCommonMarkExamples(t *testing.T) {
	for _, ex := range loadSpec(t) {
		if msg := checkMarkdown(ex.Markdown); msg != "" {
			t.Errorf("example %d (%s): %q\n%s", ex.Example, ex.Section, ex.Markdown, msg)
		}
	}
}

// TestCommonMarkOracle compares stock goldmark's HTML of each example with
// that of its rendering, where the codec does not change the HTML on purpose.
func TestCommonMarkOracle(t *testing.T) {
	for _, ex := range loadSpec(t) {
		if msg := checkOracle(ex.Markdown); msg != "" {
			t.Errorf("example %d (%s):\n%s", ex.Example, ex.Section, msg)
		}
	}
}
