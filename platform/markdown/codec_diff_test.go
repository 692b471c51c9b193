package markdown

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The former decoder (before the one-pass Decode), kept as the reference
// that Decode must match on every input: json.Unmarshal through
// UnmarshalJSON methods that each call json.Unmarshal again. Its types wrap
// the model's so that the model's own UnmarshalJSON methods (now the new
// decoder's) are not used.

func legacyDecode(data []byte) (Doc, error) {
	var d legacyDoc
	if err := json.Unmarshal(data, &d); err != nil {
		return Doc{}, fmt.Errorf("decode markdown document: %w", err)
	}
	if err := Validate(d.doc); err != nil {
		return Doc{}, fmt.Errorf("decode markdown document: %w", err)
	}
	return d.doc, nil
}

type legacyDoc struct{ doc Doc }

type legacyNode struct{ node Node }

type legacyMark struct{ mark Mark }

type legacyAttrs struct {
	Level    *int32  `json:"level,omitempty"`
	Start    *int32  `json:"start,omitempty"`
	Tight    *bool   `json:"tight,omitempty"`
	Kind     string  `json:"kind,omitempty"`
	Language *string `json:"language,omitempty"`
	Name     string  `json:"name,omitempty"`
	Href     *string `json:"href,omitempty"`
	Title    string  `json:"title,omitempty"`
	Checked  *bool   `json:"checked,omitempty"`
}

// mapSlice converts each element, keeping a nil slice nil and an empty one
// empty (the decoders tell them apart).
func mapSlice[T, U any](in []T, convert func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i := range in {
		out[i] = convert(in[i])
	}
	return out
}

func unwrapNode(l legacyNode) Node { return l.node }
func unwrapMark(l legacyMark) Mark { return l.mark }
func wrapNode(n Node) legacyNode   { return legacyNode{n} }
func wrapMark(m Mark) legacyMark   { return legacyMark{m} }

