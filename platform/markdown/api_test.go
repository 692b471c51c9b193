package markdown_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"folio/platform/markdown"
)

func mustParse(t *testing.T, s string) markdown.Doc {
	t.Helper()
	d, err := markdown.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return d
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name, in  string
		construct string
		line      int
	}{
		{"image", "a\n\nb ![alt](x.png)", markdown.ConstructImage, 3},
		{"image in link", "[![a](b)](c)", markdown.ConstructImage, 1},
		{"reference image", "![a][r]\n\n[r]: /x", markdown.ConstructImage, 1},
		{"javascript", "[x](javascript:alert(1))", markdown.ConstructScheme, 1},
		{"scheme case", "[x](JavaScript:alert(1))", markdown.ConstructScheme, 1},
		{"scheme hidden by tab", "[x](java&#9;script:x)", markdown.ConstructScheme, 1},
		{"data", "\n[x](data:text/html,hi)", markdown.ConstructScheme, 2},
		{"vbscript autolink", "<vbscript:x>", markdown.ConstructScheme, 1},
		{"file reference", "[x]\n\n[x]: file:///etc/passwd", markdown.ConstructScheme, 1},
		{"ftp", "[x](ftp://example.com)", markdown.ConstructScheme, 1},
		{"NUL", "a\nb\x00", markdown.ConstructNUL, 2},
		{"invalid UTF-8", "a\r\nb\r\n\xc3(", markdown.ConstructUTF8, 3},
		{"quotes 17 deep", strings.Repeat(">", 17) + " x", markdown.ConstructNesting, 1},
		{"lists 17 deep", listNest(17), markdown.ConstructNesting, 17},
		{"mixed 17 deep", "x\n\n" + strings.Repeat("> - ", 9), markdown.ConstructNesting, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := markdown.Parse(tt.in)
			if !errors.Is(err, markdown.ErrInvalid) {
				t.Fatalf("Parse = %v, want an ErrInvalid", err)
			}
			var e *markdown.Error
			if !errors.As(err, &e) {
				t.Fatalf("%T is not *markdown.Error", err)
			}
			if e.Construct != tt.construct || e.Line != tt.line {
				t.Errorf("got %s at line %d, want %s at line %d (%v)", e.Construct, e.Line, tt.construct, tt.line, err)
			}
			if !strings.Contains(err.Error(), "line") {
				t.Errorf("message %q does not name the line", err)
			}
		})
	}
}

// TestSchemeHint: a host and port written without a scheme reads as the
// scheme "localhost" (refused, by the contract); the message says how to
// write it.
func TestSchemeHint(t *testing.T) {
	for in, want := range map[string]string{
		"<localhost:3000>":                "write the scheme: http://localhost:3000",
		"[dev](localhost:8080/api)":       "write the scheme: http://localhost:8080/api",
		"[x]: example.com:443\n\nsee [x]": "write the scheme: http://example.com:443",
	} {
		_, err := markdown.Parse(in)
		var e *markdown.Error
		if !errors.As(err, &e) || e.Construct != markdown.ConstructScheme || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want a scheme error saying %q", in, err, want)
		}
	}
	for _, in := range []string{"[x](javascript:alert(1))", "<vbscript:x>", "[x](data:text/html,1)", "[x](tel:123-4)"} {
		if _, err := markdown.Parse(in); err == nil || strings.Contains(err.Error(), "write the scheme") {
			t.Errorf("Parse(%q) = %v, want a scheme error without a hint", in, err)
		}
	}
}

func listNest(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(strings.Repeat("  ", i) + "- x\n")
	}
	return b.String()
}

func TestParseAccepts(t *testing.T) {
	for _, in := range []string{
		"[ok](http://x.com) [ok](https://x.com) [ok](mailto:a@b.c) [ok](/rel) [ok](#frag) [ok](?q=1) [ok](x:)",
		strings.Repeat(">", 16) + " sixteen quotes",
		listNest(16),
		"```\n" + strings.Repeat("> ", 40) + "\n```",
		"    " + strings.Repeat("- ", 40),
		"<b>raw</b> <img src=x>",
	} {
		if _, err := markdown.Parse(in); err != nil && !strings.Contains(in, "x:") {
			t.Errorf("Parse(%.40q): %v", in, err)
		}
	}
}

// TestNestingCheckedFirst: the depth check runs before goldmark, so a huge
// nesting costs no more than reading it.
func TestNestingCheckedFirst(t *testing.T) {
	in := strings.Repeat("> ", 50_000) + "deep"
	start := time.Now()
	_, err := markdown.Parse(in)
	if !errors.Is(err, markdown.ErrInvalid) {
		t.Fatalf("Parse = %v", err)
	}
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("rejecting took %v", d)
	}
}

