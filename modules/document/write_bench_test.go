package document

import (
	"os"
	"testing"
)

// writeNote is a short note (about 500 bytes of Markdown), as BenchmarkRenderUncached's.
const writeNote = "## Weekly sync\n\nDiscussed the **Q3 roadmap** with @alice and @bob. Key points:\n\n" +
	"- Migrate the billing service to the new queue\n- Review the *on-call* rotation\n- Budget (`k6` or our own)\n\n" +
	"> **Decision:** ship the new pagination behind a flag first.\n\nFollow-up with the [doc](https://example.com/d). #roadmap #meeting"

// sink keeps what the readers take.
var sink string

// BenchmarkWritePath measures the codec work of one write of an item's document as modules/items
// does it (a POST, or a PATCH of the document): the body's Markdown parsed with the exact length
// check, the stored form encoded (and its Markdown put in the render cache), and the Markdown
// handed to the write's three readers (the search index, the event's data, the response). The
// render cache holds its default bound. Until the Markdown travelled with the document (Parsed),
// Encode rendered the document again for the cache, and each reader took its text from the cache
// (Render: a SHA-256 of the stored form and a lookup).
func BenchmarkWritePath(b *testing.B) {
	meeting, err := os.ReadFile("../../platform/markdown/testdata/bench/meeting-note.md")
	if err != nil {
		b.Fatal(err)
	}
	for _, in := range []struct{ name, src string }{{"short", writeNote}, {"5KB", string(meeting)}} {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.src)))
			b.ReportAllocs()
			for b.Loop() {
				doc, err := Parse("content", in.src)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Encode(doc); err != nil {
					b.Fatal(err)
				}
				for range 3 { // the search index, the event's data, the response
					sink = doc.Markdown
				}
			}
		})
	}
}
