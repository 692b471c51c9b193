package suggestions

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"

	"folio/platform/markdown"
	"folio/platform/textmerge"
)

// The merge of an approval, on random documents and random pairs of edits (issue 33): the merge
// of edits that do not overlap holds both, exactly as applying both to the blocks gives; a merge
// never loses a line that neither side removed; two different edits of one block conflict; and
// every result the plan would store, merged or partial, is a fixed point of the codec.

// block kinds of the random documents: each renders as canonical Markdown as it is.
const (
	kindParagraph = iota
	kindHeading
	kindList
	kindCode
	kindQuote
	kindTable
	kinds
)

type block struct {
	kind int
	text string
}

// words is the vocabulary of the random text: plain words, and a few that are Markdown (a tag, a
// mention, emphasis, inline code) so that the codec sees more than letters.
var words = []string{"plan", "hire", "budget", "review", "ship", "#q3", "@mia", "**now**", "*soon*", "`code`", "team", "ask"}

// gen makes blocks whose texts are unique (each carries a serial number), so that a line is found
// again by its text.
type gen struct {
	rng    *rand.Rand
	serial int
}

func (g *gen) phrase() string {
	g.serial++
	out := []string{fmt.Sprintf("n%d", g.serial)}
	for range 1 + g.rng.Intn(4) {
		out = append(out, words[g.rng.Intn(len(words))])
	}
	return strings.Join(out, " ")
}

func (g *gen) block(kind int) block {
	switch kind {
	case kindHeading:
		return block{kind, "## " + g.phrase()}
	case kindList:
		var items []string
		for range 1 + g.rng.Intn(3) {
			items = append(items, "- "+g.phrase())
		}
		return block{kind, strings.Join(items, "\n")}
	case kindCode:
		return block{kind, "```\n" + g.phrase() + "\n```"}
	case kindQuote:
		return block{kind, "> " + g.phrase()}
	case kindTable:
		return block{kind, "| " + g.phrase() + " |\n| --- |\n| " + g.phrase() + " |"}
	}
	return block{kindParagraph, g.phrase()}
}

// randomKind is a kind that may stand between before and after: two lists (or two tables) next to
// each other would read as one, which neither side of a real edit writes.
func (g *gen) randomKind(before, after *block) int {
	for {
		k := g.rng.Intn(kinds)
		if (k == kindList || k == kindTable) && (before != nil && before.kind == k || after != nil && after.kind == k) {
			continue
		}
		return k
	}
}

func (g *gen) document(n int) []block {
	var out []block
	for range n {
		var before *block
		if len(out) > 0 {
			before = &out[len(out)-1]
		}
		out = append(out, g.block(g.randomKind(before, nil)))
	}
	return out
}

func render(blocks []block) string {
	texts := make([]string, len(blocks))
	for i, b := range blocks {
		texts[i] = b.text
	}
	return strings.Join(texts, "\n\n")
}

// op is one edit of a document's blocks, at pos in half-units: 2k+1 is block k (replaced or
// deleted), 2k the gap before block k (an insertion there).
type op struct {
	pos   int
	del   bool
	block block // the new block (replace, insert)
}

// edits makes 1 to 3 edits of doc at distinct places, none in taken (positions the other side
// uses), each keeping the document readable as written (no two lists or tables meet).
func (g *gen) edits(doc []block, allowed func(pos int) bool) []op {
	var ops []op
	used := map[int]bool{}
	for range 1 + g.rng.Intn(3) {
		for range 20 {
			pos := g.rng.Intn(2*len(doc) + 1)
			if used[pos] || used[pos-1] || used[pos+1] || !allowed(pos) {
				continue
			}
			k := pos / 2
			var before, after *block
			if k > 0 {
				before = &doc[k-1]
			}
			switch {
			case pos%2 == 0: // insert before block k
				if k < len(doc) {
					after = &doc[k]
				}
				ops = append(ops, op{pos: pos, block: g.block(g.randomKind(before, after))})
			case g.rng.Intn(3) == 0 && len(doc) > 1: // delete block k, if its neighbours may meet
				if k+1 < len(doc) {
					after = &doc[k+1]
				}
				if before != nil && after != nil && before.kind == after.kind && (before.kind == kindList || before.kind == kindTable) {
					continue
				}
				ops = append(ops, op{pos: pos, del: true})
			default: // replace block k by another of its kind
				ops = append(ops, op{pos: pos, block: g.block(doc[k].kind)})
			}
			used[pos] = true
			break
		}
	}
	return ops
}

// apply applies ops (at distinct positions of doc) to a copy of doc.
func apply(doc []block, ops []op) []block {
	out := slices.Clone(doc)
	sorted := slices.Clone(ops)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].pos > sorted[j].pos })
	for _, o := range sorted {
		k := o.pos / 2
		switch {
		case o.pos%2 == 0:
			out = slices.Insert(out, k, o.block)
		case o.del:
			out = slices.Delete(out, k, k+1)
		default:
			out[k] = o.block
		}
	}
	return out
}