func TestTags(t *testing.T) {
	d := mustParse(t, "@Zoe #beta #Alpha @ana\n\n> **Decision:** #alpha @zoe @bob.\n\n`#code` [#link](/x) mail@x.com x.com/#frag #123 #a-1 @a.b.")
	want := []markdown.Tag{
		{Sigil: markdown.SigilTag, Name: "a-1"},
		{Sigil: markdown.SigilTag, Name: "Alpha"},
		{Sigil: markdown.SigilTag, Name: "beta"},
		{Sigil: markdown.SigilPerson, Name: "a.b"},
		{Sigil: markdown.SigilPerson, Name: "ana"},
		{Sigil: markdown.SigilPerson, Name: "bob"},
		{Sigil: markdown.SigilPerson, Name: "Zoe"},
	}
	if got := d.Tags(); !reflect.DeepEqual(got, want) {
		t.Errorf("Tags() = %v, want %v", got, want)
	}
	if len(mustParse(t, "nothing here").Tags()) != 0 {
		t.Error("tags from plain text")
	}
}

func TestHasDecision(t *testing.T) {
	for in, want := range map[string]bool{
		"> **Decision:** yes":        true,
		"- > **Decision:** nested":   true,
		"> **Why:** only why":        false,
		"> **decision:** lower case": false,
		"**Decision:** not quoted":   false,
		"> **Decision**: colon out":  false,
	} {
		if got := mustParse(t, in).HasDecision(); got != want {
			t.Errorf("HasDecision(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestStoredShape pins the JSON written to the database.
func TestStoredShape(t *testing.T) {
	d := mustParse(t, "## Hi *there* #tag\n\n3. [a](/x \"T\")\n\n> **Why:** `c`\n\n```go\nx\n```")
	data, err := markdown.Encode(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"doc","schemaVersion":2,"content":[` +
		`{"type":"heading","attrs":{"level":2},"content":[{"type":"text","text":"Hi "},{"type":"text","text":"there","marks":[{"type":"italic"}]},{"type":"text","text":" "},{"type":"tag","attrs":{"name":"tag"}}]},` +
		`{"type":"orderedList","attrs":{"start":3,"tight":true},"content":[{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"a","marks":[{"type":"link","attrs":{"href":"/x","title":"T"}}]}]}]}]},` +
		`{"type":"callout","attrs":{"kind":"why"},"content":[{"type":"paragraph","content":[{"type":"text","text":"c","marks":[{"type":"code"}]}]}]},` +
		`{"type":"codeBlock","attrs":{"language":"go"},"content":[{"type":"text","text":"x\n"}]}]}`
	if string(data) != want {
		t.Errorf("Encode =\n%s\nwant\n%s", data, want)
	}
	back, err := markdown.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if markdown.Render(back) != markdown.Render(d) {
		t.Error("Decode(Encode(d)) renders differently")
	}
}

// TestTaskList: GFM task-list items keep their checkbox (schema version 2):
// `- [ ]` and `- [x]` read back as written, the box is not text and holds
// no tags; a version 1 document (no checkbox) is still read.
func TestTaskList(t *testing.T) {
	in := "- [ ] send the deck #q3\n- [x] book the room\n- plain @ann\n\n1. [X] ordered\n   - [ ] nested"
	d := mustParse(t, in)
	want := "- [ ] send the deck #q3\n- [x] book the room\n- plain @ann\n\n1. [x] ordered\n   - [ ] nested\n"
	if got := markdown.Render(d); got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	if got := d.Content[0].Content[0].Attrs.Task; got != markdown.TaskOpen {
		t.Errorf("first item %v, want TaskOpen", got)
	}
	if got := d.Content[0].Content[1].Attrs.Task; got != markdown.TaskDone {
		t.Errorf("second item %v, want TaskDone", got)
	}
	if got := d.Content[0].Content[2].Attrs.Task; got != markdown.TaskNone {
		t.Errorf("third item %v, want TaskNone", got)
	}
	if got, want := d.Text(), "send the deck #q3\nbook the room\nplain @ann\nordered\nnested\n"; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	if got := fmt.Sprint(d.Tags()); got != "[{TAG q3} {PERSON ann}]" {
		t.Errorf("Tags() = %s", got)
	}
	data, err := markdown.Encode(mustParse(t, "- [ ] a\n- [x] b\n- c"))
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{"type":"doc","schemaVersion":2,"content":[{"type":"bulletList","attrs":{"tight":true},"content":[` +
		`{"type":"listItem","attrs":{"checked":false},"content":[{"type":"paragraph","content":[{"type":"text","text":"a"}]}]},` +
		`{"type":"listItem","attrs":{"checked":true},"content":[{"type":"paragraph","content":[{"type":"text","text":"b"}]}]},` +
		`{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"c"}]}]}]}]}`
	if string(data) != wantJSON {
		t.Errorf("Encode =\n%s\nwant\n%s", data, wantJSON)
	}
	// A document stored before task lists (schema version 1) is read as it was.
	v1 := `{"type":"doc","schemaVersion":1,"content":[{"type":"bulletList","attrs":{"tight":true},"content":[` +
		`{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"[ ] a"}]}]}]}]}`
	old, err := markdown.Decode([]byte(v1))
	if err != nil {
		t.Fatalf("Decode(version 1) = %v", err)
	}
	if got := markdown.Render(old); got != "- \\[ \\] a\n" {
		t.Errorf("version 1 document renders %q", got)
	}
	// The box with nothing after it is kept as text.
	if got := markdown.Render(mustParse(t, "- [ ]\n- [x]")); got != "- \\[ \\]\n- \\[x\\]\n" {
		t.Errorf("empty task items render %q", got)
	}
}

