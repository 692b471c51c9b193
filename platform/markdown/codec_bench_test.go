package markdown_test

import (
	"testing"

	"folio/platform/markdown"
)

// codecCases are the stored forms of the seed note, the 5 KB meeting note
// and the 100 KB document.
func codecCases(b *testing.B) []benchCase {
	small, large := benchInputs(b)
	cases := []benchCase{{"seed", markdown.SeedNote}, {"5KB", small}, {"100KB", large}}
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
