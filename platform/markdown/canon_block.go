package markdown

import (
	"strings"
)

// The block half of canonicalisation: lists, quotes, callouts, code blocks
// and tables in the form Render writes.

// canonBlocks returns the canonical form of a block list. inItem says that
// the nearest enclosing container is a list item, inList that some list
// encloses the blocks; st is Render's state (nil for Canonical). A list that
// is canonical already is returned as it is (Parse's output always is, so
// Render copies nothing for it); otherwise the result is a new list, and the
// nodes that did not change are shared with the input.
func canonBlocks(nodes []Node, inItem, inList bool, st *canonState) []Node {
	var out []Node // the new list, from the first node that differs
	changed := false
	mark := 0
	if st != nil {
		mark = len(st.pending)
	}
	for i := range nodes {
		n := &nodes[i]
		var c Node
		same, keep := false, true
		var written *string
		switch n.Type {
		case TypeParagraph:
			plan := st.plan(st.norm(st.items(n.Content), ctxParagraph), inlineCtx{block: ctxParagraph})
			if len(plan.items) == 0 {
				keep = false
				break
			}
			c = Node{Type: TypeParagraph, Content: st.nodes(plan.items, n.Content)}
			same = sameSlice(c.Content, n.Content) && bare(n, Attrs{})
			written = &plan.out
		case TypeHeading:
			level := min(max(n.Attrs.Level, 1), 3)
			ctx := ctxHeading
			if level == 3 {
				ctx = ctxHeading3
			}
			plan := st.plan(st.norm(st.items(n.Content), ctx), inlineCtx{block: ctx})
			c = Node{Type: TypeHeading, Attrs: Attrs{Level: level}, Content: st.nodes(plan.items, n.Content)}
			same = sameSlice(c.Content, n.Content) && bare(n, c.Attrs)
			written = &plan.out
		case TypeBulletList, TypeOrderedList:
			c = Node{Type: n.Type}
			if n.Type == TypeOrderedList {
				c.Attrs.Start = min(max(n.Attrs.Start, 0), maxListStart)
			}
			c.Content, same = canonItems(n.Content, st)
			if len(c.Content) == 0 {
				keep = false
				break
			}
			c.Attrs.Tight = listTight(c.Content, n.Attrs.Tight, inList)
			same = same && bare(n, c.Attrs)
		case TypeBlockquote, TypeCallout:
			c = canonQuote(n, inList, st)
			same = c.Type == n.Type && sameSlice(c.Content, n.Content) && bare(n, c.Attrs)
		case TypeCodeBlock:
			text := canonCode(n.Text)
			if inItem {
				text = blankSpaceLines(text)
			}
			c = Node{Type: TypeCodeBlock, Attrs: Attrs{Language: canonLanguage(n.Attrs.Language)}, Text: text}
			if st != nil {
				st.written += len(text) + len(c.Attrs.Language) + 8
			}
			same = n.Text == text && n.Attrs == c.Attrs && n.Marks == nil && n.Content == nil
		case TypeHorizontalRule:
			c = Node{Type: TypeHorizontalRule}
			same = bare(n, Attrs{}) && n.Content == nil
		case TypeTable:
			if st != nil && tableIsCanonical(n, st) {
				c, same = *n, true
				break
			}
			c, keep = canonTable(n, st)
		default:
			keep = false
		}
		if (!keep || !same) && !changed {
			changed = true
			out = append(st.slabOf().make(len(nodes))[:0], nodes[:i]...)
		}
		if !keep {
			continue
		}
		at := i
		if changed {
			out = append(out, c)
			at = len(out) - 1
		}
		if written != nil && st != nil {
			st.pending = append(st.pending, pendingOut{at: at, slot: st.outs.reserve(*written)})
		}
	}
	final := nodes
	if changed {
		final = out
	}
	if st != nil {
		for _, p := range st.pending[mark:] {
			st.outs.place(p.slot, &final[p.at])
		}
		st.pending = st.pending[:mark]
	}
	return final
}

// canonItems returns the canonical items of a list, and whether they are the
// list's own (nothing changed).
func canonItems(items []Node, st *canonState) ([]Node, bool) {
	var out []Node
	changed := false
	for j := range items {
		it := &items[j]
		var content []Node
		same := it.Type == TypeListItem
		var attrs Attrs
		if same {
			content = canonBlocks(it.Content, true, true, st)
			// A checkbox is written before the item's first paragraph:
			// without one, it goes.
			if it.Attrs.Task <= TaskDone && len(content) > 0 && content[0].Type == TypeParagraph {
				attrs.Task = it.Attrs.Task
			}
			same = sameSlice(content, it.Content) && bare(it, attrs)
		}
		if !same && !changed {
			changed = true
			out = append(st.slabOf().make(len(items))[:0], items[:j]...)
		}
		if changed && it.Type == TypeListItem {
			out = append(out, Node{Type: TypeListItem, Attrs: attrs, Content: content})
		}
	}
	if !changed {
		return items, true
	}
	return out, false
}

