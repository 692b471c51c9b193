package markdown

import (
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/util"
)

// The inline half of canonicalisation: a paragraph's or heading's inline
// nodes as items (text with its marks), merged, with spaces and tags moved
// where the writer can express them.

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
		var linkVal linkAttr // link's attributes, without an allocation
		for k, mk := range n.Marks {
			var bit uint8
			switch mk.Type {
			case MarkBold, MarkItalic, MarkStrike, MarkUnderline, MarkCode:
				bit = markBit(mk.Type)
			case MarkLink:
				if link != nil || k != len(n.Marks)-1 {
					return false
				}
				linkVal = linkAttr{mk.Href, mk.Title}
				link = &linkVal
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

type itemClass uint8

const (
	itText itemClass = iota
	itTag
	itMention
	itBreak
)

// item is one inline node in flat form: text (possibly code), a tag or
// mention, or a hard break.
type item struct {
	kind  itemClass
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

// markBit is the item bit of a bold, italic, strike, underline or code
// mark; 0 for any other mark.
func markBit(t MarkType) uint8 {
	switch t {
	case MarkBold:
		return mBold
	case MarkItalic:
		return mItalic
	case MarkStrike:
		return mStrike
	case MarkUnderline:
		return mUnderline
	case MarkCode:
		return mCode
	}
	return 0
}

// itemsFromNodes flattens inline nodes into items, applying the per-node
// rules (mark order, invalid tags, code line breaks).
func itemsFromNodes(nodes []Node) []item {
	return appendItems(make([]item, 0, len(nodes)), nodes)
}

func appendItems(items []item, nodes []Node) []item {
	// Texts under one link share its attributes (items compare links by
	// value: sharing changes nothing but the allocations).
	var last *linkAttr
	for i := range nodes {
		n := &nodes[i]
		var it item
		for _, m := range n.Marks {
			switch m.Type {
			case MarkBold, MarkItalic, MarkStrike, MarkUnderline, MarkCode:
				it.marks |= markBit(m.Type)
			case MarkLink:
				if it.link == nil {
					if last == nil || last.href != m.Href || last.title != m.Title {
						last = &linkAttr{m.Href, m.Title}
					}
					it.link = last
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

// appendParsedItems is appendItems for Parse's output (renderParsed),
// which is canonical: Canonical(Parse(s)) == Parse(s), which the property
// tests and every fuzz target check. Canonicalisation would turn a tag or
// mention with an invalid name, a code mark or a link into text, and clean
// a text of NUL and (in code) line breaks; a node it changes would make the
// document differ from its canonical form, so on Parse's output those
// checks change nothing, and they are skipped: each node's marks and text
// are taken as they are. (With checkParsed, render compares renderParsed's
// Markdown with renderCanonical's, which flattens with appendItems.)
//
// The links' attributes go into links, which the caller reuses once it is
// done with the items (one allocation per render instead of one per link).
func appendParsedItems(items []item, links *[]linkAttr, nodes []Node) []item {
	var last *linkAttr
	for i := range nodes {
		n := &nodes[i]
		var it item
		for _, m := range n.Marks {
			switch m.Type {
			case MarkBold, MarkItalic, MarkStrike, MarkUnderline, MarkCode:
				it.marks |= markBit(m.Type)
			case MarkLink:
				if it.link == nil {
					if last == nil || last.href != m.Href || last.title != m.Title {
						// A full buffer is replaced, not grown: the items
						// so far point into it.
						if len(*links) == cap(*links) {
							*links = make([]linkAttr, 0, max(8, 2*cap(*links)))
						}
						*links = append(*links, linkAttr{m.Href, m.Title})
						last = &(*links)[len(*links)-1]
					}
					it.link = last
				}
			}
		}
		switch n.Type {
		case TypeText:
			if n.Text == "" {
				continue
			}
			it.kind, it.text = itText, n.Text
		case TypeTag:
			it.kind, it.text = itTag, n.Text
		case TypeMention:
			it.kind, it.text = itMention, n.Text
		case TypeHardBreak:
			it = item{kind: itBreak}
		default:
			continue
		}
		items = append(items, it)
	}
	return items
}

func sigil(k itemClass) string {
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
		if t := trimLeftBlank(it.text); t != it.text {
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
		it.text = trimLeftBlank(it.text)
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
		it.text = trimRightBlank(it.text)
		if it.text != "" {
			break
		}
		items = items[:len(items)-1]
	}
	return items
}

// trimLeftBlank is strings.TrimLeft(s, " \t\n") without building the
// cutset's table on every call: stripSpaces trims every block's edges.
func trimLeftBlank(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	return s[i:]
}

// trimRightBlank is strings.TrimRight(s, " \t\n"), as trimLeftBlank.
func trimRightBlank(s string) string {
	i := len(s)
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t' || s[i-1] == '\n') {
		i--
	}
	return s[:i]
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
