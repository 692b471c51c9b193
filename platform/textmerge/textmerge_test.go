package textmerge_test

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"folio/platform/textmerge"
)

func lines(s string) []string { return textmerge.Lines(s) }

func TestMerge(t *testing.T) {
	base := "a\nb\nc\nd\ne"
	for _, c := range []struct {
		name, ours, theirs, want string
		conflicts                int
	}{
		{"theirs only", base, "a\nB\nc\nd\ne", "a\nB\nc\nd\ne", 0},
		{"ours only", "a\nB\nc\nd\ne", base, "a\nB\nc\nd\ne", 0},
		{"apart", "A\nb\nc\nd\ne", "a\nb\nc\nd\nE", "A\nb\nc\nd\nE", 0},
		{"one line between", "A\nb\nc\nd\ne", "a\nb\nC\nd\ne", "A\nb\nC\nd\ne", 0},
		{"same change once", "a\nB\nc\nd\ne", "a\nB\nc\nd\ne", "a\nB\nc\nd\ne", 0},
		{"both delete the same line", "a\nc\nd\ne", "a\nc\nd\ne", "a\nc\nd\ne", 0},
		{"insert and change apart", "a\nnew\nb\nc\nd\ne", "a\nb\nc\nD\ne", "a\nnew\nb\nc\nD\ne", 0},
		{"same line differently", "a\nX\nc\nd\ne", "a\nY\nc\nd\ne", "a\nX\nc\nd\ne", 1},
		{"neighbouring lines", "a\nB\nc\nd\ne", "a\nb\nC\nd\ne", "a\nB\nc\nd\ne", 1},
		{"two insertions at one place", "a\nb\nx\nc\nd\ne", "a\nb\ny\nc\nd\ne", "a\nb\nx\nc\nd\ne", 1},
		{"delete against change", "a\nc\nd\ne", "a\nB\nc\nd\ne", "a\nc\nd\ne", 1},
		{"append on both", base + "\nx", base + "\ny", base + "\nx", 1},
		{"one conflict, one clean", "a\nX\nc\nd\ne", "a\nY\nc\nd\nE", "a\nX\nc\nd\nE", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := textmerge.Merge(lines(base), lines(c.ours), lines(c.theirs))
			if got := textmerge.Join(m.Lines); got != c.want || len(m.Conflicts) != c.conflicts {
				t.Fatalf("merge = %q with %d conflicts %+v, want %q with %d", got, len(m.Conflicts), m.Conflicts, c.want, c.conflicts)
			}
		})
	}
}

// TestConflictPlaces: a conflict says where it starts in the base and in each side.
func TestConflictPlaces(t *testing.T) {
	base := lines("a\nb\nc\nd\ne\nf")
	ours := lines("new1\nnew2\na\nb\nc\nd\nOURS\nf")
	theirs := lines("a\nc\nd\nTHEIRS\nf")
	m := textmerge.Merge(base, ours, theirs)
	if len(m.Conflicts) != 1 {
		t.Fatalf("conflicts %+v", m.Conflicts)
	}
	c := m.Conflicts[0]
	want := textmerge.Conflict{Base: []string{"e"}, Ours: []string{"OURS"}, Theirs: []string{"THEIRS"}, BaseStart: 4, OursStart: 6, TheirsStart: 3}
	if fmt.Sprint(c) != fmt.Sprint(want) {
		t.Fatalf("conflict %+v, want %+v", c, want)
	}
	if got := textmerge.Join(m.Lines); got != "new1\nnew2\na\nc\nd\nOURS\nf" {
		t.Fatalf("merged %q", got)
	}
}

// randomLines is a text of n lines drawn from a small alphabet, so that lines repeat.
func randomLines(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('a' + rng.Intn(5)))
	}
	return out
}

// edit changes a few random lines of text: replaced, deleted or inserted.
func edit(rng *rand.Rand, text []string) []string {
	out := slices.Clone(text)
	for range 1 + rng.Intn(4) {
		i := rng.Intn(len(out) + 1)
		switch rng.Intn(3) {
		case 0:
			out = slices.Insert(out, i, fmt.Sprint(rng.Intn(100)))
		case 1:
			if i < len(out) {
				out = slices.Delete(out, i, i+1)
			}
		default:
			if i < len(out) {
				out[i] = strings.ToUpper(out[i]) + fmt.Sprint(rng.Intn(100))
			}
		}
	}
	return out
}

