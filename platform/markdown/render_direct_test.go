package markdown

import (
	"testing"
)

// TestRenderParsedMatchesFull holds renderParsed's shortcuts to the full
// writer on every corpus (golden, tricky, CommonMark spec examples, fuzz
// seeds, bench notes, random documents): Parse's output written by
// renderParsed (nodes flattened without cleaning, items without spans
// written without the span plan and flanking passes, a callout's first
// paragraph written once where sameAtLineStart) must give the Markdown, and
// the count of kept inline Markdown that decides where a capped render
// gives up, of renderCanonical with every pass run (fullPlan). It also
// holds sameAtLineStart to the writer on every paragraph: where it says
// so, the paragraph's Markdown is the same after a callout's label.
func TestRenderParsedMatchesFull(t *testing.T) {
	names, inputs := fastCorpus(t, *treeCount)
	fails := 0
	fail := func(format string, args ...any) {
		t.Helper()
		if fails++; fails <= 10 {
			t.Errorf(format, args...)
		}
	}
	same, paragraphs := 0, 0
	for i, s := range inputs {
		d, err := Parse(s)
		if err != nil {
			continue
		}
		got, gotKept := renderParsedKept(d)
		fullPlan = true
		want, wantKept := renderCanonicalKept(d)
		fullPlan = false
		if got != want {
			fail("%s: renderParsed differs from the full writer:\n%q\n%q", names[i], got, want)
		}
		if gotKept != wantKept {
			fail("%s: renderParsed counts %d bytes of kept Markdown, the full writer %d", names[i], gotKept, wantKept)
		}
		walkParagraphs(d.Content, func(p *Node) {
			paragraphs++
			if !sameAtLineStart(p.Content) {
				return
			}
			same++
			items := itemsFromNodes(p.Content)
			fullPlan = true
			a := planInline(items, inlineCtx{block: ctxParagraph}).out
			b := planInline(items, inlineCtx{block: ctxParagraph, noLineStart: true}).out
			fullPlan = false
			if a != b {
				fail("%s: sameAtLineStart, but a paragraph is written %q at a line start and %q after a label", names[i], a, b)
			}
		})
	}
	t.Logf("%d inputs; sameAtLineStart held for %d of %d paragraphs", len(inputs), same, paragraphs)
}

// renderParsedKept is renderParsed without a cap, with the bytes of inline
// Markdown it counts as kept.
func renderParsedKept(d Doc) (string, int) {
	r := renderer{direct: true}
	r.blocks(d.Content, false)
	return r.b.String(), r.kept
}

// renderCanonicalKept is renderCanonical without a cap, with the bytes of
// inline Markdown its first pass keeps.
func renderCanonicalKept(d Doc) (string, int) {
	st := &canonState{parsed: true}
	blocks := canonBlocks(d.Content, false, false, st)
	r := renderer{written: &st.outs}
	r.blocks(blocks, false)
	return r.b.String(), st.outs.bytes
}

// walkParagraphs calls f on every paragraph in nodes, at any depth.
func walkParagraphs(nodes []Node, f func(*Node)) {
	for i := range nodes {
		if nodes[i].Type == TypeParagraph {
			f(&nodes[i])
			continue
		}
		walkParagraphs(nodes[i].Content, f)
	}
}

// TestSameAtLineStartEdges holds sameAtLineStart to the writer on texts
// Parse does not make (a line break first) and on the escapes at a line
// start, without panicking.
func TestSameAtLineStartEdges(t *testing.T) {
	for _, text := range []string{"\n# a", "\n", "# a", "[a", "a", "1. a", "- a", "> a", "+", "=", "a\n# b"} {
		nodes := []Node{{Type: TypeText, Text: text}}
		items := itemsFromNodes(nodes)
		a := planInline(items, inlineCtx{block: ctxParagraph}).out
		b := planInline(items, inlineCtx{block: ctxParagraph, noLineStart: true}).out
		if sameAtLineStart(nodes) && a != b {
			t.Errorf("%q: sameAtLineStart, but written %q at a line start and %q after a label", text, a, b)
		}
	}
}
