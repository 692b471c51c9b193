package markdown_test

import (
	"testing"

	"folio/platform/markdown"
)

// seedNote is the load test's seed note (tests/load/seed_test.go
// seedMarkdown, about 500 bytes): the document that a cache miss decodes.
const seedNote = "## Weekly sync with the platform team\n\n" +
	"Discussed the **Q3 roadmap** with @alice and @bob. Key points:\n\n" +
	"- Migrate the billing service to the new queue\n" +
	"- Review the *on-call* rotation before the next release\n" +
	"- Budget for load testing (`k6` or our own harness)\n\n" +
	"> **Decision:** ship the new pagination behind a flag first.\n\n" +
	"Follow-up next week with the [design doc](https://example.com/design). #roadmap #meeting"

// codecCases are the stored forms of the seed note, the 5 KB meeting note
// and the 100 KB document.
func codecCases(b *testing.B) []benchCase {
	small, large := benchInputs(b)
	cases := []benchCase{{"seed", seedNote}, {"5KB", small}, {"100KB", large}}
	for i := range cases {
		d, err := markdown.Parse(cases[i].src)
		if err != nil {
			b.Fatal(err)
		}
		data, err := markdown.Encode(d)
		if err != nil {
			b.Fatal(err)
		}
		cases[i].src = string(data)
	}
	return cases
}

// BenchmarkDecode measures reading a stored document, which every render
// cache miss pays.
func BenchmarkDecode(b *testing.B) {
	for _, in := range codecCases(b) {
		data := []byte(in.src)
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := markdown.Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEncode measures writing the stored form, which every write pays.
func BenchmarkEncode(b *testing.B) {
	for _, in := range codecCases(b) {
		d, err := markdown.Decode([]byte(in.src))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := markdown.Encode(d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