func (d *legacyDoc) UnmarshalJSON(data []byte) error {
	var j struct {
		Type          string       `json:"type"`
		SchemaVersion int          `json:"schemaVersion"`
		Content       []legacyNode `json:"content"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	if j.Type != "doc" {
		return fmt.Errorf("root type %q, want doc", j.Type)
	}
	if j.SchemaVersion < 1 || j.SchemaVersion > SchemaVersion {
		return fmt.Errorf("unsupported schema version %d", j.SchemaVersion)
	}
	d.doc.Content = mapSlice(j.Content, unwrapNode)
	return nil
}

func (l *legacyNode) UnmarshalJSON(data []byte) error {
	var j struct {
		Type    NodeType     `json:"type"`
		Attrs   *legacyAttrs `json:"attrs,omitempty"`
		Content []legacyNode `json:"content,omitempty"`
		Text    *string      `json:"text,omitempty"`
		Marks   []legacyMark `json:"marks,omitempty"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	l.node = Node{Type: j.Type, Content: mapSlice(j.Content, unwrapNode), Marks: mapSlice(j.Marks, unwrapMark)}
	n := &l.node
	if j.Text != nil && n.Type == TypeText {
		n.Text = *j.Text
	}
	if a := j.Attrs; a != nil {
		if a.Level != nil && n.Type == TypeHeading {
			if *a.Level < 1 || *a.Level > 3 {
				return docErr("heading level %d", *a.Level)
			}
			n.Attrs.Level = uint8(*a.Level)
		}
		if a.Start != nil {
			n.Attrs.Start = *a.Start
		}
		if a.Tight != nil {
			n.Attrs.Tight = *a.Tight
		}
		n.Attrs.Label = calloutLabelOf(a.Kind)
		if n.Type == TypeCallout && a.Kind != "" && n.Attrs.Label == calloutUnknown {
			return fmt.Errorf("unknown callout kind %q", a.Kind)
		}
		if a.Language != nil {
			n.Attrs.Language = *a.Language
		}
		if n.Type == TypeTag || n.Type == TypeMention {
			n.Text = a.Name
		}
		if a.Checked != nil && n.Type == TypeListItem {
			n.Attrs.Task = TaskOpen
			if *a.Checked {
				n.Attrs.Task = TaskDone
			}
		}
	}
	if n.Type == TypeOrderedList && (j.Attrs == nil || j.Attrs.Start == nil) {
		n.Attrs.Start = 1
	}
	if n.Type == TypeCodeBlock {
		var b strings.Builder
		for _, c := range n.Content {
			if c.Type != TypeText {
				return fmt.Errorf("codeBlock holds a %q node", c.Type)
			}
			b.WriteString(c.Text)
		}
		n.Text = b.String()
		n.Content = nil
	}
	return nil
}

func (l *legacyMark) UnmarshalJSON(data []byte) error {
	var j struct {
		Type  MarkType     `json:"type"`
		Attrs *legacyAttrs `json:"attrs"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	l.mark = Mark{Type: j.Type}
	if j.Attrs != nil {
		if j.Attrs.Href != nil {
			l.mark.Href = *j.Attrs.Href
		}
		l.mark.Title = j.Attrs.Title
	}
	return nil
}

// decodeQuirks are stored forms that exercise encoding/json's rules (and
// the former decoder's) beyond what Encode writes: each is decoded by both
// decoders. Many are accepted; the rest must be rejected by both.
var decodeQuirks = []string{
	// Case-insensitive keys, Unicode folding (K is U+212A, ſ is U+017F), escaped keys.
	`{"TYPE":"doc","SchemaVersion":2,"Content":[{"Type":"heading","ATTRS":{"LEVEL":2},"CONTENT":[{"tYpE":"text","TEXT":"x"}]}]}`,
	`{"type":"doc","\u017fchemaVer\u017fion":2,"content":[{"type":"callout","attrs":{"\u212aind":"why"},"content":[{"type":"paragraph","content":[{"type":"text","text":"x"}]}]}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"t\u0079pe":"paragraph","c\u006fntent":[{"type":"text","text":"x"}]}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"paragraph","content":[{"type":"text","text":"x","marks":[{"TYPE":"link","ATTRS":{"HREF":"/a","TITLE":"t"}}]}]}]}`,
	// A type name is matched exactly: no folding.
	`{"type":"doc","schemaVersion":2,"content":[{"type":"Paragraph"}]}`,
	`{"type":"Doc","schemaVersion":2,"content":[]}`,
	`{"type":"d\u006fc","schemaVersion":2,"content":[{"type":"p\u0061ragraph","content":[{"type":"text","text":"\u00e9\ud83d\ude00\ud800x\"\\\/\b\f\n\r\t"}]}]}`,
	// Repeated keys: the last wins; a repeated attrs object adds to the first.
	`{"type":"doc","schemaVersion":2,"schemaVersion":1,"content":[{"type":"paragraph"}],"content":[]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"orderedList","attrs":{"start":4},"attrs":{"tight":true},"content":[{"type":"listItem","content":[]}]}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"orderedList","attrs":{"start":4},"attrs":null,"attrs":{"tight":true},"content":[{"type":"listItem"}]}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"heading","attrs":{"level":9},"type":"paragraph"}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"bogus","type":"paragraph"}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"paragraph","content":[{"type":"text","text":"a","marks":[{"type":"bold"},{"type":"italic"}],"marks":[{"type":"code"}]}]}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"paragraph","content":[{"type":"text","text":"a"},{"type":"text","text":"b","marks":[{"type":"bold"}]}],"content":[{"type":"text","text":"c"}]}]}`,
	// Null: clears pointers and slices, leaves strings and numbers.
	`{"type":"doc","schemaVersion":2,"schemaVersion":null,"type":null,"content":null}`,
	`{"type":"doc","schemaVersion":2,"content":[null]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"paragraph","type":null,"content":null,"marks":null,"attrs":null,"text":null}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"callout","attrs":{"kind":"why","kind":null},"content":[]}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"orderedList","attrs":{"start":null},"content":[{"type":"listItem","attrs":{"checked":null}}]}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"paragraph","content":[{"type":"text","text":"x","text":null}]}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"paragraph","marks":[null,{"type":"nope"}],"content":[{"type":"text","text":"x","marks":[null]}]}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"codeBlock","attrs":{"language":null},"content":[{"type":"text","text":"a"},{"type":"text","text":"b","content":[null,{"type":"paragraph"}]}]}]}`,
	// Unknown keys and attributes of other types are ignored or kept as the former decoder kept them.
	`{"type":"doc","schemaVersion":2,"extra":{"a":[1,2,{"b":null}]},"content":[{"type":"paragraph","attrs":{"start":7,"tight":true,"kind":"maybe","language":"go","name":"n","checked":true,"href":"h","title":"t","other":[]},"marks":[{"type":"bold","attrs":{"level":2}}],"content":[{"type":"text","text":"x","attrs":{"level":2}}]}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"paragraph","content":[{"type":"tag","text":"ignored","attrs":{"name":"ok"}},{"type":"mention","attrs":{"name":"ann","name":"bob"}}]}]}`,
	// Numbers: integers only, within range.
	`{"type":"doc","schemaVersion":2.0,"content":[]}`,
	`{"type":"doc","schemaVersion":2e0,"content":[]}`,
	`{"type":"doc","schemaVersion":-0,"content":[]}`,
	`{"type":"doc","schemaVersion":99999999999999999999,"content":[]}`,
	`{"type":"doc","schemaVersion":1,"content":[{"type":"heading","attrs":{"level":4294967298},"content":[{"type":"text","text":"x"}]}]}`,
	`{"type":"doc","schemaVersion":1,"content":[{"type":"paragraph","attrs":{"level":4294967298},"content":[{"type":"text","text":"x"}]}]}`,
	`{"type":"doc","schemaVersion":1,"content":[{"type":"paragraph","attrs":{"level":1.5},"content":[{"type":"text","text":"x"}]}]}`,
	`{"type":"doc","schemaVersion":1,"content":[{"type":"orderedList","attrs":{"start":-1},"content":[{"type":"listItem"}]}]}`,
	`{"type":"doc","schemaVersion":1,"content":[{"type":"orderedList","attrs":{"start":2147483648},"content":[{"type":"listItem"}]}]}`,
	// Wrong kinds of values.
	`{"type":"doc","schemaVersion":"2","content":[]}`,
	`{"type":"doc","schemaVersion":2,"content":{}}`,
	`{"type":"doc","schemaVersion":2,"content":[1]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":1}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"paragraph","attrs":[]}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"bulletList","attrs":{"tight":"yes"},"content":[{"type":"listItem"}]}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"paragraph","content":[{"type":"text","text":5}]}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"paragraph","marks":[1]}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"paragraph","marks":[{"type":true}]}]}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"paragraph","marks":{}}]}`,
	`{"type":["doc"],"schemaVersion":2,"content":[]}`,
	// Roots that are not documents, and malformed JSON.
	`null`, `[]`, `"doc"`, `2`, `true`, ``, ` `, `{`, `{"type":"doc","schemaVersion":2,"content":[]} x`,
	" \t\n{\"type\":\"doc\",\"schemaVersion\":2,\"content\":[]}\r\n",
	`{"type":"doc","schemaVersion":2,"content":[],}`,
	`{"type":"doc","schemaVersion":2,"content":[{"type":"paragraph","content":[{"type":"text","text":"\x"}]}]}`,
	"{\"type\":\"doc\",\"schemaVersion\":2,\"content\":[{\"type\":\"paragraph\",\"content\":[{\"type\":\"text\",\"text\":\"\xff\xfe bad UTF-8\"}]}]}",
	"{\"type\":\"doc\",\"schemaVersion\":2,\"content\":[{\"type\":\"paragraph\",\"\xff\":1}]}",
}

