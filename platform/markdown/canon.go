package markdown

import (
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/util"
)

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

// itemsMatch reports whether nodes hold exactly the items.
func itemsMatch(items []item, nodes []Node) bool {
	if len(items) != len(nodes) {
		return false
	}
	for i := range items {
		it, n := &items[i], &nodes[i]
		if len(n.Content) != 0 {
			return false
		}
		switch it.kind {
		case itText:
			if n.Type != TypeText || n.Text != it.text {
				return false
			}
		case itTag:
			if n.Type != TypeTag || n.Text != it.text {
				return false
			}
		case itMention:
			if n.Type != TypeMention || n.Text != it.text {
				return false
			}
		case itBreak:
			if n.Type != TypeHardBreak || len(n.Marks) != 0 {
				return false
			}
			continue
		}
		var m uint8
		var link *linkAttr
		for k, mk := range n.Marks {
			var bit uint8
			switch mk.Type {
			case MarkBold:
				bit = mBold
			case MarkItalic:
				bit = mItalic
			case MarkStrike:
				bit = mStrike
			case MarkUnderline:
				bit = mUnderline
			case MarkCode:
				bit = mCode
			case MarkLink:
				if link != nil || k != len(n.Marks)-1 {
					return false
				}
				link = &linkAttr{mk.Href, mk.Title}
				continue
			default:
				return false
			}
			if m >= bit { // repeated or out of schema order
				return false
			}
			m |= bit
		}
		if m != it.marks || !sameLink(link, it.link) {
			return false
		}
	}
	return true
}

// Inline marks as bits; the link is kept beside them.
const (
	mBold uint8 = 1 << iota
	mItalic
	mStrike
	mUnderline
	mCode
)

const mEmphasis = mBold | mItalic | mStrike | mUnderline

type linkAttr struct {
	href, title string
}

func sameLink(a, b *linkAttr) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

type itemKind uint8

const (
	itText itemKind = iota
	itTag
	itMention
	itBreak
)

// item is one inline node in flat form: text (possibly code), a tag or
// mention, or a hard break.
type item struct {
	kind  itemKind
	text  string // text, or the name of a tag or mention
	marks uint8
	link  *linkAttr
}

func (it *item) sameMarks(o *item) bool {
	return it.marks == o.marks && sameLink(it.link, o.link)
}

// blockCtx says which block the inline content belongs to.
type blockCtx uint8

const (
	ctxParagraph blockCtx = iota
	ctxHeading            // level 1 or 2: may be written as a setext heading
	ctxHeading3
	ctxCell
)

// itemsFromNodes flattens inline nodes into items, applying the per-node
// rules (mark order, invalid tags, code line breaks).
func itemsFromNodes(nodes []Node) []item {
	return appendItems(make([]item, 0, len(nodes)), nodes)
}

func appendItems(items []item, nodes []Node) []item {
	for i := range nodes {
		n := &nodes[i]
		var it item
		for _, m := range n.Marks {
			switch m.Type {
			case MarkBold:
				it.marks |= mBold
			case MarkItalic:
				it.marks |= mItalic
			case MarkStrike:
				it.marks |= mStrike
			case MarkUnderline:
				it.marks |= mUnderline
			case MarkCode:
				it.marks |= mCode
			case MarkLink:
				if it.link == nil {
					it.link = &linkAttr{m.Href, m.Title}
				}
			}
		}
		switch n.Type {
		case TypeText:
			it.kind = itText
			it.text = n.Text
		case TypeTag, TypeMention:
			it.kind, it.text = itTag, n.Text
			valid := validTagName(n.Text)
			if n.Type == TypeMention {
				it.kind = itMention
				valid = validMentionName(n.Text)
			}
			if !valid || it.marks&mCode != 0 || it.link != nil {
				it.text = sigil(it.kind) + n.Text
				it.kind = itText
			}
		case TypeHardBreak:
			it = item{kind: itBreak}
		default:
			continue
		}
		if it.kind == itText {
			it.text = cleanText(it.text, it.marks&mCode != 0)
			if it.text == "" {
				continue
			}
		}
		items = append(items, it)
	}
	return items
}

func sigil(k itemKind) string {
	if k == itMention {
		return "@"
	}
	return "#"
}

// cleanText replaces NUL, and in code line breaks.
func cleanText(s string, code bool) string {
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	if code && strings.ContainsAny(s, "\r\n") {
		s = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(s)
	}
	return s
}

