package markdown

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Render writes d as canonical Markdown: ATX headings (setext only for a
// level 1 or 2 heading holding a line break), `-` bullets, `1.` numbers,
// backtick fences, `---` rules, `**bold**`, `*italic*`, `~~strike~~`,
// `__underline__`, inline links, pipe tables without alignment. It escapes
// exactly what would otherwise change meaning. Render(Parse(s)) is a fixed
// point of Render∘Parse, and Parse(Render(d)) equals Canonical(d).
func Render(d Doc) string { return render(d, 0, false) }

// errRenderCap stops a capped render (see renderCapped).
var errRenderCap = &struct{ string }{"markdown: output over the cap"}

// renderCapped is Render giving up, with ok false, as soon as its output
// (or the inline Markdown it keeps for the blocks) passes maxBytes bytes, so
// that a document whose Markdown is too long costs no more than the cap.
// parsed says that d is Parse's output (see canonState.parsed).
func renderCapped(d Doc, maxBytes int, parsed bool) (out string, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if r != errRenderCap {
				panic(r)
			}
			out, ok = "", false
		}
	}()
	return render(d, maxBytes, parsed), true
}

// render is Render; with maxBytes > 0 it panics with errRenderCap once the
// output passes maxBytes bytes, or the kept inline Markdown twice that (it
// counts a callout's first paragraph twice). parsed says that d is Parse's
// output, whose inline content is canonical already (see canonState.parsed).
func render(d Doc, maxBytes int, parsed bool) string {
	renders.Add(1)
	if !parsed {
		return renderCanonical(d, maxBytes, false)
	}
	if !checkParsed {
		return renderParsed(d, maxBytes)
	}
	// What renderParsed skips: canonicalising the document first. Both
	// must give the same Markdown, or both give up.
	out, ok := capped(func() string { return renderParsed(d, maxBytes) })
	full, fullOK := capped(func() string { return renderCanonical(d, maxBytes, true) })
	if out != full || ok != fullOK {
		panic(fmt.Sprintf("markdown: the render of Parse's output differs from its canonical render (gave up: %v, %v):\n%q\n%q", !ok, !fullOK, out, full))
	}
	if !ok {
		panic(errRenderCap)
	}
	return out
}

// capped runs a capped render, reporting whether it gave up.
func capped(f func() string) (out string, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if r != errRenderCap {
				panic(r)
			}
			out, ok = "", false
		}
	}()
	return f(), true
}

// renderParsed is render for Parse's output (ParseCanonical), which is
// canonical already (Canonical(Parse(s)) == Parse(s): the property tests
// and fuzzing check it on every input, and with checkParsed every render of
// Parse's output is compared with renderCanonical's): canonicalising it
// would keep every node, so the block writer writes it as it is, each
// block's inline Markdown written when the block is (renderer.inlineOut),
// instead of a first pass writing and keeping them all. It gives up where
// renderCanonical would: it counts the inline Markdown that pass would
// keep (renderer.keep), against the same cap.
func renderParsed(d Doc, maxBytes int) string {
	r := renderer{cap: maxBytes, direct: true, keepCap: 2 * maxBytes}
	// Room for the container prefixes of a few levels of nesting.
	var prefixes [8]prefix
	r.prefix = prefixes[:0]
	// The Markdown is about as long as the document's text; container
	// prefixes, markers, escapes and blank lines come on top.
	n := textBytes(d.Content)
	r.b.Grow(n + n/4 + 64)
	// One inline writer for every block, instead of one from the pool per
	// block.
	r.writer = writerPool.Get().(*inlineWriter)
	defer func() {
		r.writer.ctx = inlineCtx{} // the pool keeps no render's arena alive
		writerPool.Put(r.writer)
	}()
	r.blocks(d.Content, false)
	out := unsafe.String(unsafe.SliceData(r.b.Bytes()), r.b.Len())
	if strings.HasPrefix(out, "\uFEFF") {
		out = "&#65279;" + out[len("\uFEFF"):]
	}
	return out
}