// decodeCorpus is the stored form of every Markdown document the package's
// tests hold (golden inputs, tricky cases, CommonMark examples, the
// benchmark note), with the quirks above.
func decodeCorpus(tb testing.TB) [][]byte {
	tb.Helper()
	var sources []string
	golden, err := filepath.Glob("testdata/golden/*.md")
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range append(golden, "testdata/bench/meeting-note.md") {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		sources = append(sources, string(data))
	}
	tricky := loadTricky(tb)
	for _, name := range slices.Sorted(maps.Keys(tricky)) {
		sources = append(sources, tricky[name])
	}
	for _, ex := range loadSpec(tb) {
		sources = append(sources, ex.Markdown)
	}
	var out [][]byte
	for _, src := range sources {
		d, err := Parse(src)
		if err != nil {
			continue
		}
		data, err := Encode(d)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, data)
	}
	for _, q := range decodeQuirks {
		out = append(out, []byte(q))
	}
	return out
}

// checkDecodeSame compares Decode with the former decoder on data.
func checkDecodeSame(data []byte) string {
	got, err := Decode(data)
	want, wantErr := legacyDecode(data)
	if (err == nil) != (wantErr == nil) {
		return fmt.Sprintf("Decode(%q) error %v, former decoder's %v", data, err, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("Decode(%q) =\n%#v\nformer decoder's\n%#v", data, got, want)
	}
	return ""
}

// TestDecodeMatchesLegacy: Decode gives the former decoder's Doc, or
// rejects as it does, on every stored form of the corpus and on the quirks.
func TestDecodeMatchesLegacy(t *testing.T) {
	corpus := decodeCorpus(t)
	accepted, rejected := 0, 0
	for _, data := range corpus {
		if msg := checkDecodeSame(data); msg != "" {
			t.Error(msg)
		}
		if _, err := Decode(data); err == nil {
			accepted++
		} else {
			rejected++
		}
	}
	t.Logf("%d documents: %d accepted, %d rejected by both decoders", len(corpus), accepted, rejected)
	if accepted < 500 || rejected < 30 {
		t.Errorf("corpus too small: %d accepted, %d rejected", accepted, rejected)
	}
}

// FuzzDecodeLegacy mutates the stored corpus: Decode must never panic and
// must agree with the former decoder on every input.
func FuzzDecodeLegacy(f *testing.F) {
	for _, data := range decodeCorpus(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if msg := checkDecodeSame(data); msg != "" {
			t.Fatal(msg)
		}
	})
}

