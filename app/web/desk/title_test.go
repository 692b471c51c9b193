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
		{"**b**  " + strings.Repeat("é", 5000), "b  " + strings.Repeat("é", 116) + "…"},                           // cut at 8 KB inside a character: it is dropped, the rest parses
		{strings.Repeat("w ", 1500) + "**bold** [x](https://e.example/a)\nnext", strings.Repeat("w ", 59) + "w…"}, // a first line over 2 KB is read whole
		{"[" + strings.Repeat("link ", 500) + "](https://e.example/" + strings.Repeat("a", 3000) + ")\n", strings.Repeat("link ", 23) + "link…"},
		{"| Name | Role |\n| --- | --- |\n| Ana | Lead |\n", "Name"}, // a table: its first header cell, as the items' label
		{"```go\nfmt.Println(1)\n```\n", "fmt.Println(1)"},
		{strings.Repeat("> ", 20) + "\n" + strings.Repeat(">", 20) + " too deep to parse\n", "too deep to parse"}, // block marks trimmed instead
	} {
		if got := title(tc.in); got != tc.want {
			t.Errorf("title(%.40q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
