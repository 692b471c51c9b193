package document

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// corpus is the codec's test inputs (platform/markdown/testdata): the CommonMark spec's 652
// examples, the golden and tricky cases, the benchmark note, and the fuzz corpus of
// FuzzRoundTrip (whose seeds are the spec examples and the tricky cases again), by name.
func corpus(t *testing.T) map[string]string {
	t.Helper()
	dir := "../../platform/markdown/testdata"
	out := map[string]string{}
	raw, err := os.ReadFile(filepath.Join(dir, "commonmark-spec.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec []struct {
		Example  int    `json:"example"`
		Markdown string `json:"markdown"`
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	for _, ex := range spec {
		out["spec/"+strconv.Itoa(ex.Example)] = ex.Markdown
	}
	for _, glob := range []string{"golden/*.md", "tricky/*.md", "bench/*.md"} {
		for f, b := range readGlob(t, filepath.Join(dir, glob)) {
			out[strings.TrimPrefix(f, dir+"/")] = b
		}
	}
	for f, b := range readGlob(t, filepath.Join(dir, "fuzz/FuzzRoundTrip/*")) {
		// "go test fuzz v1\nstring(\"...\")"
		_, value, ok := strings.Cut(strings.TrimSpace(b), "\nstring(")
		if !ok {
			t.Fatalf("%s: not a string entry", f)
		}
		s, err := strconv.Unquote(strings.TrimSuffix(value, ")"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out["fuzz/"+filepath.Base(f)] = s
	}
	return out
}

// readGlob reads the files pattern matches, by path.
func readGlob(t *testing.T, pattern string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = string(b)
	}
	return out
}

// TestStoredTextIsTheRender: the text a write stores beside a document (the Markdown Parse wrote
// while it checked the length) is byte for byte what rendering the stored tree gives, which is
// what every read returned before the texts were stored (issue 35), over the codec's corpus and
// the fuzz seeds. So are Read of a current text, and Read of a text of an older codec (which
// renders the tree). Inputs the codec refuses are counted, not compared.
func TestStoredTextIsTheRender(t *testing.T) {
	accepted, refused := 0, 0
	for name, src := range corpus(t) {
		p, err := Parse("content", src)
		if err != nil {
			refused++
			continue
		}
		accepted++
		tree, err := Encode(p)
		if err != nil {
			t.Fatalf("%s: encode: %v", name, err)
		}
		rendered, err := Render(tree)
		if err != nil {
			t.Fatalf("%s: render the stored tree: %v", name, err)
		}
		if p.Markdown != rendered {
			t.Errorf("%s: stored text\n%q\nrendering the stored tree\n%q", name, p.Markdown, rendered)
		}
		if got, err := Read(tree, p.Written()); err != nil || got != rendered {
			t.Errorf("%s: Read of the current text %q, %v", name, got, err)
		}
		if got, err := Read(tree, Written{Markdown: "stale", Codec: Codec - 1}); err != nil || got != rendered {
			t.Errorf("%s: Read of an older codec's text %q, %v; want the tree rendered", name, got, err)
		}
	}
	if accepted < 700 {
		t.Fatalf("only %d inputs accepted (%d refused): the corpus was not found whole", accepted, refused)
	}
	t.Logf("%d inputs compared, %d refused by the codec", accepted, refused)
}