// nodesFromItems builds inline nodes from canonical items, each slice
// allocated on its own.
func nodesFromItems(items []item) []Node {
	var s *nodeSlab
	return s.nodesFromItems(items)
}

var (
	markBold      = []Mark{{Type: MarkBold}}
	markItalic    = []Mark{{Type: MarkItalic}}
	markBoldItal  = []Mark{{Type: MarkBold}, {Type: MarkItalic}}
	markCode      = []Mark{{Type: MarkCode}}
	markUnderline = []Mark{{Type: MarkUnderline}}
)

func marksOf(it *item) []Mark {
	if it.link == nil {
		// Share the common sets; marks are never modified in place.
		switch it.marks {
		case 0:
			return nil
		case mBold:
			return markBold
		case mItalic:
			return markItalic
		case mBold | mItalic:
			return markBoldItal
		case mCode:
			return markCode
		case mUnderline:
			return markUnderline
		}
	}
	ms := make([]Mark, 0, 3)
	for _, b := range [...]struct {
		bit uint8
		t   MarkType
	}{{mBold, MarkBold}, {mItalic, MarkItalic}, {mStrike, MarkStrike}, {mUnderline, MarkUnderline}, {mCode, MarkCode}} {
		if it.marks&b.bit != 0 {
			ms = append(ms, Mark{Type: b.t})
		}
	}
	if it.link != nil {
		ms = append(ms, Mark{Type: MarkLink, Href: it.link.href, Title: it.link.title})
	}
	return ms
}

// isStripSpace reports the characters Markdown drops at the start and end of
// lines of a paragraph (goldmark's util.IsSpace without line endings; unlike
// Unicode, it does not count \v and \f).
func isStripSpace(c byte) bool {
	return c == ' ' || c == '\t'
}

// isFlankSpace reports Unicode whitespace as the emphasis rules see it.
func isFlankSpace(r rune) bool {
	return util.IsSpaceRune(r)
}

// normInline applies the inline canonicalisation (see Canonical) except the
// final expressibility check, which the planner does.
func normInline(items []item, ctx blockCtx) []item {
	items, _ = normInlineMoved(items, ctx)
	return items
}

// normInlineMoved is normInline, also reporting whether emphasis was taken
// off whitespace at the edge of its range.
func normInlineMoved(items []item, ctx blockCtx) (_ []item, moved bool) {
	if len(items) == 0 {
		return items, false
	}
	// Context rules for hard breaks.
	for i := range items {
		it := &items[i]
		if it.kind == itBreak {
			it.marks, it.link = 0, nil
			switch ctx {
			case ctxHeading3:
				*it = item{kind: itText, text: "\n"}
			case ctxCell:
				*it = item{kind: itText, text: " "}
			}
		}
	}
	showBlankLinks(items)
	items = mergeItems(items)
	if m := moveEdgeSpace(items); len(m) != len(items) || &m[0] != &items[0] {
		m = mergeItems(m)
		moved = !sameItems(m, items)
		items = m
	}
	items = stripSpaces(items, ctx)
	if fixTags(items) {
		items = mergeItems(items)
	}
	return items, moved
}

// showBlankLinks gives a link whose text is only whitespace its destination
// as text (or its title, when the destination is blank): whitespace at a
// line's edge goes, and the link would go with it. The run of items under
// the link becomes one item without other marks; the others are emptied
// (mergeItems drops them).
func showBlankLinks(items []item) {
	for i := 0; i < len(items); i++ {
		l := items[i].link
		if l == nil || items[i].kind != itText {
			continue
		}
		j, blank := i, true
		for ; j < len(items) && items[j].kind == itText && sameLink(items[j].link, l); j++ {
			if blank && (items[j].marks&mCode != 0 || strings.TrimFunc(items[j].text, isFlankSpace) != "") {
				blank = false
			}
		}
		// A hard break inside the link splits its run: the link goes on
		// past it.
		if blank && (sameLinkAcrossBreaks(items, i, -1, l) || sameLinkAcrossBreaks(items, j-1, 1, l)) {
			blank = false
		}
		if shown := linkShownText(l); blank && shown != "" {
			items[i] = item{kind: itText, text: shown, link: l}
			for k := i + 1; k < j; k++ {
				items[k].text = ""
			}
		}
		i = j - 1
	}
}