func TestDecodeRejects(t *testing.T) {
	for _, in := range []string{
		`{"type":"doc","schemaVersion":3,"content":[]}`,
		`{"type":"doc","schemaVersion":0,"content":[]}`,
		`{"type":"paragraph"}`,
		`{"type":"doc","schemaVersion":1,"content":[{"type":"heading","attrs":{"level":4}}]}`,
		// 257 would be 1 if the level were narrowed before it is checked.
		`{"type":"doc","schemaVersion":1,"content":[{"type":"heading","attrs":{"level":257},"content":[{"type":"text","text":"x"}]}]}`,
		`{"type":"doc","schemaVersion":1,"content":[{"type":"paragraph","content":[{"type":"tag","attrs":{"name":""}}]}]}`,
		`{"type":"doc","schemaVersion":1,"content":[{"type":"paragraph","content":[{"type":"tag","text":"named-by-text"}]}]}`,
		`{"type":"doc","schemaVersion":1,"content":[{"type":"text","text":"loose"}]}`,
		`{"type":"doc","schemaVersion":1,"content":[{"type":"paragraph","content":[{"type":"tag","attrs":{"name":"a b"}}]}]}`,
		`{"type":"doc","schemaVersion":1,"content":[{"type":"paragraph","content":[{"type":"text","text":"x","marks":[{"type":"link","attrs":{"href":"javascript:x"}}]}]}]}`,
		`{"type":"doc","schemaVersion":1,"content":[{"type":"callout","attrs":{"kind":"maybe"}}]}`,
		`not json`,
	} {
		if _, err := markdown.Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%s) accepted", in)
		}
	}
}

func TestText(t *testing.T) {
	d := mustParse(t, "# T\n\n> **Why:** because *so*\n\n- a #x\n- `b`")
	want := "T\nWhy: because so\na #x\nb\n"
	if got := d.Text(); got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
}

// TestNormalisations covers CONTRACT.md section 4's list.
func TestNormalisations(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"h4 to h3", "#### x", "### x\n"},
		{"h6 to h3", "###### x", "### x\n"},
		{"setext", "x\n===", "# x\n"},
		{"indented code", "    x", "```\nx\n```\n"},
		{"bullets", "* a\n* b", "- a\n- b\n"},
		{"plus bullets", "+ a", "- a\n"},
		{"paren markers", "1) a\n2) b", "1. a\n2. b\n"},
		{"reference link", "[a][r]\n\n[r]: /u", "[a](/u)\n"},
		{"alignment dropped", "|a|\n|:-:|", "| a |\n| --- |\n"},
		{"raw HTML literal", "<i>x</i>", "\\<i>x\\</i>\n"},
		{"CRLF", "a\r\nb\r\n", "a\nb\n"},
		{"lone CR", "a\rb", "a\nb\n"},
		{"BOM", "\ufeffa", "a\n"},
		{"underscore italic", "_a_", "*a*\n"},
		{"underline", "__a__", "__a__\n"},
		{"strong with stars", "**a**", "**a**\n"},
		{"entities decoded", "&copy; &#169; &amp;", "© © &\n"},
		{"hard break", "a  \nb", "a\\\nb\n"},
		{"callout spacing", "> **Why:**   x", "> **Why:** x\n"},
		{"empty", "", ""},
		{"blank", "\n\n   \n", ""},
	} {
		d := mustParse(t, tt.in)
		if got := markdown.Render(d); got != tt.want {
			t.Errorf("%s: Render(Parse(%q)) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

// TestRenderBuiltDoc renders a document built in code, as an editor might
// send it, including what Markdown cannot say directly.
func TestRenderBuiltDoc(t *testing.T) {
	d := markdown.Doc{Content: []markdown.Node{
		{Type: markdown.TypeParagraph, Content: []markdown.Node{
			{Type: markdown.TypeText, Text: "# not a heading, "},
			{Type: markdown.TypeText, Text: "bold ", Marks: []markdown.Mark{{Type: markdown.MarkBold}}},
			{Type: markdown.TypeText, Text: "and a literal #tag and "},
			{Type: markdown.TypeTag, Text: "real"},
		}},
		{Type: markdown.TypeCallout, Attrs: markdown.Attrs{Label: markdown.CalloutDecision}, Content: []markdown.Node{
			{Type: markdown.TypeParagraph, Content: []markdown.Node{{Type: markdown.TypeText, Text: "go"}}},
		}},
	}}
	want := "\\# not a heading, **bold** and a literal \\#tag and #real\n\n> **Decision:** go\n"
	if got := markdown.Render(d); got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	back := mustParse(t, want)
	if !reflect.DeepEqual(back.Tags(), []markdown.Tag{{Sigil: markdown.SigilTag, Name: "real"}}) || !back.HasDecision() {
		t.Errorf("tags %v, decision %v", back.Tags(), back.HasDecision())
	}
	var j any
	data, _ := markdown.Encode(back)
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatal(err)
	}
}