// textBytes is the bytes of the texts in nodes, links' destinations and
// titles once per node, to size renderParsed's buffer.
func textBytes(nodes []Node) int {
	n := 0
	for i := range nodes {
		nd := &nodes[i]
		n += len(nd.Text) + 2
		if len(nd.Marks) > 0 && nd.Marks[len(nd.Marks)-1].Type == MarkLink {
			n += len(nd.Marks[len(nd.Marks)-1].Href)
		}
		if len(nd.Content) > 0 {
			n += textBytes(nd.Content)
		}
	}
	return n
}

// renderCanonical is render by way of canonBlocks: the document
// canonicalised, each block's inline Markdown written and kept on the way,
// then written by the block writer.
func renderCanonical(d Doc, maxBytes int, parsed bool) string {
	st := &canonState{outs: writtenBlocks{list: make([]writtenBlock, 0, inlineBlocks(d.Content)), cap: 2 * maxBytes}, parsed: parsed}
	blocks := canonBlocks(d.Content, false, false, st)
	if checkWrittenBlocks {
		if n := st.outs.duplicate(); n != nil {
			panic("markdown: a block's Markdown is kept twice")
		}
	}
	r := renderer{written: &st.outs, cap: maxBytes}
	// Container prefixes, markers and blank lines come on top of the blocks'
	// own text.
	written := st.written + st.outs.bytes
	r.b.Grow(written + written/4 + 64)
	r.blocks(blocks, false)
	// The buffer is not written again: its bytes become the string as they
	// are, without a copy.
	out := unsafe.String(unsafe.SliceData(r.b.Bytes()), r.b.Len())
	if strings.HasPrefix(out, "\uFEFF") {
		// Parse drops a leading BOM; text starting with U+FEFF keeps it
		// as a reference.
		out = "&#65279;" + out[len("\uFEFF"):]
	}
	return out
}

// renders counts the documents render has written (Renders).
var renders atomic.Uint64

// Renders is how many documents this process has written as Markdown so far: every Render, and
// the capped render of every ParseCanonical. It is a work count: a test takes it before and after
// a request to hold the service to one rendering per write. One atomic add per document is
// nothing beside the writing of it.
func Renders() uint64 { return renders.Load() }

// checkWrittenBlocks makes Render check its list of written blocks (tests).
var checkWrittenBlocks = false

// checkParsed makes a render of Parse's output check what it skips: that
// normInline keeps each block's inline content as it is (tests).
var checkParsed = false

// inlineBlocks counts the blocks that hold inline content, to size the list
// of their written Markdown once.
func inlineBlocks(nodes []Node) int {
	n := 0
	for i := range nodes {
		switch nodes[i].Type {
		case TypeParagraph, TypeHeading:
			n++
		case TypeText, TypeTag, TypeMention, TypeHardBreak:
		default:
			n += inlineBlocks(nodes[i].Content)
		}
	}
	return n
}

type prefix struct {
	first string // written on the first line (a list marker)
	rest  string // written on the following lines
	used  bool
}

type renderer struct {
	b         bytes.Buffer
	prefix    []prefix
	listDepth int
	written   *writtenBlocks // the inline Markdown canonicalisation wrote, by block
	cap       int            // bytes of output past which to give up (0: none)
	// direct: the document is Parse's output, written as it is
	// (renderParsed); each block's inline Markdown is written when the
	// block is, into text, whose bytes the next block reuses (mark).
	direct  bool
	text    textArena
	mark    textArena
	marked  bool
	scratch []item
	links   []linkAttr // the links of scratch (appendParsedItems)
	writer  *inlineWriter
	// kept: the bytes of inline Markdown renderCanonical would have kept
	// (writtenBlocks.bytes), to give up where it would (keepCap)
	kept, keepCap int
	// itemFirst: the next block starts a list item without a checkbox
	// (see guardTaskBox)
	itemFirst bool
}

// writeLine writes one line with the container prefixes.
func (r *renderer) writeLine(s string) {
	if s == "" && r.markersMakeRule() {
		// "- - -" would be a thematic break: end the line before the last
		// marker, so that its item starts with a blank line.
		k := len(r.prefix) - 1
		last := r.prefix[k]
		r.prefix = r.prefix[:k]
		r.writeLine("")
		r.prefix = append(r.prefix, last)
	}
	r.startLine(s == "")
	r.b.WriteString(s)
	r.b.WriteByte('\n')
}

