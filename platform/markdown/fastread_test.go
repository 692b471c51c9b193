package markdown

import (
	"strings"
	"testing"
)

// TestFastPathCountsCharacters: countItems counts an ASCII block's text by
// its bytes (converter.asciiText) and any other by its characters. A count
// too high only makes the fast path give up (the budget passes the limit,
// and the full path counts again), which no output shows, so this test
// holds it: notes of non-ASCII text with more bytes than MaxLength but
// fewer characters, in paragraphs, headings, cells, emphasis and links,
// and after a reference, must be read by the fast path.
func TestFastPathCountsCharacters(t *testing.T) {
	words := map[string]string{
		"paragraph": "é ü 日本 😀\n",
		"heading":   "# é ü 日本 😀\n\n",
		"emphasis":  "*é* **ü** ~~日本~~ 😀\n",
		"link":      "[é ü 日本 ö ä ß](http://a/) 😀 日本\n",
		"reference": "&amp; é ü 日本 😀\n",
		"cell":      "| a |\n|---|\n| é ü 日本 😀 |\n\n",
	}
	for name, w := range words {
		n := runeCount(w)
		s := strings.Repeat(w, (MaxLength*8/10)/n)
		if len(s) <= MaxLength {
			t.Fatalf("%s: %d bytes, not past the limit", name, len(s))
		}
		before := fastTaken.Load()
		if _, err := Parse(s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if fastTaken.Load() == before {
			t.Errorf("%s: Parse did not take the fast path", name)
		}
	}
}
