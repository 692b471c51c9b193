package markdown

import "testing"

// BenchmarkRenderParsed measures the capped render of ParseCanonical alone
// (renderParsed), on Parse's output of the two bench notes.
func BenchmarkRenderParsed(b *testing.B) {
	small, large := BenchInputs(b)
	for _, in := range []struct{ name, src string }{{"5KB", small}, {"100KB", large}} {
		d, err := Parse(in.src)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.src)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = renderParsed(d, 4*MaxLength)
			}
		})
	}
}