// startLine writes the container prefixes of a new line; without trailing
// spaces when the line stays blank.
func (r *renderer) startLine(blank bool) {
	start := r.b.Len()
	if r.cap > 0 && start > r.cap {
		panic(errRenderCap)
	}
	for i := range r.prefix {
		p := &r.prefix[i]
		if !p.used {
			r.b.WriteString(p.first)
			p.used = true
		} else {
			r.b.WriteString(p.rest)
		}
	}
	if blank {
		// No trailing spaces on blank lines.
		out := r.b.Bytes()
		end := len(out)
		for end > start && out[end-1] == ' ' {
			end--
		}
		r.b.Truncate(end)
	}
}

// markersMakeRule reports whether pending list markers alone would form a
// thematic break as the content of some container on the next line.
func (r *renderer) markersMakeRule() bool {
	pending := 0
	for i := range r.prefix {
		if !r.prefix[i].used {
			pending++
		}
	}
	if pending < 3 {
		return false
	}
	for k := range r.prefix {
		if r.prefix[k].used {
			continue
		}
		var b strings.Builder
		for i := k; i < len(r.prefix); i++ {
			b.WriteString(r.prefix[i].first)
		}
		if isThematicBreak(strings.TrimRight(b.String(), " ")) {
			return true
		}
	}
	return false
}

// writeLines writes text holding '\n' line breaks.
func (r *renderer) writeLines(s string) {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			r.writeLine(s)
			return
		}
		r.writeLine(s[:i])
		s = s[i+1:]
	}
}

// markerPending reports whether the next line starts with a list marker.
func (r *renderer) markerPending() bool {
	for i := range r.prefix {
		if !r.prefix[i].used {
			return true
		}
	}
	return false
}

func (r *renderer) blocks(nodes []Node, tight bool) {
	// joined[i]: block i follows block i-1 without a blank line.
	// Most block lists (a list item's, a quote's) are short: their flags
	// stay on the stack.
	var buf [16]bool
	var joined []bool
	if len(nodes) <= len(buf) {
		joined = buf[:len(nodes)]
	} else {
		joined = make([]bool, len(nodes))
	}
	for i := 1; i < len(nodes); i++ {
		// Never a blank line after an empty item's marker (see listTight).
		joined[i] = r.listDepth > 0 && endsWithEmptyMarker(&nodes[i-1]) ||
			tight && nodes[i].Type != TypeTable && joinable(&nodes[i-1], &nodes[i])
	}
	prevAlt := false
	for i := range nodes {
		n := &nodes[i]
		if i > 0 && !joined[i] {
			r.writeLine("")
		}
		// Adjacent lists of one type alternate markers, or they would merge.
		alt := false
		if i > 0 && nodes[i-1].Type == n.Type && (n.Type == TypeBulletList || n.Type == TypeOrderedList) {
			alt = !prevAlt
		}
		prevAlt = alt
		afterParagraph := joined[i] && nodes[i-1].Type != TypeCodeBlock && nodes[i-1].Type != TypeHeading && nodes[i-1].Type != TypeHorizontalRule
		closeQuote := i+1 < len(nodes) && joined[i+1] && needsQuoteClose(n, &nodes[i+1])
		r.block(n, afterParagraph, alt, closeQuote)
	}
}