// apart says whether every edit of a is separated from every edit of b by a block neither edits.
func apart(a, b []op) bool {
	touched := map[int]bool{}
	for _, o := range append(slices.Clone(a), b...) {
		if o.pos%2 == 1 {
			touched[o.pos] = true
		}
	}
	for _, x := range a {
		for _, y := range b {
			lo, hi := min(x.pos, y.pos), max(x.pos, y.pos)
			free := false
			for p := lo + 1; p < hi; p++ {
				if p%2 == 1 && !touched[p] {
					free = true
				}
			}
			if !free {
				return false
			}
		}
	}
	return true
}

// fixedPoint fails unless text is accepted by the codec and reads back as exactly text.
func fixedPoint(t *testing.T, what, text string) {
	t.Helper()
	_, back, err := markdown.ParseCanonical(text)
	if err != nil || back != text {
		t.Fatalf("%s is not a fixed point of the codec (%v):\n%s\n--- reads back as ---\n%s", what, err, text, back)
	}
}

// stored fails unless the document the plan stores for the chosen hunks (all when nil), when it
// stores one, is exactly the lines of the merge, and those lines are a fixed point of the codec;
// it returns them.
func stored(t *testing.T, what string, pl Plan, chosen []int) (string, bool) {
	t.Helper()
	var pick func(int) bool
	if chosen != nil {
		pick = func(i int) bool { return slices.Contains(chosen, i) }
	}
	lines := textmerge.Join(textmerge.Apply(pl.current, pl.changes, pick))
	d, err := pl.read(chosen)
	if err != nil {
		return "", false
	}
	if d.Markdown != lines {
		t.Fatalf("%s: the plan stores\n%s\n--- not the merged lines ---\n%s", what, d.Markdown, lines)
	}
	fixedPoint(t, what, lines)
	return lines, true
}

// kept fails unless every line of base that is unique there, and that both sides still have,
// is in result.
func kept(t *testing.T, base, ours, theirs, result string) {
	t.Helper()
	count := map[string]int{}
	for _, l := range textmerge.Lines(base) {
		count[l]++
	}
	o, th, r := textmerge.Lines(ours), textmerge.Lines(theirs), textmerge.Lines(result)
	for l, n := range count {
		if n == 1 && strings.Contains(l, "n") && slices.Contains(o, l) && slices.Contains(th, l) && !slices.Contains(r, l) {
			t.Fatalf("the merge lost %q, which neither side removed:\nbase:\n%s\nours:\n%s\ntheirs:\n%s\nmerged:\n%s", l, base, ours, theirs, result)
		}
	}
}

