package markdown

import "fmt"

// Canonical returns the document that Parse(Render(d)) yields: the canonical
// form of d. Parse only ever returns canonical documents, so for them
// Canonical is the identity. The canonicalisation, in the order applied:
//
//   - Inline: empty text is dropped and a NUL becomes U+FFFD; marks are put
//     in schema order (bold, italic, strike, underline, code, link) without
//     repeats; hard breaks carry no marks; in code, line breaks become
//     spaces; tags and mentions with a code or link mark, or an invalid
//     name, become text.
//   - Whitespace at the edge of a bold, italic, strike or underline range
//     moves outside it (`** x**` is not bold in Markdown).
//   - Spaces and tabs at the start and end of a paragraph, heading or cell,
//     and around a line break, are dropped (Markdown drops them); blank lines
//     inside a paragraph collapse to one line break; a hard break at the end
//     of a block is dropped; in a level-3 heading a hard break becomes a line
//     break; in a table cell it becomes a space.
//   - A tag or mention right after a letter, digit, '_', '#', '@', '/' or '&'
//     is text, since Markdown reads it so; likewise one directly followed by
//     an opening emphasis delimiter that Markdown cannot write there.
//   - Adjacent text nodes with the same marks merge.
//   - Emphasis the writer cannot express (rare: crossing spans whose
//     delimiters would fuse, or that only splitting a text apart could
//     separate, as in "**0 *0******0** 0*") is dropped, in the order
//     underline, strike, italic, bold, until the rest can be written.
//   - Blocks: empty paragraphs and lists are dropped; heading levels are
//     clamped to 1-3; code gets a final newline; a list is tight when it
//     cannot be loose (one item holding at most one block) and loose when
//     its blocks cannot be written without blank lines; a blockquote whose
//     first paragraph starts with bold "Why:" or "Decision:", the bold ending
//     at the colon, is a callout;
//     tables get a header row, rectangular rows and one paragraph per cell.
func Canonical(d Doc) Doc {
	return Doc{Content: canonBlocks(d.Content, false, false, nil)}
}

// canonState is Render's state while canonicalising: it keeps the written
// inline Markdown of each block that holds inline content (by the block's
// node in the canonical tree, so that a tree that is canonical already is
// written from as it is, without a copy), reuses inline nodes that
// canonicalisation leaves unchanged, and recycles an item buffer.
type canonState struct {
	scratch []item
	written int // bytes of code blocks, to size Render's buffer (with outs.bytes)
	slab    nodeSlab
	outs    writtenBlocks
	pending []pendingOut // blocks whose final place is not known yet
	// parsed: the document is Parse's output (ParseCanonical), whose
	// inline content is canonical already (Canonical(Parse(s)) ==
	// Parse(s), which the property tests and fuzzing check on every
	// input): normInline would keep it as it is, so it is skipped (norm).
	parsed bool
	// text holds the blocks' written Markdown until the renderer has
	// copied it into the output.
	text textArena
}

// plan is planInline, writing into Render's arena.
func (st *canonState) plan(items []item, ctx inlineCtx) inlinePlan {
	if st != nil {
		ctx.arena = &st.text
	}
	return planInline(items, ctx)
}

// norm is normInline of a block's items in the context ctx; for Parse's
// output (st.parsed) the items themselves, normInline's result on them. With
// checkParsed (tests and fuzzing) it checks that.
func (st *canonState) norm(items []item, ctx blockCtx) []item {
	if st == nil || !st.parsed {
		return normInline(items, ctx)
	}
	if checkParsed {
		// normInline changes hard breaks in place: check on a copy.
		if n := normInline(append([]item(nil), items...), ctx); !sameItems(n, items) {
			panic(fmt.Sprintf("markdown: Parse's inline content is not canonical: %+v became %+v", items, n))
		}
	}
	return items
}

// pendingOut is a block at index at of the list canonBlocks is building,
// whose written Markdown is reserved at slot of st.outs.
type pendingOut struct {
	at, slot int
}

// slabOf is the state's node slab; nil (one allocation per slice) for
// Canonical.
func (st *canonState) slabOf() *nodeSlab {
	if st == nil {
		return nil
	}
	return &st.slab
}

// items flattens inline nodes, into the scratch buffer when there is one.
func (st *canonState) items(nodes []Node) []item {
	if st == nil {
		return itemsFromNodes(nodes)
	}
	if st.scratch == nil {
		// Most blocks hold a few dozen items at most: one buffer of that
		// size instead of growing from one item.
		st.scratch = make([]item, 0, max(32, len(nodes)))
	}
	st.scratch = appendItems(st.scratch[:0], nodes)
	return st.scratch
}

// nodes builds inline nodes from canonical items; for Render it returns the
// original nodes when they are the same.
func (st *canonState) nodes(items []item, orig []Node) []Node {
	if st != nil && itemsMatch(items, orig) {
		return orig
	}
	return st.slabOf().nodesFromItems(items)
}