func (r *renderer) block(n *Node, afterParagraph, altMarker, closeQuote bool) {
	itemFirst := r.itemFirst
	r.itemFirst = false
	switch n.Type {
	case TypeParagraph:
		out := r.inlineOut(n, inlineCtx{block: ctxParagraph})
		if itemFirst {
			out = guardTaskBox(out)
		}
		r.writeLines(out)
	case TypeHeading:
		r.heading(n, itemFirst)
	case TypeHorizontalRule:
		switch {
		case r.markerPending():
			r.writeLine("___")
		case afterParagraph:
			r.writeLine("***")
		default:
			r.writeLine("---")
		}
	case TypeCodeBlock:
		r.code(n)
	case TypeBulletList, TypeOrderedList:
		r.list(n, altMarker)
	case TypeBlockquote:
		r.prefix = append(r.prefix, prefix{first: "> ", rest: "> "})
		if len(n.Content) == 0 {
			r.writeLine("")
		}
		r.blocks(n.Content, false)
		if closeQuote {
			r.writeLine("")
		}
		r.prefix = r.prefix[:len(r.prefix)-1]
	case TypeCallout:
		r.callout(n, closeQuote)
	case TypeTable:
		r.table(n)
	}
}

// inlineOut returns the Markdown of a block's inline content, as written
// during canonicalisation.
func (r *renderer) inlineOut(n *Node, ctx inlineCtx) string {
	if r.direct {
		out := r.writeInline(n, ctx)
		r.keep(len(out))
		return out
	}
	if out, ok := r.written.lookup(n); ok {
		return out
	}
	return planInline(itemsFromNodes(n.Content), ctx).out
}

// writeInline writes a block's inline Markdown for renderParsed. The
// Markdown of the block before has been copied into the output by now, so
// its bytes in the arena are reused: the arena goes back to where it was
// before that block, unless that block needed a new piece of it.
func (r *renderer) writeInline(n *Node, ctx inlineCtx) string {
	if r.marked && sameArenaBlock(&r.mark, &r.text) {
		r.text = r.mark
	}
	r.mark, r.marked = r.text, true
	if r.scratch == nil {
		r.scratch = make([]item, 0, max(32, len(n.Content)))
	}
	// The items of the block before, and so its links, are no longer read.
	r.links = r.links[:0]
	r.scratch = appendParsedItems(r.scratch[:0], &r.links, n.Content)
	ctx.arena, ctx.writer = &r.text, r.writer
	return planInline(r.scratch, ctx).out
}

// sameArenaBlock reports whether the arena a is still writing in the piece
// of memory it was writing in when it was b.
func sameArenaBlock(b, a *textArena) bool {
	if cap(b.free) == 0 || cap(a.free) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b.free)))
	at := uintptr(unsafe.Pointer(unsafe.SliceData(a.free)))
	return at >= start && at-start <= uintptr(cap(b.free)) && cap(a.free) == cap(b.free)-int(at-start)
}

// keep counts n bytes of inline Markdown as renderCanonical's first pass
// keeps them (writtenBlocks.add: the Markdown and one byte), giving up past
// the same cap.
func (r *renderer) keep(n int) {
	r.kept += n + 1
	if r.keepCap > 0 && r.kept > r.keepCap {
		panic(errRenderCap)
	}
}

func (r *renderer) heading(n *Node, itemFirst bool) {
	ctx := ctxHeading
	if n.Attrs.Level == 3 {
		ctx = ctxHeading3
	}
	out := r.inlineOut(n, inlineCtx{block: ctx})
	if itemFirst {
		out = guardTaskBox(out)
	}
	if headingIsSetext(n) {
		r.writeLines(out)
		if n.Attrs.Level == 1 {
			r.writeLine("===")
		} else {
			r.writeLine("---")
		}
		return
	}
	hashes := "###"[:min(n.Attrs.Level, 3)]
	if out == "" {
		r.writeLine(hashes)
		return
	}
	r.startLine(false)
	r.b.WriteString(hashes)
	r.b.WriteByte(' ')
	r.b.WriteString(out)
	r.b.WriteByte('\n')
}

func (r *renderer) code(n *Node) {
	fence := byte('`')
	if strings.IndexByte(n.Attrs.Language, '`') >= 0 {
		fence = '~'
	}
	longest := 0
	for i := 0; i < len(n.Text); {
		if n.Text[i] != fence {
			i++
			continue
		}
		j := i
		for j < len(n.Text) && n.Text[j] == fence {
			j++
		}
		longest = max(longest, j-i)
		i = j
	}
	f := strings.Repeat(string(fence), max(3, longest+1))
	info := infoString(n.Attrs.Language)
	if info != "" && info[0] == fence {
		info = " " + info // or it would lengthen the fence
	}
	r.writeLine(f + info)
	if n.Text != "" { // an empty block has no line between its fences
		r.writeLines(strings.TrimSuffix(n.Text, "\n")) // the closing fence ends the last line
	}
	r.writeLine(f)
}