// sameLinkAcrossBreaks reports whether, from items[from] in direction dir,
// one or more hard breaks are followed by a text item under link l.
func sameLinkAcrossBreaks(items []item, from, dir int, l *linkAttr) bool {
	k := from + dir
	if k < 0 || k >= len(items) || items[k].kind != itBreak {
		return false
	}
	for k >= 0 && k < len(items) && items[k].kind == itBreak {
		k += dir
	}
	return k >= 0 && k < len(items) && items[k].kind == itText && sameLink(items[k].link, l)
}

// linkShownText is the text of a link written without any (`[](url)`): its
// destination, or its title when the destination is blank; "" when both
// are.
func linkShownText(l *linkAttr) string {
	if strings.TrimFunc(l.href, isFlankSpace) != "" {
		return l.href
	}
	if strings.TrimFunc(l.title, isFlankSpace) != "" {
		return l.title
	}
	return ""
}

// sameItems reports whether two item lists are equal.
func sameItems(a, b []item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].kind != b[i].kind || a[i].text != b[i].text || !a[i].sameMarks(&b[i]) {
			return false
		}
	}
	return true
}

// mergeItems joins adjacent text items with equal marks and drops empty ones.
func mergeItems(items []item) []item {
	// Mostly there is nothing to merge: find the first item that changes
	// before rewriting the list in place.
	for i := range items {
		it := &items[i]
		if it.kind == itText && (it.text == "" || i > 0 && items[i-1].kind == itText && items[i-1].sameMarks(it)) {
			return mergeItemsFrom(items, i)
		}
	}
	return items
}

// mergeItemsFrom is mergeItems from items[i] on, the items before it being
// merged already.
func mergeItemsFrom(items []item, i int) []item {
	out := items[:i]
	for _, it := range items[i:] {
		if it.kind == itText && it.text == "" {
			continue
		}
		if n := len(out); n > 0 && it.kind == itText && out[n-1].kind == itText && out[n-1].sameMarks(&it) {
			out[n-1].text += it.text
			continue
		}
		out = append(out, it)
	}
	return out
}

// moveEdgeSpace removes emphasis marks from whitespace at the edges of their
// ranges, so that no emphasis range starts or ends with whitespace. Text is
// split into whitespace and the rest; for each mark, within each run of
// pieces having it, whitespace before the first other piece and after the
// last one loses it. A hard break counts as whitespace inside a run whose
// mark both its neighbours have.
func moveEdgeSpace(items []item) []item {
	edge := false
	for i := range items {
		it := &items[i]
		if it.kind == itText && it.marks&mEmphasis != 0 && it.marks&mCode == 0 && it.text != "" {
			first, _ := utf8.DecodeRuneInString(it.text)
			last, _ := utf8.DecodeLastRuneInString(it.text)
			if isFlankSpace(first) || isFlankSpace(last) {
				edge = true
				break
			}
		}
	}
	if !edge {
		return items
	}
	var pieces []item
	var blank []bool
	needed := false
	for _, it := range items {
		if it.kind != itText || it.marks&mEmphasis == 0 || it.marks&mCode != 0 {
			pieces = append(pieces, it)
			blank = append(blank, false)
			continue
		}
		lead := leadingFlankSpace(it.text)
		if lead == len(it.text) {
			pieces = append(pieces, it)
			blank = append(blank, true)
			needed = true
			continue
		}
		trail := trailingFlankSpace(it.text)
		if lead > 0 {
			p := it
			p.text = it.text[:lead]
			pieces = append(pieces, p)
			blank = append(blank, true)
			needed = true
		}
		core := it
		core.text = it.text[lead : len(it.text)-trail]
		pieces = append(pieces, core)
		blank = append(blank, false)
		if trail > 0 {
			p := it
			p.text = it.text[len(it.text)-trail:]
			pieces = append(pieces, p)
			blank = append(blank, true)
			needed = true
		}
	}
	if !needed {
		return items
	}
	// A hard break is inside a run of a mark that both its neighbours have.
	has := func(k int, bit uint8) bool {
		if pieces[k].kind != itBreak {
			return pieces[k].marks&bit != 0
		}
		l, r := k-1, k+1
		for l >= 0 && pieces[l].kind == itBreak {
			l--
		}
		for r < len(pieces) && pieces[r].kind == itBreak {
			r++
		}
		return l >= 0 && r < len(pieces) && pieces[l].marks&bit != 0 && pieces[r].marks&bit != 0
	}
	for k := range pieces {
		if pieces[k].kind == itBreak {
			blank[k] = true
		}
	}
	for _, bit := range [...]uint8{mBold, mItalic, mStrike, mUnderline} {
		for i := 0; i < len(pieces); {
			if !has(i, bit) {
				i++
				continue
			}
			j := i
			for j < len(pieces) && has(j, bit) {
				j++
			}
			// pieces[i:j] is a run of bit.
			first, last := -1, -1
			for k := i; k < j; k++ {
				if !blank[k] {
					if first < 0 {
						first = k
					}
					last = k
				}
			}
			for k := i; k < j; k++ {
				if blank[k] && pieces[k].kind != itBreak && (first < 0 || k < first || k > last) {
					pieces[k].marks &^= bit
				}
			}
			i = j
		}
	}
	return pieces
}

