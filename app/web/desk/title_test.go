package desk

import (
	"strings"
	"testing"
)

// TestTitle: a note is named by the text a reader sees on its first line, not by its Markdown.
func TestTitle(t *testing.T) {
	long := strings.Repeat("word ", 30)
	for _, tc := range []struct{ in, want string }{
		{"Hiring plan\n\nOpen two roles.", "Hiring plan"},
		{"## **Q3** plan for \\#hiring [board](https://x.example/b)\n\nMore.", "Q3 plan for #hiring board"},
		{"#q3 planning with @sam\n", "#q3 planning with @sam"},
		{"> **Decision:** hire *one* senior\n", "Decision: hire one senior"},
		{"- [ ] call `Ana` back\n- second\n", "call Ana back"},
		{"---\n\nAfter the rule\n", "After the rule"},
		{"\n\n   \n", "(empty note)"},
		{"", "(empty note)"},
		{"a &lt; b &amp; c\n", "a < b & c"},
		{long, strings.TrimSpace(long)[:119] + "…"},
		{strings.Repeat("é", 3000), strings.Repeat("é", 119) + "…"},
		{"First line\n" + strings.Repeat("x", 5000), "First line"},
	} {
		if got := title(tc.in); got != tc.want {
			t.Errorf("title(%.40q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
