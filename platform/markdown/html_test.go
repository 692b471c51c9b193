package markdown_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"folio/platform/markdown"
)

func TestHTML(t *testing.T) {
	links := markdown.HTMLLinks{
		Tag:           func(n string) string { return "/app/tags/" + n },
		Person:        func(n string) string { return "/app/people/" + n },
		HeadingOffset: 1,
	}
	for _, tc := range []struct{ name, in, want string }{
		{"heading moved down", "# Plan", "<h2>Plan</h2>\n"},
		{"marks", "**b** *i* ~~s~~ `c`", "<p><strong>b</strong> <em>i</em> <s>s</s> <code>c</code></p>\n"},
		{"tag and person", "Ask @mia about #q4", `<p>Ask <a class="person" href="/app/people/mia">@mia</a> about <a class="tag" href="/app/tags/q4">#q4</a></p>` + "\n"},
		{"text is escaped", `a <script>alert(1)</script> & "b"`, "<p>a &lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;b&#34;</p>\n"},
		{"safe link", "[site](https://example.com/?a=1&b=2)", `<p><a href="https://example.com/?a=1&amp;b=2" rel="noopener noreferrer">site</a></p>` + "\n"},
		{"decision callout", "> **Decision:** ship it", `<aside class="note-callout note-callout-decision" aria-label="Decision">` + "\n" + `<p class="note-callout-label">Decision</p>` + "\n<p>ship it</p>\n</aside>\n"},
		{"task list", "- [x] done\n- [ ] open", "<ul>\n<li class=\"task-item task-done\"><span class=\"task-box\" aria-hidden=\"true\">☑</span><span class=\"sr-only\">Done: </span>done</li>\n<li class=\"task-item\"><span class=\"task-box\" aria-hidden=\"true\">☐</span><span class=\"sr-only\">To do: </span>open</li>\n</ul>\n"},
		{"ordered from 3", "3. a\n4. b", "<ol start=\"3\">\n<li>a</li>\n<li>b</li>\n</ol>\n"},
		{"code block", "```go\nx := <a>\n```", "<pre><code class=\"language-go\">x := &lt;a&gt;\n</code></pre>\n"},
		{"table", "| a | b |\n| --- | --- |\n| 1 | 2 |", "<div class=\"table-scroll\"><table>\n<tr><th>a</th><th>b</th></tr>\n<tr><td>1</td><td>2</td></tr>\n</table></div>\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := markdown.Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := markdown.HTML(d, links); got != tc.want {
				t.Fatalf("HTML(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestHTMLScriptLink: Parse refuses a javascript: or data: link, and a stored document that has
// one anyway (an older or hand-made document) shows it as text.
func TestHTMLScriptLink(t *testing.T) {
	for _, href := range []string{"javascript:alert(1)", " JavaScript:alert(1)", "data:text/html,hi", "vbscript:x"} {
		d := markdown.Doc{Content: []markdown.Node{{Type: markdown.TypeParagraph, Content: []markdown.Node{
			{Type: markdown.TypeText, Text: "x", Marks: []markdown.Mark{{Type: markdown.MarkLink, Href: href}}},
		}}}}
		if got := markdown.HTML(d, markdown.HTMLLinks{}); got != "<p>x</p>\n" {
			t.Fatalf("a link to %q is written %q", href, got)
		}
	}
}

// TestHTMLNeverRaw writes every tricky and golden input as HTML: no element but the writer's own
// comes out, whatever the input held.
func TestHTMLNeverRaw(t *testing.T) {
	allowed := map[string]bool{}
	for _, e := range strings.Fields("p h1 h2 h3 h4 hr pre code ul ol li span blockquote aside div table tr th td a strong em s u br") {
		allowed[e] = true
	}
	tagRe := regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9]*)`)
	attrRe := regexp.MustCompile(`\s(on[a-z]+|style|src)=`)
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*.md"))
	if len(files) == 0 {
		t.Fatal("no test inputs found")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := markdown.Parse(string(src))
		if err != nil {
			continue
		}
		out := markdown.HTML(d, markdown.HTMLLinks{Tag: func(n string) string { return "/t/" + n }})
		for _, m := range tagRe.FindAllStringSubmatch(out, -1) {
			if !allowed[m[1]] {
				t.Fatalf("%s: element <%s> in the HTML:\n%s", f, m[1], out)
			}
		}
		if m := attrRe.FindString(out); m != "" {
			t.Fatalf("%s: attribute %q in the HTML", f, m)
		}
		if strings.Contains(strings.ToLower(out), `href="javascript`) {
			t.Fatalf("%s: a script link in the HTML", f)
		}
	}
}