func leadingFlankSpace(s string) int {
	for i, r := range s {
		if !isFlankSpace(r) {
			return i
		}
	}
	return len(s)
}

func trailingFlankSpace(s string) int {
	n := 0
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if !isFlankSpace(r) {
			break
		}
		n += size
		s = s[:len(s)-size]
	}
	return n
}

// stripSpaces drops the whitespace that Markdown cannot keep: at the block's
// edges, around line breaks, and after hard breaks; it collapses blank lines
// and drops hard breaks at the end. Whitespace here is what goldmark trims
// from lines: spaces and tabs.
func stripSpaces(items []item, ctx blockCtx) []item {
	// Around soft line breaks, inside each text item.
	for i := range items {
		it := &items[i]
		if it.kind == itText && it.marks&mCode == 0 && strings.IndexByte(it.text, '\n') >= 0 {
			it.text = stripAroundNewlines(it.text)
		}
	}
	// The line after a hard break starts without whitespace, unless a link
	// opens there (its '[' comes first).
	afterBreak, stripped := false, false
	var linkBefore *linkAttr
	for i := range items {
		it := &items[i]
		if it.kind == itBreak {
			afterBreak = true
			if i > 0 && items[i-1].kind != itBreak {
				linkBefore = items[i-1].link
			}
			continue
		}
		if !afterBreak {
			continue
		}
		if it.kind != itText || it.marks&mCode != 0 || (it.link != nil && !sameLink(it.link, linkBefore)) {
			afterBreak = false
			continue
		}
		if t := strings.TrimLeft(it.text, " \t\n"); t != it.text {
			it.text = t
			stripped = true
		}
		if it.text != "" {
			afterBreak = false
		}
	}
	if stripped {
		items = mergeItems(items)
	}
	// Leading whitespace of the block.
	for len(items) > 0 {
		it := &items[0]
		if it.kind != itText || it.marks&mCode != 0 || it.link != nil {
			break
		}
		it.text = strings.TrimLeft(it.text, " \t\n")
		if it.text != "" {
			break
		}
		items = items[1:]
	}
	// Trailing whitespace and hard breaks.
	for len(items) > 0 {
		it := &items[len(items)-1]
		if it.kind == itBreak {
			items = items[:len(items)-1]
			continue
		}
		if it.kind != itText || it.marks&mCode != 0 || it.link != nil {
			break
		}
		it.text = strings.TrimRight(it.text, " \t\n")
		if it.text != "" {
			break
		}
		items = items[:len(items)-1]
	}
	return items
}

// stripAroundNewlines removes spaces and tabs around '\n' and collapses runs
// of line breaks to one.
// needsStripAroundNewlines reports whether a newline in s has a space or tab
// or another newline beside it.
func needsStripAroundNewlines(s string) bool {
	for i := strings.IndexByte(s, '\n'); i >= 0; {
		if (i > 0 && isStripSpace(s[i-1])) || (i+1 < len(s) && (isStripSpace(s[i+1]) || s[i+1] == '\n')) {
			return true
		}
		next := strings.IndexByte(s[i+1:], '\n')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

func stripAroundNewlines(s string) string {
	if !needsStripAroundNewlines(s) {
		return s
	}
	out := make([]byte, 0, len(s))
	pending := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' {
			for len(out) > 0 && isStripSpace(out[len(out)-1]) {
				out = out[:len(out)-1]
			}
			if !pending {
				out = append(out, '\n')
			}
			pending = true
			continue
		}
		if pending && isStripSpace(c) {
			continue
		}
		pending = false
		out = append(out, c)
	}
	return string(out)
}

