package markdown

import "testing"

// TestPooledScratchKeepsNoText: the converter's working memory goes back to
// scratchPool without the document's texts and links (giveBack), so that the
// pool does not keep a parsed input alive. An autolink's label is a piece of
// the source, and a link's attributes hold its destination; without the
// clearing of fastInline's tokens and links this fails.
func TestPooledScratchKeepsNoText(t *testing.T) {
	for range 50 {
		if _, err := Parse("see <http://example.com/secret> and [x](http://y.z/q)\n"); err != nil {
			t.Fatal(err)
		}
		sc := scratchPool.Get().(*scratch)
		for _, tk := range sc.fs.toks[:cap(sc.fs.toks)] {
			if tk.s != "" || tk.href != "" {
				t.Fatalf("the pooled tokens keep %q, %q", tk.s, tk.href)
			}
		}
		for _, l := range sc.fs.links[:cap(sc.fs.links)] {
			if l.attr != nil {
				t.Fatalf("the pooled links keep %+v", *l.attr)
			}
		}
		for _, it := range sc.items[:cap(sc.items)] {
			if it.text != "" || it.link != nil {
				t.Fatalf("the pooled items keep %q", it.text)
			}
		}
		scratchPool.Put(sc)
	}
}