func TestMergeProperties(t *testing.T) {
	g := &gen{rng: rand.New(rand.NewSource(33))}
	var clean, conflicted, mergedOK int
	for i := range 600 {
		doc := g.document(2 + g.rng.Intn(7))
		base := render(doc)
		fixedPoint(t, "a generated document", base)

		// Edits that do not overlap: the merge is both, as applying both to the blocks gives.
		oursOps := g.edits(doc, func(int) bool { return true })
		theirsOps := g.edits(doc, func(pos int) bool { return apart(oursOps, []op{{pos: pos}}) })
		if len(theirsOps) > 0 && apart(oursOps, theirsOps) {
			ours, theirs := render(apply(doc, oursOps)), render(apply(doc, theirsOps))
			want := render(apply(doc, append(slices.Clone(oursOps), theirsOps...)))
			fixedPoint(t, "ours", ours)
			fixedPoint(t, "theirs", theirs)
			pl := plan(base, ours, theirs)
			if !pl.Mergeable() {
				t.Fatalf("case %d: edits apart conflict %+v\nbase:\n%s\nours:\n%s\ntheirs:\n%s", i, pl.Conflicts, base, ours, theirs)
			}
			if got, ok := stored(t, "a clean merge", pl, nil); !ok || got != want || pl.merged == nil || pl.merged.Markdown != want {
				t.Fatalf("case %d: merge of edits apart:\n%s\n--- want ---\n%s", i, got, want)
			}
			clean++
		}

		// Any two edits: what the plan stores keeps every line neither side removed and is a
		// fixed point of the codec.
		oursOps = g.edits(doc, func(int) bool { return true })
		theirsOps = g.edits(doc, func(int) bool { return true })
		ours, theirs := render(apply(doc, oursOps)), render(apply(doc, theirsOps))
		pl := plan(base, ours, theirs)
		if pl.Mergeable() {
			mergedOK++
			got, ok := stored(t, "a merge", pl, nil)
			if !ok || pl.merged.Markdown != got {
				t.Fatalf("case %d: a mergeable plan does not store its merge %q", i, got)
			}
			kept(t, base, ours, theirs, got)
		} else {
			conflicted++
			// The hunks that conflict with none are offered, each with the lines it removes: a
			// line theirs moved across a conflict shows as removed by one of them, so only the
			// fixed point holds here.
			if len(pl.Hunks) > 0 {
				stored(t, "the hunks that conflict with none", pl, nil)
			}
		}
		// A partial choice is stored only as a fixed point.
		if len(pl.Hunks) > 0 {
			stored(t, "a partial approval", pl, []int{g.rng.Intn(len(pl.Hunks))})
		}

		// One block edited differently by both sides: a conflict, never a guess.
		k := g.rng.Intn(len(doc))
		a := apply(doc, []op{{pos: 2*k + 1, block: g.block(doc[k].kind)}})
		b := apply(doc, []op{{pos: 2*k + 1, block: g.block(doc[k].kind)}})
		if pl := plan(base, render(a), render(b)); pl.Mergeable() {
			t.Fatalf("case %d: block %d replaced differently on both sides merged into:\n%s", i, k, pl.merged.Markdown)
		}
	}
	// Edits line by line, with lines that are Markdown structure (list items, fences, table rows,
	// continuation lines): many merges of such edits read back otherwise, and are refused.
	pieces := []string{"- a", "- b", "1. x", "2. y", "para", "", "| h |", "| --- |", "| c |", "> q", "```", "code", "# h", "text", "   more"}
	canonical := func(lines []string) (string, bool) {
		_, back, err := markdown.ParseCanonical(textmerge.Join(lines))
		return back, err == nil
	}
	var refused int
	for range 3000 {
		var raw []string
		for range 3 + g.rng.Intn(5) {
			raw = append(raw, pieces[g.rng.Intn(len(pieces))])
		}
		base, ok := canonical(raw)
		if !ok {
			continue
		}
		mutate := func() (string, bool) {
			lines := textmerge.Lines(base)
			k := g.rng.Intn(len(lines) + 1)
			if g.rng.Intn(2) == 0 && k < len(lines) {
				lines = slices.Delete(lines, k, k+1)
			} else {
				lines = slices.Insert(lines, k, pieces[g.rng.Intn(len(pieces))])
			}
			return canonical(lines)
		}
		ours, ok1 := mutate()
		theirs, ok2 := mutate()
		if !ok1 || !ok2 || ours == base || theirs == base {
			continue
		}
		pl := plan(base, ours, theirs)
		if pl.Mergeable() {
			got, ok := stored(t, "a merge of line edits", pl, nil)
			if !ok || pl.merged.Markdown != got {
				t.Fatalf("a mergeable plan does not store its merge %q", got)
			}
			kept(t, base, ours, theirs, got)
		} else if len(textmerge.Merge(textmerge.Lines(base), textmerge.Lines(ours), textmerge.Lines(theirs)).Conflicts) == 0 {
			refused++
		}
		for i := range pl.Hunks {
			stored(t, "a partial approval of line edits", pl, []int{i})
		}
	}
	t.Logf("%d merges of edits apart, %d of random edits merged, %d conflicted; %d line merges refused as reading back otherwise", clean, mergedOK, conflicted, refused)
	if refused < 10 {
		t.Fatalf("only %d line merges were refused by the codec check: the generator no longer exercises it", refused)
	}
	if clean < 200 || conflicted < 50 || mergedOK < 50 {
		t.Fatalf("the generator made too few cases of a kind: %d apart, %d merged, %d conflicted", clean, mergedOK, conflicted)
	}
}

// TestMergeRefusesWhatReadsBackOtherwise: changes apart line by line whose lines, put together,
// the codec would read otherwise are a conflict at the hunk where it reads otherwise, never
// stored; so is a partial choice that does the same.
func TestMergeRefusesWhatReadsBackOtherwise(t *testing.T) {
	// Each side adds an item "2." to the ordered list: together the list would number 1, 2, 2,
	// which reads back as 1, 2, 3.
	base := "1. x\n   text\n   more\n   para"
	ours := base + "\n2. y"
	theirs := "1. x\n2. x\n   text\n   more\n   para"
	pl := plan(base, ours, theirs)
	if pl.Mergeable() || len(pl.Conflicts) != 1 {
		t.Fatalf("the merge was not refused: %+v", pl)
	}
	if c := pl.Conflicts[0]; c.Line != 2 || !slices.Equal(c.Suggested, []string{"2. x"}) || len(c.Current) != 0 {
		t.Fatalf("the conflict %+v, want the hunk adding \"2. x\" at line 2", c)
	}
	if err := pl.conflictError("note"); !strings.Contains(err.Error(), "SUGGESTION_CONFLICT") {
		t.Fatalf("conflict error %v", err)
	}
	// Not stale: the suggestion's own hunks. It inserts item 2 and renumbers the next: either
	// hunk alone would number the list 1, 2, 2 or 1, 3, which reads back otherwise.
	current := "1. a\n   t\n   u\n2. b"
	suggested := "1. a\n2. n\n   t\n   u\n3. b"
	fixedPoint(t, "the suggestion", suggested)
	pl = plan(current, current, suggested)
	if len(pl.Hunks) != 2 || !pl.Mergeable() {
		t.Fatalf("plan %+v", pl)
	}
	for _, chosen := range [][]int{{0}, {1}} {
		if d, err := pl.read(chosen); err == nil {
			t.Fatalf("hunks %v alone were accepted: %q", chosen, d.Markdown)
		}
	}
	if d, err := pl.read([]int{1, 0}); err != nil || d.Markdown != suggested {
		t.Fatalf("both hunks: %q %v", d.Markdown, err)
	}
}
