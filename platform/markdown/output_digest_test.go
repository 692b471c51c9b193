package markdown

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var updateDigest = flag.Bool("update-digest", false, "rewrite testdata/output-digest.txt from the current code")

// TestOutputDigest holds the codec's output byte for byte over a corpus:
// for every golden, tricky and CommonMark input, every FuzzRoundTrip and
// FuzzRenderTree seed that fuzzing found, the benchmark notes and 2,000
// random documents (rendered, then read back), the Markdown ParseCanonical
// returns and the stored JSON Encode writes (or the error), and for the
// random documents Render's Markdown and the stored JSON of Canonical,
// each hashed, against testdata/output-digest.txt. The file was written by
// the code before issue 35's speed work (7913569), so that work had to keep
// every byte. A codec change that alters output on purpose rewrites it
// (-update-digest) and shows which inputs changed in the diff.
func TestOutputDigest(t *testing.T) {
	var lines []string
	hash := func(parts ...string) string {
		h := sha256.New()
		for _, p := range parts {
			fmt.Fprintf(h, "%d:%s", len(p), p)
		}
		return hex.EncodeToString(h.Sum(nil))[:16]
	}
	write := func(name, s string) {
		d, out, err := ParseCanonical(s)
		if err != nil {
			lines = append(lines, name+" "+hash("error", err.Error()))
			return
		}
		stored, err := Encode(d)
		if err != nil {
			t.Fatalf("%s: Encode: %v", name, err)
		}
		lines = append(lines, name+" "+hash(out, string(stored)))
	}
	golden, err := filepath.Glob("testdata/golden/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range golden {
		if strings.HasSuffix(f, ".golden.md") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		write("golden/"+filepath.Base(f), string(data))
	}
	tricky := loadTricky(t)
	for _, name := range slices.Sorted(maps.Keys(tricky)) {
		write("tricky/"+name, tricky[name])
	}
	for _, ex := range loadSpec(t) {
		write(fmt.Sprintf("spec/%d", ex.Example), ex.Markdown)
	}
	seeds := func(target string) map[string][]byte {
		files, _ := filepath.Glob("testdata/fuzz/" + target + "/*")
		out := map[string][]byte{}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if len(lines) != 2 {
				t.Fatalf("%s: not one value", f)
			}
			v := lines[1]
			v = v[strings.IndexByte(v, '(')+1 : len(v)-1]
			s, err := strconv.Unquote(v)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out[filepath.Base(f)] = []byte(s)
		}
		return out
	}
	roundTrip := seeds("FuzzRoundTrip")
	for _, name := range slices.Sorted(maps.Keys(roundTrip)) {
		write("fuzz/"+name, string(roundTrip[name]))
	}
	tree := func(name string, data []byte) {
		d := genDoc(data)
		r := Render(d)
		stored, err := Encode(Canonical(d))
		if err != nil {
			t.Fatalf("%s: Encode: %v", name, err)
		}
		lines = append(lines, name+"/render "+hash(r, string(stored)))
		write(name, r)
	}
	renderTree := seeds("FuzzRenderTree")
	for _, name := range slices.Sorted(maps.Keys(renderTree)) {
		tree("fuzz-tree/"+name, renderTree[name])
	}
	note, err := os.ReadFile("testdata/bench/meeting-note.md")
	if err != nil {
		t.Fatal(err)
	}
	write("bench/5KB", string(note))
	var sb strings.Builder
	for week := 1; sb.Len() < 100_000; week++ {
		sb.WriteString(strings.ReplaceAll(string(note), "week 14", fmt.Sprintf("week %d", week)))
		sb.WriteString("\n")
	}
	write("bench/100KB", sb.String()[:strings.LastIndexByte(sb.String()[:100_000], '\n')+1])
	rng := rand.New(rand.NewSource(35))
	for i := 0; i < 2000; i++ {
		data := make([]byte, 64+rng.Intn(400))
		rng.Read(data)
		tree(fmt.Sprintf("tree/%d", i), data)
	}
	got := strings.Join(lines, "\n") + "\n"
	const file = "testdata/output-digest.txt"
	if *updateDigest {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	wantData, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(wantData), "\n"), "\n")
	if len(want) != len(lines) {
		t.Fatalf("%d outputs, %s has %d", len(lines), file, len(want))
	}
	bad := 0
	for i := range lines {
		if lines[i] != want[i] {
			bad++
			if bad <= 10 {
				t.Errorf("output changed: %s (was %s)", lines[i], want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d outputs changed", bad, len(lines))
	}
}