const maxListStart = 999999999

func canonCode(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	}
	if s != "" && s[len(s)-1] != '\n' {
		s += "\n"
	}
	return s
}

// blankSpaceLines empties the whitespace-only lines of code: inside a list
// item Markdown cannot keep them (the line is blank once the indentation is
// taken).
func blankSpaceLines(s string) string {
	if !strings.ContainsAny(s, " \t") {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		if body != "" && isBlankStr(body) {
			lines[i] = l[len(body):]
		}
	}
	return strings.Join(lines, "")
}

func canonLanguage(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return strings.Trim(s, " \t\n\r")
}

// canonQuote handles blockquotes and callouts: a blockquote whose first
// paragraph starts with the bold label is a callout.
func canonQuote(n *Node, inList bool, st *canonState) Node {
	first := 0 // where the first paragraph's Markdown will be kept
	if st != nil {
		first = len(st.outs.list)
	}
	content := canonBlocks(n.Content, false, inList, st)
	if n.Type == TypeCallout && (n.Attrs.Label == CalloutWhy || n.Attrs.Label == CalloutDecision) {
		// The first paragraph continues the label's line.
		if len(content) > 0 && content[0].Type == TypeParagraph {
			plan := st.plan(st.items(content[0].Content), inlineCtx{block: ctxParagraph, noLineStart: true})
			inline := st.nodes(plan.items, content[0].Content)
			if !sameSlice(inline, content[0].Content) {
				// content may be the input's list: change a copy.
				cp := append(st.slabOf().make(len(content))[:0], content...)
				st.moved(content, cp)
				cp[0] = Node{Type: TypeParagraph, Content: inline}
				content = cp
			}
			if st != nil {
				st.outs.rewrite(first, &content[0], plan.out)
			}
		}
		return Node{Type: TypeCallout, Attrs: Attrs{Label: n.Attrs.Label}, Content: content}
	}
	if kind, rest, ok := splitCalloutKeep(content, st); ok {
		return Node{Type: TypeCallout, Attrs: Attrs{Label: kind}, Content: rest}
	}
	return Node{Type: TypeBlockquote, Content: content}
}

// set stores the written Markdown of the block n for Render (nothing for
// Canonical).
func (st *canonState) set(n *Node, out string) {
	if st == nil {
		return
	}
	st.outs.set(n, out)
}

// moved carries the written Markdown of blocks over to their copies.
func (st *canonState) moved(from, to []Node) {
	if st == nil {
		return
	}
	st.outs.moved(from, to)
}

// sameSlice reports whether two node lists are the same list (not only equal).
func sameSlice(a, b []Node) bool {
	if len(a) != len(b) {
		return false
	}
	return len(a) == 0 && (a == nil) == (b == nil) || len(a) > 0 && &a[0] == &b[0]
}

// bare reports whether n carries nothing beyond its type, the given
// attributes and its content: a canonical block node.
func bare(n *Node, attrs Attrs) bool {
	return n.Attrs == attrs && n.Text == "" && n.Marks == nil
}

// splitCallout recognises the callout label at the start of blocks and
// returns the blocks without it.
func splitCallout(blocks []Node) (CalloutLabel, []Node, bool) {
	return splitCalloutKeep(blocks, nil)
}

func splitCalloutKeep(blocks []Node, st *canonState) (CalloutLabel, []Node, bool) {
	if len(blocks) == 0 || blocks[0].Type != TypeParagraph || len(blocks[0].Content) == 0 {
		return 0, nil, false
	}
	first := &blocks[0].Content[0]
	if first.Type != TypeText || len(first.Marks) != 1 || first.Marks[0].Type != MarkBold {
		return 0, nil, false
	}
	// The label's bold must end at the colon: in "**Why:*x***" the bold goes
	// on, so the label is not a callout's but part of a bold span.
	if len(blocks[0].Content) > 1 && hasMark(&blocks[0].Content[1], MarkBold) {
		return 0, nil, false
	}
	var kind CalloutLabel
	switch first.Text {
	case "Why:":
		kind = CalloutWhy
	case "Decision:":
		kind = CalloutDecision
	default:
		return 0, nil, false
	}
	items, moved := normInlineMoved(itemsFromNodes(blocks[0].Content[1:]), ctxParagraph)
	plan := inlinePlan{items: items}
	if st != nil || writerNeeded(items, moved) {
		// Render needs the written Markdown; Parse and Canonical (st ==
		// nil) only the items as the writer can write them, which are the
		// items themselves unless writerNeeded (see converter.inline).
		plan = st.plan(items, inlineCtx{block: ctxParagraph, noLineStart: true})
	}
	rest := st.slabOf().make(len(blocks))[:0]
	if len(plan.items) > 0 {
		rest = append(rest, Node{Type: TypeParagraph, Content: st.slabOf().nodesFromItems(plan.items)})
		st.set(&rest[0], plan.out)
	}
	rest = append(rest, blocks[1:]...)
	st.moved(blocks[1:], rest[len(rest)-len(blocks)+1:])
	return kind, rest, true
}

