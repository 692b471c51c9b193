package imports

import (
	"strings"
	"testing"
)

// FuzzFile: reading any file as a note or a task, and turning its Markdown into a document,
// never panics; what is imported is within the limits, and what is not says why.
// `go test ./modules/imports -run '^$' -fuzz FuzzFile -fuzztime 30s` explores further.
func FuzzFile(f *testing.F) {
	for _, seed := range []string{
		"---\ntags: [a/b, c]\ncreated: 2024-01-05\n---\n![x](y.png) [o](obsidian://x)\n",
		"---\ndue: 2024-02-01\nstatus: doing\ntitle: T\n---\nbody",
		"---\n: [\n---\n",
		"# h\n\n```\n![not](an image)\n```\n`![code](x)` ![a](b) [r]\n\n[r]: file:///x\n",
		"> > > > > > > > > > > > > > > > > > deep",
		"---\r\ntitle: \"\\u0000\"\r\n---\r\n\ufeffx",
	} {
		f.Add("notes/a.md", []byte(seed), false)
		f.Add("x-abcdefghijklmnopqrstuvwx/tasks/a.md", []byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, name string, data []byte, folio bool) {
		it, why := readItem(name, data, folio)
		if why != "" {
			return
		}
		if it.task && (strings.TrimSpace(it.title) == "" || len([]rune(it.title)) > maxTitle) {
			t.Fatalf("a task titled %q", it.title)
		}
		doc, _, why := toDocument("content", it.text, it.tags, it.lineOffset)
		if why == "" && len([]rune(doc.Markdown)) > 100_000 {
			t.Fatalf("a document of %d characters", len([]rune(doc.Markdown)))
		}
	})
}