// guardTaskBox keeps the first line of a list item without a checkbox from
// reading as one: a link whose text is one "x", "X" or whitespace character
// (`[x](/u)`) starts like `[x]`, which the task-list parser takes. The
// character is written as a character reference (text in brackets is
// escaped by the inline writer already).
func guardTaskBox(out string) string {
	if len(out) < 3 || out[0] != '[' || out[2] != ']' {
		return out
	}
	switch c := out[1]; c {
	case 'x', 'X', ' ', '\t', '\n', '\f', '\r':
		var b strings.Builder
		b.WriteByte('[')
		writeCharRef(&b, rune(c))
		b.WriteString(out[2:])
		return b.String()
	}
	return out
}

// infoString escapes a code block's language for the opening fence.
func infoString(lang string) string {
	if lang == "" {
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(lang); i++ {
		c := lang[i]
		switch {
		case c < ' ' || c == 0x7f:
			writeCharRef(&b, rune(c))
		case c == '\\':
			b.WriteString("\\\\")
		case c == '&' && entityLike(lang[i:]):
			b.WriteString("\\&")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (r *renderer) list(n *Node, alt bool) {
	ordered := n.Type == TypeOrderedList
	nested := r.listDepth > 0
	r.listDepth++
	defer func() { r.listDepth-- }()
	for i := range n.Content {
		if i > 0 && !n.Attrs.Tight && (!nested || !itemEndsWithEmptyMarker(&n.Content[i-1])) {
			r.writeLine("")
		}
		first := "- "
		if alt {
			first = "* "
		}
		if ordered {
			num := int(n.Attrs.Start) + i
			if num > maxListStart {
				num = maxListStart
			}
			first = orderedMarker(num, alt)
		}
		// The following lines are indented by the marker's width (at most
		// 11 bytes: maxListStart has 9 digits).
		rest := "           "[:len(first)]
		item := &n.Content[i]
		if item.Attrs.Task == TaskOpen || item.Attrs.Task == TaskDone {
			first = withBox(first, item.Attrs.Task)
		}
		r.prefix = append(r.prefix, prefix{first: first, rest: rest})
		if len(item.Content) == 0 {
			r.writeLine("")
		}
		r.itemFirst = item.Attrs.Task == TaskNone
		r.blocks(item.Content, n.Attrs.Tight)
		r.itemFirst = false
		r.prefix = r.prefix[:len(r.prefix)-1]
	}
}

// orderedMarkers are the markers of the numbers most lists use ("1. " to
// "99. ", and with ')' for alternate lists), made once instead of for every
// item.
var orderedMarkers = func() (m [2][100]string) {
	for n := range m[0] {
		m[0][n] = strconv.Itoa(n) + ". "
		m[1][n] = strconv.Itoa(n) + ") "
	}
	return m
}()

// orderedMarker is an ordered list item's marker: the number, '.' (or ')'
// when alt) and a space.
func orderedMarker(num int, alt bool) string {
	k := 0
	if alt {
		k = 1
	}
	if num >= 0 && num < len(orderedMarkers[k]) {
		return orderedMarkers[k][num]
	}
	return strconv.Itoa(num) + ".) "[k:k+1] + " "
}

// withBox is a list marker followed by a task item's checkbox; the bullet
// markers' are constants (no allocation per item).
func withBox(marker string, task TaskState) string {
	open := task == TaskOpen
	switch {
	case marker == "- " && open:
		return "- [ ] "
	case marker == "- ":
		return "- [x] "
	case marker == "* " && open:
		return "* [ ] "
	case marker == "* ":
		return "* [x] "
	case open:
		return marker + "[ ] "
	}
	return marker + "[x] "
}

func (r *renderer) callout(n *Node, closeQuote bool) {
	r.prefix = append(r.prefix, prefix{first: "> ", rest: "> "})
	rest := n.Content
	if len(rest) > 0 && rest[0].Type == TypeParagraph {
		if r.direct {
			// renderCanonical's first pass keeps this paragraph's
			// Markdown twice: as a paragraph of its own, then rewritten
			// to continue the label's line. Where the two are the same
			// Markdown (sameAtLineStart), the second is counted twice
			// instead of the paragraph being written once more.
			if !sameAtLineStart(rest[0].Content) {
				r.keep(len(r.writeInline(&rest[0], inlineCtx{block: ctxParagraph})))
			}
		}
		out := r.inlineOut(&rest[0], inlineCtx{block: ctxParagraph, noLineStart: true})
		if r.direct && sameAtLineStart(rest[0].Content) {
			r.keep(len(out))
		}
		// writeLines of the label, a space and out, without joining them
		// first: the first line is not empty, so it is written as it is.
		first, more := out, ""
		if i := strings.IndexByte(out, '\n'); i >= 0 {
			first, more = out[:i], out[i+1:]
		}
		r.startLine(false)
		r.writeLabel(n.Attrs.Label)
		r.b.WriteByte(' ')
		r.b.WriteString(first)
		r.b.WriteByte('\n')
		if more != "" || len(first) < len(out) {
			r.writeLines(more)
		}
		rest = rest[1:]
	} else {
		r.startLine(false)
		r.writeLabel(n.Attrs.Label)
		r.b.WriteByte('\n')
	}
	if len(rest) > 0 {
		r.writeLine("")
		r.blocks(rest, false)
	}
	if closeQuote {
		r.writeLine("")
	}
	r.prefix = r.prefix[:len(r.prefix)-1]
}

// sameAtLineStart reports whether the inline writer writes nodes, Parse's
// inline content of a paragraph, the same at the start of a line as after a
// callout's label (inlineCtx.noLineStart). The two differ only in the first
// token when it is text (lineStartAt, and the '[' that startsBlock escapes)
// and in the check for a definition label, which needs a link first
// (mayStartDefinition): first content that is not an unmarked text (a
// delimiter, code, tag, mention or break comes first) and is in no link,
// or an unmarked text that needs no escape at a line start, is written the
// same. TestCalloutSameAtLineStart compares the two on the corpora.
func sameAtLineStart(nodes []Node) bool {
	for i := range nodes {
		n := &nodes[i]
		switch n.Type {
		case TypeText, TypeTag, TypeMention, TypeHardBreak:
		default:
			continue // not written (appendParsedItems)
		}
		if n.Type == TypeText && n.Text == "" {
			continue
		}
		for _, m := range n.Marks {
			if m.Type == MarkLink {
				return false
			}
		}
		if n.Type != TypeText || len(n.Marks) > 0 {
			return true
		}
		// A line break first is written as itself in both, and the line
		// after it starts a line in both (lineEscape reads no empty line).
		return n.Text[0] == '\n' || n.Text[0] != '[' && lineEscape(n.Text) < 0
	}
	return true
}

// writeLabel writes a callout's bold label.
func (r *renderer) writeLabel(l CalloutLabel) {
	r.b.WriteString("**")
	r.b.WriteString(calloutText(l))
	r.b.WriteString("**")
}

func (r *renderer) table(n *Node) {
	for ri := range n.Content {
		row := &n.Content[ri]
		// A row is one line (cells hold no line breaks): written in place.
		r.startLine(false)
		r.b.WriteByte('|')
		for ci := range row.Content {
			cell := &row.Content[ci]
			r.b.WriteByte(' ')
			if len(cell.Content) > 0 {
				r.b.WriteString(r.inlineOut(&cell.Content[0], inlineCtx{block: ctxCell}))
			} else if r.direct {
				r.keep(0) // renderCanonical keeps "" for a cell without a paragraph
			}
			r.b.WriteString(" |")
		}
		r.b.WriteByte('\n')
		if ri == 0 {
			r.writeLine("|" + strings.Repeat(" --- |", len(row.Content)))
		}
	}
}