// tableIsCanonical reports whether a table is canonical already: a header
// row and rectangular rows of bare cells holding one paragraph each, whose
// inline content canonicalisation keeps. It stores the cells' written
// Markdown (Render only).
func tableIsCanonical(n *Node, st *canonState) bool {
	if len(n.Content) == 0 || len(n.Content[0].Content) == 0 || !bare(n, Attrs{}) {
		return false
	}
	width := len(n.Content[0].Content)
	for r := range n.Content {
		row := &n.Content[r]
		if row.Type != TypeTableRow || len(row.Content) != width || !bare(row, Attrs{}) {
			return false
		}
		want := TypeTableCell
		if r == 0 {
			want = TypeTableHeader
		}
		for c := range row.Content {
			cell := &row.Content[c]
			if cell.Type != want || len(cell.Content) != 1 || !bare(cell, Attrs{}) ||
				cell.Content[0].Type != TypeParagraph || !bare(&cell.Content[0], Attrs{}) {
				return false
			}
		}
	}
	for r := range n.Content {
		for c := range n.Content[r].Content {
			p := &n.Content[r].Content[c].Content[0]
			plan := st.plan(st.norm(st.items(p.Content), ctxCell), inlineCtx{block: ctxCell})
			if !sameSlice(st.nodes(plan.items, p.Content), p.Content) {
				return false
			}
			st.set(p, plan.out)
		}
	}
	return true
}

// canonTable makes a table rectangular, with a header row and one paragraph
// per cell.
func canonTable(n *Node, st *canonState) (Node, bool) {
	rows := 0
	for i := range n.Content {
		if n.Content[i].Type == TypeTableRow {
			rows++
		}
	}
	if rows == 0 {
		return Node{}, false
	}
	var header *Node
	for i := range n.Content {
		if n.Content[i].Type == TypeTableRow {
			header = &n.Content[i]
			break
		}
	}
	width := len(header.Content)
	if width == 0 {
		return Node{}, false
	}
	// Rows, cells and the cells' paragraphs each come from one allocation.
	t := Node{Type: TypeTable, Content: st.slabOf().make(rows)[:0]}
	cells := st.slabOf().make(rows * width)
	paras := st.slabOf().make(rows * width)
	for i := range n.Content {
		src := &n.Content[i]
		if src.Type != TypeTableRow {
			continue
		}
		r := len(t.Content)
		cellType := TypeTableCell
		if r == 0 {
			cellType = TypeTableHeader
		}
		row := Node{Type: TypeTableRow, Content: cells[r*width : (r+1)*width : (r+1)*width]}
		for c := 0; c < width; c++ {
			var inl []Node
			if c < len(src.Content) {
				inl = cellInline(src.Content[c].Content)
			}
			plan := st.plan(normInline(st.items(inl), ctxCell), inlineCtx{block: ctxCell})
			p := &paras[r*width+c]
			*p = Node{Type: TypeParagraph, Content: st.nodes(plan.items, inl)}
			st.set(p, plan.out)
			row.Content[c] = Node{Type: cellType, Content: paras[r*width+c : r*width+c+1 : r*width+c+1]}
		}
		t.Content = append(t.Content, row)
	}
	return t, true
}

// cellInline gathers the inline content of a cell's blocks, separated by
// spaces.
func cellInline(blocks []Node) []Node {
	if len(blocks) == 1 && blocks[0].Type == TypeParagraph {
		return blocks[0].Content
	}
	var out []Node
	var walk func(nodes []Node)
	walk = func(nodes []Node) {
		for i := range nodes {
			n := &nodes[i]
			switch n.Type {
			case TypeText, TypeTag, TypeMention, TypeHardBreak:
				out = append(out, *n)
			case TypeCodeBlock:
				out = append(out, Node{Type: TypeText, Text: n.Text, Marks: []Mark{{Type: MarkCode}}})
			default:
				if isBlockType(n.Type) && len(out) > 0 {
					out = append(out, Node{Type: TypeText, Text: " "})
				}
				walk(n.Content)
			}
		}
	}
	walk(blocks)
	return out
}

