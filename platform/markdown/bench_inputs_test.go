package markdown

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// BenchInputs returns the realistic meeting note (about 5 KB) and a 100 KB
// document: a run of such notes with varied names, dates and numbers, as a
// long-lived "weekly sync" note grows. (Exported for bench_test.go.)
func BenchInputs(b testing.TB) (small, large string) {
	b.Helper()
	data, err := os.ReadFile("testdata/bench/meeting-note.md")
	if err != nil {
		b.Fatal(err)
	}
	small = string(data)
	var sb strings.Builder
	names := []string{"ana.silva", "bob", "chen_li", "dmitri", "eva", "farah", "goran"}
	for week := 1; sb.Len() < 100_000; week++ {
		note := strings.ReplaceAll(small, "week 14", fmt.Sprintf("week %d", week))
		note = strings.ReplaceAll(note, "@bob", "@"+names[week%len(names)])
		note = strings.ReplaceAll(note, "340 ms", fmt.Sprintf("%d ms", 300+week))
		sb.WriteString(note)
		sb.WriteString("\n")
	}
	large = sb.String()[:100_000]
	if i := strings.LastIndexByte(large, '\n'); i > 0 {
		large = large[:i+1]
	}
	return small, large
}