// TestDiffIsExact: applying a diff's changes gives the second text, on random texts with many
// repeated lines (and long ones, past the LCS search bound).
func TestDiffIsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := range 2000 {
		n := rng.Intn(20)
		if i%50 == 0 {
			n = 400
		}
		a := randomLines(rng, n)
		b := edit(rng, a)
		if i%50 == 0 {
			b = randomLines(rng, n)
		}
		d := textmerge.Diff(a, b)
		if got := textmerge.Apply(a, d, nil); !slices.Equal(got, b) {
			t.Fatalf("Apply(%q, Diff) = %q, want %q", a, got, b)
		}
		for j := 1; j < len(d); j++ {
			if d[j].Start <= d[j-1].End {
				t.Fatalf("changes %+v and %+v are not apart", d[j-1], d[j])
			}
		}
		if got := textmerge.Apply(a, d, func(int) bool { return false }); !slices.Equal(got, a) {
			t.Fatalf("applying no change gives %q, want %q", got, a)
		}
	}
}

// TestMergeProperties on random texts with repeated lines: when one side is the base, the merge
// is the other side; the merge of a side with itself is that side; swapping the sides finds the
// same conflicts (and, with none, the same merge); a conflict's lines are where it says.
func TestMergeProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for range 3000 {
		base := randomLines(rng, rng.Intn(15))
		ours, theirs := edit(rng, base), edit(rng, base)
		if m := textmerge.Merge(base, base, theirs); len(m.Conflicts) != 0 || !slices.Equal(m.Lines, theirs) {
			t.Fatalf("merge into the unchanged base %q: %q %+v, want %q", base, m.Lines, m.Conflicts, theirs)
		}
		if m := textmerge.Merge(base, ours, base); len(m.Conflicts) != 0 || !slices.Equal(m.Lines, ours) {
			t.Fatalf("merging no change into %q: %q %+v", ours, m.Lines, m.Conflicts)
		}
		if m := textmerge.Merge(base, ours, ours); len(m.Conflicts) != 0 || !slices.Equal(m.Lines, ours) {
			t.Fatalf("merging %q with itself: %q %+v", ours, m.Lines, m.Conflicts)
		}
		m1, m2 := textmerge.Merge(base, ours, theirs), textmerge.Merge(base, theirs, ours)
		if len(m1.Conflicts) != len(m2.Conflicts) || len(m1.Conflicts) == 0 && !slices.Equal(m1.Lines, m2.Lines) {
			t.Fatalf("merge of %q, %q, %q is not symmetric: %q %+v / %q %+v", base, ours, theirs, m1.Lines, m1.Conflicts, m2.Lines, m2.Conflicts)
		}
		for _, c := range m1.Conflicts {
			if got := ours[c.OursStart : c.OursStart+len(c.Ours)]; !slices.Equal(got, c.Ours) {
				t.Fatalf("conflict %+v: ours has %q there", c, got)
			}
			if got := theirs[c.TheirsStart : c.TheirsStart+len(c.Theirs)]; !slices.Equal(got, c.Theirs) {
				t.Fatalf("conflict %+v: theirs has %q there", c, got)
			}
			if got := base[c.BaseStart : c.BaseStart+len(c.Base)]; !slices.Equal(got, c.Base) {
				t.Fatalf("conflict %+v: base has %q there", c, got)
			}
		}
	}
}

func TestWords(t *testing.T) {
	join := func(segs []textmerge.Segment) (text, marked string) {
		for _, s := range segs {
			text += s.Text
			if s.Changed {
				marked += "[" + s.Text + "]"
			} else {
				marked += s.Text
			}
		}
		return text, marked
	}
	for _, c := range []struct{ before, after, wantRemoved, wantAdded string }{
		{"Open two #backend roles in Q1.", "Open three #backend roles in Q2.", "Open [two] #backend roles in [Q1].", "Open [three] #backend roles in [Q2]."},
		{"same", "same", "same", "same"},
		{"", "new line", "", "[new line]"},
		{"café au lait", "café noir", "café [au lait]", "café [noir]"},
	} {
		removed, added := textmerge.Words(c.before, c.after)
		rText, rMarked := join(removed)
		aText, aMarked := join(added)
		if rText != c.before || aText != c.after || rMarked != c.wantRemoved || aMarked != c.wantAdded {
			t.Errorf("Words(%q, %q) = %q, %q; want %q, %q", c.before, c.after, rMarked, aMarked, c.wantRemoved, c.wantAdded)
		}
	}
}