// listTight decides tightness. A gap (between items, or between blocks of an
// item) can hold a blank line unless what precedes it ends with an empty item
// marker and a list encloses the gap: after "-" and a blank line goldmark
// closes every enclosing list. It can be written without one if the blocks
// are joinable. A blank line before a table inside an item does not count:
// goldmark builds tables from paragraphs and does not carry the blank line
// over, so that gap is always written blank and never decides. A loose list
// needs one gap with a blank line; a tight one needs all other gaps without.
// nested says that another list encloses this one.
func listTight(items []Node, tight, nested bool) bool {
	canBlank, allTight := false, true
	for i := range items {
		c := items[i].Content
		if i > 0 && (!nested || !itemEndsWithEmptyMarker(&items[i-1])) {
			canBlank = true
		}
		for j := 1; j < len(c); j++ {
			if endsWithEmptyMarker(&c[j-1]) || c[j].Type == TypeTable {
				continue
			}
			canBlank = true
			if !joinable(&c[j-1], &c[j]) {
				allTight = false
			}
		}
	}
	if tight {
		return allTight
	}
	return !canBlank
}

// endsWithEmptyMarker reports whether a block's last written line is the
// marker of an empty list item.
func endsWithEmptyMarker(n *Node) bool {
	if n.Type != TypeBulletList && n.Type != TypeOrderedList || len(n.Content) == 0 {
		return false
	}
	return itemEndsWithEmptyMarker(&n.Content[len(n.Content)-1])
}

func itemEndsWithEmptyMarker(it *Node) bool {
	if len(it.Content) == 0 {
		return true
	}
	return endsWithEmptyMarker(&it.Content[len(it.Content)-1])
}

// joinable reports whether block b can follow block a on the next line,
// without a blank line, and still start a new block.
func joinable(a, b *Node) bool {
	switch a.Type {
	case TypeCodeBlock, TypeHorizontalRule, TypeHeading:
		return true
	}
	container := a.Type != TypeParagraph && a.Type != TypeTable
	switch b.Type {
	case TypeCodeBlock, TypeHorizontalRule:
		return true
	case TypeHeading:
		return !headingIsSetext(b) || container && (!lazyTail(a) || isQuote(a))
	case TypeBlockquote, TypeCallout:
		return a.Type != TypeBlockquote && a.Type != TypeCallout
	case TypeBulletList, TypeOrderedList:
		// Only a paragraph of the same container is interrupted.
		return container || listCanInterrupt(b)
	case TypeParagraph, TypeTable:
		// A paragraph line after a paragraph, or after a container whose
		// last line is paragraph text, would continue that paragraph; a
		// quote can end that paragraph with an empty ">" line.
		return container && (!lazyTail(a) || isQuote(a))
	}
	return false
}

func isQuote(n *Node) bool {
	return n.Type == TypeBlockquote || n.Type == TypeCallout
}

// needsQuoteClose reports whether quote a, written directly before b, must
// end with an empty ">" line so that b does not continue its last paragraph.
func needsQuoteClose(a, b *Node) bool {
	if !isQuote(a) || !lazyTail(a) {
		return false
	}
	switch b.Type {
	case TypeParagraph, TypeTable:
		return true
	case TypeHeading:
		return headingIsSetext(b)
	}
	return false
}

// lazyTail reports whether a block's last line is paragraph text, which a
// following unprefixed line would lazily continue.
func lazyTail(n *Node) bool {
	switch n.Type {
	case TypeParagraph, TypeTable:
		return true
	case TypeCallout:
		if len(n.Content) == 0 {
			return true // the label line
		}
		return lazyTail(&n.Content[len(n.Content)-1])
	case TypeBlockquote, TypeListItem, TypeBulletList, TypeOrderedList:
		if len(n.Content) == 0 {
			return false
		}
		return lazyTail(&n.Content[len(n.Content)-1])
	}
	return false
}

// listCanInterrupt reports whether a list can start right after a
// paragraph line: its first item must not be empty and an ordered list must
// start at 1.
func listCanInterrupt(l *Node) bool {
	if len(l.Content) == 0 || len(l.Content[0].Content) == 0 {
		return false
	}
	return l.Type == TypeBulletList || l.Attrs.Start == 1
}

// headingIsSetext reports whether a canonical heading is written as a setext
// heading: a level 1 or 2 heading holding a line break.
func headingIsSetext(h *Node) bool {
	if h.Attrs.Level > 2 {
		return false
	}
	for i := range h.Content {
		c := &h.Content[i]
		if c.Type == TypeHardBreak || (c.Type == TypeText && strings.IndexByte(c.Text, '\n') >= 0 && !hasMark(c, MarkCode)) {
			return true
		}
	}
	return false
}

func hasMark(n *Node, t MarkType) bool {
	for _, m := range n.Marks {
		if m.Type == t {
			return true
		}
	}
	return false
}