// fixTags turns tags and mentions that Markdown would not read as such into
// text: those after a character that blocks the tag rule, and those directly
// followed by an opening delimiter that cannot be written after a name
// character.
func fixTags(items []item) (changed bool) {
	prev := noPrev
	for i := range items {
		it := &items[i]
		switch it.kind {
		case itTag, itMention:
			if blocksTag(prev) || !tagCanPrecede(items, i) {
				it.text = sigil(it.kind) + it.text
				it.kind = itText
				changed = true
			}
		}
		prev = itemLastRune(it, prev)
	}
	return changed
}

func itemLastRune(it *item, prev rune) rune {
	switch it.kind {
	case itBreak:
		return '\n'
	default:
		if r := lastRune(it.text); r != noPrev {
			return r
		}
	}
	return prev
}

// tagCanPrecede reports whether the tag at i can be followed by what comes
// next: an opening emphasis delimiter right after a name that ends in a
// letter or digit must see a letter or digit next, and must be alone (only
// '*' and '~' delimiters open there).
func tagCanPrecede(items []item, i int) bool {
	it := &items[i]
	if i+1 >= len(items) {
		return true
	}
	last := lastRune(it.text)
	if last == '_' || last == '-' {
		return true
	}
	next := &items[i+1]
	if next.kind == itBreak {
		return true
	}
	opened := next.marks & mEmphasis &^ it.marks
	if opened == 0 {
		return true
	}
	if next.link != nil && !sameLink(next.link, it.link) && linkOpensFirst(items, i+1, opened) {
		return true // '[' comes first
	}
	if it.marks&mEmphasis&^next.marks != 0 {
		return true // closers come first
	}
	if opened != mBold && opened != mItalic && opened != mStrike {
		return false
	}
	if next.kind != itText || next.marks&mCode != 0 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(next.text)
	return !isFlankSpace(r) && !util.IsPunctRune(r)
}

// linkOpensFirst reports whether the writer opens the link at item j before
// the emphasis marks opened there: it runs at least as long as each.
func linkOpensFirst(items []item, j int, opened uint8) bool {
	linkRun := 0
	for k := j; k < len(items) && items[k].link != nil && sameLink(items[k].link, items[j].link); k++ {
		linkRun++
	}
	for _, bit := range [...]uint8{mBold, mItalic, mStrike, mUnderline} {
		if opened&bit == 0 {
			continue
		}
		run := 0
		for k := j; k < len(items) && items[k].marks&bit != 0; k++ {
			run++
		}
		if run > linkRun {
			return false
		}
	}
	return true
}

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
			plan := planInline(normInline(st.items(n.Content), ctxParagraph), inlineCtx{block: ctxParagraph})
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
			plan := planInline(normInline(st.items(n.Content), ctx), inlineCtx{block: ctx})
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
	if n.Type == TypeCallout && (n.Attrs.Kind == CalloutWhy || n.Attrs.Kind == CalloutDecision) {
		// The first paragraph continues the label's line.
		if len(content) > 0 && content[0].Type == TypeParagraph {
			plan := planInline(st.items(content[0].Content), inlineCtx{block: ctxParagraph, noLineStart: true})
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
		return Node{Type: TypeCallout, Attrs: Attrs{Kind: n.Attrs.Kind}, Content: content}
	}
	if kind, rest, ok := splitCalloutKeep(content, st); ok {
		return Node{Type: TypeCallout, Attrs: Attrs{Kind: kind}, Content: rest}
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
func splitCallout(blocks []Node) (CalloutKind, []Node, bool) {
	return splitCalloutKeep(blocks, nil)
}

func splitCalloutKeep(blocks []Node, st *canonState) (CalloutKind, []Node, bool) {
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
	var kind CalloutKind
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
		plan = planInline(items, inlineCtx{block: ctxParagraph, noLineStart: true})
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
			plan := planInline(normInline(st.items(p.Content), ctxCell), inlineCtx{block: ctxCell})
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
			plan := planInline(normInline(st.items(inl), ctxCell), inlineCtx{block: ctxCell})
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