// SeedNote is the load test's seed note (tests/load/seed_test.go
// seedMarkdown, about 500 bytes): the document that a render cache miss
// decodes. (Exported for the benchmarks of package markdown_test.)
const SeedNote = "## Weekly sync with the platform team\n\n" +
	"Discussed the **Q3 roadmap** with @alice and @bob. Key points:\n\n" +
	"- Migrate the billing service to the new queue\n" +
	"- Review the *on-call* rotation before the next release\n" +
	"- Budget for load testing (`k6` or our own harness)\n\n" +
	"> **Decision:** ship the new pagination behind a flag first.\n\n" +
	"Follow-up next week with the [design doc](https://example.com/design). #roadmap #meeting"

// BenchmarkCodecVsLegacy runs Decode and Encode and the former decoder
// and encoder on the same documents in one run, so that both see the same
// machine load: the load test's seed note (tests/load/seed_test.go) and the
// 5 KB meeting note.
func BenchmarkCodecVsLegacy(b *testing.B) {
	note, err := os.ReadFile("testdata/bench/meeting-note.md")
	if err != nil {
		b.Fatal(err)
	}
	for _, in := range []struct{ name, src string }{{"seed", SeedNote}, {"5KB", string(note)}} {
		d, err := Parse(in.src)
		if err != nil {
			b.Fatal(err)
		}
		data, err := Encode(d)
		if err != nil {
			b.Fatal(err)
		}
		for _, codec := range []struct {
			name   string
			decode func([]byte) (Doc, error)
			encode func(Doc) ([]byte, error)
		}{{"new", Decode, Encode}, {"legacy", legacyDecode, legacyEncode}} {
			b.Run("decode/"+in.name+"/"+codec.name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := codec.decode(data); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("encode/"+in.name+"/"+codec.name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := codec.encode(d); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestUnmarshalJSONMatchesLegacy: json.Unmarshal into a Doc (Decode without
// Validate) also matches the former decoder.
func TestUnmarshalJSONMatchesLegacy(t *testing.T) {
	for _, data := range decodeCorpus(t) {
		var got Doc
		var want legacyDoc
		err, wantErr := json.Unmarshal(data, &got), json.Unmarshal(data, &want)
		if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want.doc) {
			t.Errorf("json.Unmarshal(%q): %v, %#v; former: %v, %#v", data, err, got, wantErr, want.doc)
		}
	}
}

// The former encoder (before the one-pass Encode): json.Marshal through
// MarshalJSON methods that each call json.Marshal again.

func legacyEncode(d Doc) ([]byte, error) {
	content := mapSlice(d.Content, wrapNode)
	if content == nil {
		content = []legacyNode{}
	}
	return json.Marshal(struct {
		Type          string       `json:"type"`
		SchemaVersion int          `json:"schemaVersion"`
		Content       []legacyNode `json:"content"`
	}{Type: "doc", SchemaVersion: SchemaVersion, Content: content})
}

func (l legacyNode) MarshalJSON() ([]byte, error) {
	n := l.node
	j := struct {
		Type    NodeType     `json:"type"`
		Attrs   *legacyAttrs `json:"attrs,omitempty"`
		Content []legacyNode `json:"content,omitempty"`
		Text    *string      `json:"text,omitempty"`
		Marks   []legacyMark `json:"marks,omitempty"`
	}{Type: n.Type, Content: mapSlice(n.Content, wrapNode), Marks: mapSlice(n.Marks, wrapMark)}
	switch n.Type {
	case TypeHeading:
		level := int32(n.Attrs.Level)
		j.Attrs = &legacyAttrs{Level: &level}
	case TypeOrderedList:
		j.Attrs = &legacyAttrs{Start: &n.Attrs.Start, Tight: &n.Attrs.Tight}
	case TypeBulletList:
		j.Attrs = &legacyAttrs{Tight: &n.Attrs.Tight}
	case TypeCallout:
		j.Attrs = &legacyAttrs{Kind: n.Attrs.Label.String()}
	case TypeCodeBlock:
		j.Attrs = &legacyAttrs{Language: &n.Attrs.Language}
	case TypeTag, TypeMention:
		j.Attrs = &legacyAttrs{Name: n.Text}
	case TypeListItem:
		if n.Attrs.Task != TaskNone {
			checked := n.Attrs.Task == TaskDone
			j.Attrs = &legacyAttrs{Checked: &checked}
		}
	case TypeText:
		j.Text = &n.Text
	}
	if n.Type == TypeCodeBlock && n.Text != "" {
		j.Content = []legacyNode{{Node{Type: TypeText, Text: n.Text}}}
	}
	return json.Marshal(j)
}

func (l legacyMark) MarshalJSON() ([]byte, error) {
	m := l.mark
	var buf []byte
	buf = append(buf, `{"type":`...)
	t, err := json.Marshal(string(m.Type))
	if err != nil {
		return nil, err
	}
	buf = append(buf, t...)
	if m.Type == MarkLink {
		a, err := json.Marshal(legacyAttrs{Href: &m.Href, Title: m.Title})
		if err != nil {
			return nil, err
		}
		buf = append(buf, `,"attrs":`...)
		buf = append(buf, a...)
	}
	return append(buf, '}'), nil
}

// wildDoc builds a document from bytes with no regard for the schema: any
// node type (unknown ones too), any attribute values, strings of any bytes
// (invalid UTF-8, control and HTML characters, U+2028), marks anywhere,
// code blocks with children. Encode must write what the former encoder
// wrote for all of it, or fail where it failed.
func wildDoc(data []byte) Doc {
	w := &wild{data: data}
	return Doc{Content: w.nodes(0)}
}

type wild struct {
	data []byte
	pos  int
}

func (w *wild) byte() byte {
	if w.pos >= len(w.data) {
		return 0
	}
	w.pos++
	return w.data[w.pos-1]
}

var wildStrings = []string{"", "x", "a\"b\\c", "<&>", "\x00\x01\b\f\n\r\t\x1f\x7f", "\u2028\u2029", "é😀", "\xff\xfe", "doc"}

func (w *wild) string() string {
	b := w.byte()
	if b < 0x80 {
		return wildStrings[int(b)%len(wildStrings)]
	}
	n := int(b & 7)
	start := min(w.pos, len(w.data))
	end := min(start+n, len(w.data))
	w.pos = end
	return string(w.data[start:end])
}

func (w *wild) nodes(depth int) []Node {
	count := int(w.byte() % 4)
	if depth > 3 {
		count = 0
	}
	if count == 0 {
		if w.byte()%2 == 0 {
			return nil
		}
		return []Node{}
	}
	out := make([]Node, count)
	for i := range out {
		n := &out[i]
		n.Type = NodeType(w.byte() % 20)
		n.Attrs = Attrs{Start: int32(int8(w.byte())) * 1000, Level: w.byte(), Tight: w.byte()&1 == 1,
			Label: CalloutLabel(w.byte()), Task: TaskState(w.byte() % 4), Language: w.string()}
		n.Text = w.string()
		n.Content = w.nodes(depth + 1)
		for range w.byte() % 3 {
			n.Marks = append(n.Marks, Mark{Type: MarkType(w.string()), Href: w.string(), Title: w.string()})
			if w.byte()%2 == 0 {
				n.Marks[len(n.Marks)-1].Type = MarkLink
			}
		}
	}
	return out
}

// checkEncodeSame compares Encode with the former encoder on d.
func checkEncodeSame(d Doc) string {
	got, err := Encode(d)
	want, wantErr := legacyEncode(d)
	if (err == nil) != (wantErr == nil) || string(got) != string(want) {
		return fmt.Sprintf("Encode(%#v) =\n%s, %v\nformer encoder's\n%s, %v", d, got, err, want, wantErr)
	}
	if err != nil {
		return ""
	}
	// json.Marshal through the methods writes the same bytes.
	if viaMethods, err := json.Marshal(d); err != nil || string(viaMethods) != string(want) {
		return fmt.Sprintf("json.Marshal(%#v) =\n%s, %v\nwant\n%s", d, viaMethods, err, want)
	}
	return ""
}

// TestEncodeMatchesLegacy: Encode writes the former encoder's bytes for
// every document of the corpus and for wild documents.
func TestEncodeMatchesLegacy(t *testing.T) {
	for _, data := range decodeCorpus(t) {
		if d, err := Decode(data); err == nil {
			if msg := checkEncodeSame(d); msg != "" {
				t.Error(msg)
			}
		}
	}
	written, failed := 0, 0
	for i := range 2000 {
		seed := make([]byte, 200)
		for j := range seed {
			seed[j] = byte(i*131 + j*j*7 + j)
		}
		d := wildDoc(seed)
		if msg := checkEncodeSame(d); msg != "" {
			t.Error(msg)
		}
		if _, err := Encode(d); err == nil {
			written++
		} else {
			failed++
		}
	}
	t.Logf("wild documents: %d written, %d failed by both encoders", written, failed)
	if written < 100 || failed < 100 {
		t.Errorf("wild documents too uniform: %d written, %d failed", written, failed)
	}
}

// FuzzEncodeLegacy: Encode writes the former encoder's bytes for wild
// documents built from the input, and for the input decoded when it is a
// stored form.
func FuzzEncodeLegacy(f *testing.F) {
	for _, data := range decodeCorpus(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if msg := checkEncodeSame(wildDoc(data)); msg != "" {
			t.Fatal(msg)
		}
		if d, err := Decode(data); err == nil {
			if msg := checkEncodeSame(d); msg != "" {
				t.Fatal(msg)
			}
		}
	})
}

// TestDecodeDeepNesting: nodes nested inside a code block's text child
// (whose children are ignored) decode as the former decoder decoded them, as
// deep as encoding/json allows (10,000 levels of arrays and objects), with
// no stack trouble; one level more is malformed JSON for both.
func TestDecodeDeepNesting(t *testing.T) {
	nested := func(levels int) []byte {
		var b strings.Builder
		b.WriteString(`{"type":"doc","schemaVersion":2,"content":[{"type":"codeBlock","content":[`)
		for range levels {
			b.WriteString(`{"type":"text","text":"x","content":[`)
		}
		b.WriteString(strings.Repeat(`]}`, levels))
		b.WriteString(`]}]}`)
		return []byte(b.String())
	}
	// The document's own levels: root object, content array, code block, its content array.
	const own = 4
	deepest := (10_000 - own) / 2
	for _, levels := range []int{10, 1000, deepest, deepest + 1} {
		data := nested(levels)
		// The former decoder takes seconds at the deepest level (each level re-scans the
		// levels below): it is compared up to 1,000, and on the malformed document.
		if levels != deepest {
			if msg := checkDecodeSame(data); msg != "" {
				t.Fatalf("%d levels: %.300s", levels, msg)
			}
		}
		_, err := Decode(data)
		if accepted := err == nil; accepted != (2*levels+own <= 10_000) {
			t.Errorf("%d levels (%d JSON levels): accepted %v", levels, 2*levels+own, accepted)
		}
	}
}
