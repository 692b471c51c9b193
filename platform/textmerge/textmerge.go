// Package textmerge compares and merges texts line by line, and compares two lines word by word.
// It knows nothing of what the lines mean: a caller that needs the result to be valid in some
// language (canonical Markdown, for the suggestions module) checks that itself.
//
// The line and word comparisons are go-udiff's (github.com/aymanbagabas/go-udiff/lcs, a copy of
// the Go team's golang.org/x/tools/internal/diff/lcs, which the unified diffs of the API already
// use). What it guarantees, and what this package relies on:
//   - a diff is exact: applying its changes to the first sequence gives the second, element for
//     element (the tests here check it on random inputs);
//   - its changes are ordered and disjoint, and two changes are separated by at least one common
//     element (each is a maximal run of differences);
//   - it is a longest common subsequence only up to a search bound (about 50 differences): past
//     it the diff is still exact but may mark more lines changed than needed. For a merge that
//     can only make a change look wider, so two changes may conflict that a minimal diff would
//     have kept apart; it never makes a merge drop or invent a line.
//
// Merge is the three-way merge of diff3 and Git, conservative: a change of one side is applied
// when no change of the other side touches the same base lines or the boundary between them
// (changes to neighbouring lines conflict, as in Git), and identical changes on both sides are
// applied once.
package textmerge

import (
	"slices"
	"strings"
	"unicode"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// Lines splits text into its lines, without their "\n"; the empty text has none. Join undoes it.
func Lines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// Join is the text of lines, one "\n" between two.
func Join(lines []string) string { return strings.Join(lines, "\n") }

// Change replaces the lines [Start, End) of a text with Lines (Start == End: an insertion before
// line Start).
type Change struct {
	Start, End int
	Lines      []string
}

// Removed is the lines of from that the change replaces.
func (c Change) Removed(from []string) []string { return from[c.Start:c.End] }

// Diff returns the changes that turn a into b, in order.
func Diff(a, b []string) []Change {
	diffs := lcs.DiffLines(a, b)
	out := make([]Change, len(diffs))
	for i, d := range diffs {
		out[i] = Change{Start: d.Start, End: d.End, Lines: b[d.ReplStart:d.ReplEnd]}
	}
	return out
}

// Apply returns from with the chosen changes applied (every change when chosen is nil). The
// changes must be ordered and disjoint, as Diff returns them.
func Apply(from []string, changes []Change, chosen func(i int) bool) []string {
	out := make([]string, 0, len(from))
	at := 0
	for i, c := range changes {
		if chosen != nil && !chosen(i) {
			continue
		}
		out = append(out, from[at:c.Start]...)
		out = append(out, c.Lines...)
		at = c.End
	}
	return append(out, from[at:]...)
}

// Conflict is a region where both sides changed the base differently: the base's lines and each
// side's lines in their place, and where the region starts in each (0-based line indexes).
type Conflict struct {
	Base, Ours, Theirs                []string
	BaseStart, OursStart, TheirsStart int
}

// Merged is a three-way merge's outcome.
type Merged struct {
	// Lines is ours with every change of theirs that conflicts with none of ours; each conflict's
	// region keeps ours' lines. With no conflicts it is the merge.
	Lines     []string
	Conflicts []Conflict
}

// Merge merges the changes from base to theirs into ours (both made from base).
func Merge(base, ours, theirs []string) Merged {
	o, t := Diff(base, ours), Diff(base, theirs)
	var m Merged
	at := 0                // the base lines before at are written
	oShift, tShift := 0, 0 // lines added minus lines removed by each side's changes so far
	for len(o) > 0 || len(t) > 0 {
		// A region starts at the earliest change and takes in every change of either side that
		// starts at or before its end (a change that touches it).
		var first Change
		if len(t) == 0 || len(o) > 0 && o[0].Start <= t[0].Start {
			first = o[0]
		} else {
			first = t[0]
		}
		start, end := first.Start, first.End
		var ro, rt []Change
	grow:
		for {
			switch {
			case len(o) > 0 && o[0].Start <= end:
				end = max(end, o[0].End)
				ro, o = append(ro, o[0]), o[1:]
			case len(t) > 0 && t[0].Start <= end:
				end = max(end, t[0].End)
				rt, t = append(rt, t[0]), t[1:]
			default:
				break grow
			}
		}
		m.Lines = append(m.Lines, base[at:start]...)
		at = end
		oursLines, theirsLines := replay(base, start, end, ro), replay(base, start, end, rt)
		switch {
		case len(rt) == 0 || len(ro) > 0 && slices.Equal(oursLines, theirsLines):
			m.Lines = append(m.Lines, oursLines...)
		case len(ro) == 0:
			m.Lines = append(m.Lines, theirsLines...)
		default:
			m.Conflicts = append(m.Conflicts, Conflict{Base: base[start:end], Ours: oursLines, Theirs: theirsLines,
				BaseStart: start, OursStart: start + oShift, TheirsStart: start + tShift})
			m.Lines = append(m.Lines, oursLines...)
		}
		oShift += len(oursLines) - (end - start)
		tShift += len(theirsLines) - (end - start)
	}
	m.Lines = append(m.Lines, base[at:]...)
	return m
}

// replay is the lines base[start:end] become under changes (all inside that range).
func replay(base []string, start, end int, changes []Change) []string {
	out := []string{}
	at := start
	for _, c := range changes {
		out = append(out, base[at:c.Start]...)
		out = append(out, c.Lines...)
		at = c.End
	}
	return append(out, base[at:end]...)
}

// Segment is a piece of a line in a word comparison: Changed when the other line does not have it.
type Segment struct {
	Text    string
	Changed bool
}

// Words compares two lines word by word (a word is a run of letters and digits; every other
// character, and each run of spaces, is a token of its own) and returns each line cut into
// segments, the changed ones marked. Joined, the segments are the lines again.
func Words(before, after string) (removed, added []Segment) {
	a, b := tokens(before), tokens(after)
	changes := lcs.DiffLines(a, b)
	ai, bi := 0, 0
	for _, d := range changes {
		removed = appendSegment(removed, strings.Join(a[ai:d.Start], ""), false)
		removed = appendSegment(removed, strings.Join(a[d.Start:d.End], ""), true)
		added = appendSegment(added, strings.Join(b[bi:d.ReplStart], ""), false)
		added = appendSegment(added, strings.Join(b[d.ReplStart:d.ReplEnd], ""), true)
		ai, bi = d.End, d.ReplEnd
	}
	removed = appendSegment(removed, strings.Join(a[ai:], ""), false)
	added = appendSegment(added, strings.Join(b[bi:], ""), false)
	return removed, added
}

func appendSegment(segs []Segment, text string, changed bool) []Segment {
	if text == "" {
		return segs
	}
	if n := len(segs); n > 0 && segs[n-1].Changed == changed {
		segs[n-1].Text += text
		return segs
	}
	return append(segs, Segment{Text: text, Changed: changed})
}

// tokens cuts a line into words, runs of spaces and single other characters.
func tokens(line string) []string {
	var out []string
	kind := func(r rune) int {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			return 1
		case unicode.IsSpace(r):
			return 2
		}
		return 0
	}
	start, prev := 0, -1
	for i, r := range line {
		k := kind(r)
		if i > start && (k == 0 || k != prev) {
			out = append(out, line[start:i])
			start = i
		}
		prev = k
	}
	if start < len(line) {
		out = append(out, line[start:])
	}
	return out
}
