package markdown

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The inline writer. Markdown's emphasis rules (delimiter runs, flanking,
// the rule of 3) decide whether `**` opens, closes or is literal from the
// characters around it, so the writer works in passes:
//
//  1. plan the spans: which marks open and close at each boundary between
//     items, nesting the longer-running marks outside and opening a link
//     before any emphasis at the same point;
//  2. choose the delimiters: ** bold, * or _ italic, ~~ strike, __
//     underline, with italic switching to _ where * would fuse with a
//     neighbouring run of the other side;
//  3. write the tokens, escaping text where needed, and write a character
//     next to a delimiter as a numeric reference (&#97;) where a letter or
//     digit there would stop the delimiter from opening or closing;
//  4. replay goldmark's delimiter algorithm on the result and check that
//     every delimiter matches as planned; if not, retry with references
//     around every delimiter, and as a last resort drop the emphasis that
//     cannot be written (see Canonical).

type inlineCtx struct {
	block       blockCtx
	noLineStart bool // the content continues a line (a callout's first paragraph)
	// arena: where the written Markdown goes (Render's, which keeps it only
	// until the document is written); nil: a string of its own
	arena *textArena
	// writer: the writer to use (renderParsed's, one for all its blocks);
	// nil: one from writerPool for this content
	writer *inlineWriter
}

var writerPool = sync.Pool{New: func() any { return new(inlineWriter) }}

type inlinePlan struct {
	items []item
	out   string
}

// planInline writes items, returning what was written and the items as
// written.
func planInline(items []item, ctx inlineCtx) inlinePlan {
	if len(items) == 0 {
		return inlinePlan{}
	}
	return renderInline(items, ctx)
}

// plainText reports whether the items are one unmarked text that is written
// as itself in any block: one line of characters the writer never escapes
// (plainByte, or beyond ASCII), starting and ending with a visible ASCII
// character and not starting like a block construct. Short texts (table
// cells, list items) mostly are, and skip the writer.
func plainText(items []item) bool {
	if len(items) != 1 || items[0].kind != itText || items[0].marks != 0 || items[0].link != nil {
		return false
	}
	t := items[0].text
	if t == "" || t[0] == ' ' || t[len(t)-1] == ' ' || t[0] >= utf8.RuneSelf || t[len(t)-1] >= utf8.RuneSelf {
		return false
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; c < utf8.RuneSelf && !plainByte[c] {
			return false
		}
	}
	return lineEscape(t) < 0
}

// renderInline writes canonical items as Markdown. Line breaks in the result
// are bare "\n"; the block writer adds container prefixes.
func renderInline(items []item, ctx inlineCtx) inlinePlan {
	if len(items) == 0 {
		return inlinePlan{}
	}
	if plainText(items) {
		return inlinePlan{items: items, out: items[0].text}
	}
	w := ctx.writer
	if w == nil {
		w = writerPool.Get().(*inlineWriter)
		defer func() {
			w.ctx.arena = nil // the pool keeps no render's arena alive
			writerPool.Put(w)
		}()
	}
	w.ctx, w.splitEarly, w.italicUnderscore, w.runMemo = ctx, false, false, runMemo{}
	if ctx.block == ctxHeading {
		w.atx = !hasLineBreak(items)
	} else {
		w.atx = ctx.block == ctxHeading3
	}
	cur := items
	// A paragraph starting with "[label]:" would be read as a link
	// reference definition. Text '[' is escaped there; a link's label can
	// only end early inside code, whose mark then goes.
	if w.startsBlock() && mayStartDefinition(cur) {
		for {
			out, ok := w.tryAll(cur)
			if !ok || !startsDefinition(out) || !parsesAsDefinition(out) {
				break
			}
			next, changed := dropCodeWithBracket(cur)
			if !changed {
				break
			}
			cur = normInline(next, ctx.block)
		}
	}
	drops := [...]uint8{mUnderline, mStrike, mItalic, mBold}
	dropped := 0
	tagsFreed := false
	for {
		for _, policy := range policies {
			w.splitEarly, w.italicUnderscore = policy[0], policy[1]
			if out, ok := w.try(cur, false); ok {
				return inlinePlan{items: cur, out: out}
			}
			if out, ok := w.try(cur, true); ok {
				return inlinePlan{items: cur, out: out}
			}
		}
		w.splitEarly, w.italicUnderscore = false, false
		if !tagsFreed {
			tagsFreed = true
			if next, changed := freeUnderscoreTags(cur); changed {
				cur = next
				continue
			}
		}
		if dropped == len(drops) {
			// Unreachable in practice: without emphasis nothing can fail.
			out, _ := w.try(cur, true)
			return inlinePlan{items: cur, out: out}
		}
		next := make([]item, len(cur))
		copy(next, cur)
		for i := range next {
			next[i].marks &^= drops[dropped]
		}
		dropped++
		cur = normInline(next, ctx.block)
	}
}

// startsBlock reports whether the content starts a paragraph (so that its
// first line could be a link reference definition).
func (w *inlineWriter) startsBlock() bool {
	return !w.ctx.noLineStart && !w.atx && w.ctx.block != ctxCell
}

// policies are the writer's nesting choices, tried in order: split spans
// late or early where they cross, write italic with '*' or with '_' (which
// cannot fuse or pair with bold's '**').
var policies = [...][2]bool{{false, false}, {true, false}, {false, true}, {true, true}}

// tryAll runs the attempts of the writer.
func (w *inlineWriter) tryAll(items []item) (string, bool) {
	defer func() { w.splitEarly, w.italicUnderscore = false, false }()
	for _, policy := range policies {
		w.splitEarly, w.italicUnderscore = policy[0], policy[1]
		if out, ok := w.try(items, false); ok {
			return out, true
		}
		if out, ok := w.try(items, true); ok {
			return out, true
		}
	}
	return w.try(items, true)
}

// mayStartDefinition reports whether items start with a link whose text
// holds code with a ']' (the only way a written paragraph can start with a
// definition label).
func mayStartDefinition(items []item) bool {
	if len(items) == 0 || items[0].link == nil {
		return false
	}
	for i := range items {
		if !sameLink(items[i].link, items[0].link) {
			break
		}
		if items[i].marks&mCode != 0 && strings.IndexByte(items[i].text, ']') >= 0 {
			return true
		}
	}
	return false
}

// startsDefinition reports whether Markdown would read the start of out as
// a link reference definition label: '[' up to the first unescaped ']'
// (code spans do not count), then ':'.
func startsDefinition(out string) bool {
	if !strings.HasPrefix(out, "[") {
		return false
	}
	for i := 1; i < len(out); i++ {
		switch out[i] {
		case '\\':
			if i+1 < len(out) && util.IsPunct(out[i+1]) {
				i++
			}
		case ']':
			return i+1 < len(out) && out[i+1] == ':'
		}
	}
	return false
}

// parsesAsDefinition confirms with goldmark's definition parser that a
// paragraph written as out would start with a link reference definition.
func parsesAsDefinition(out string) bool {
	doc := mdParser.Parse(text.NewReader([]byte(out)))
	_, ok := doc.FirstChild().(*ast.LinkReferenceDefinition)
	return ok
}

func dropCodeWithBracket(items []item) ([]item, bool) {
	out := make([]item, len(items))
	copy(out, items)
	changed := false
	for i := range out {
		if out[i].marks&mCode != 0 && strings.IndexByte(out[i].text, ']') >= 0 {
			out[i].marks &^= mCode
			changed = true
		}
	}
	return out, changed
}

// hasBreak reports whether items hold a hard break.
func hasBreak(items []item) bool {
	for i := range items {
		if items[i].kind == itBreak {
			return true
		}
	}
	return false
}

func hasLineBreak(items []item) bool {
	for i := range items {
		it := &items[i]
		if it.kind == itBreak || (it.kind == itText && it.marks&mCode == 0 && strings.IndexByte(it.text, '\n') >= 0) {
			return true
		}
	}
	return false
}

// freeUnderscoreTags turns tags and mentions whose names hold '_' into text,
// where the underscore can be escaped.
func freeUnderscoreTags(items []item) ([]item, bool) {
	changed := false
	out := make([]item, len(items))
	copy(out, items)
	for i := range out {
		if (out[i].kind == itTag || out[i].kind == itMention) && strings.IndexByte(out[i].text, '_') >= 0 {
			out[i].text = sigil(out[i].kind) + out[i].text
			out[i].kind = itText
			changed = true
		}
	}
	if !changed {
		return items, false
	}
	return mergeItems(out), true
}

type spanKind uint8

const (
	spBold spanKind = iota
	spItalic
	spStrike
	spUnderline
	spLink
)

var spanBits = [...]uint8{spBold: mBold, spItalic: mItalic, spStrike: mStrike, spUnderline: mUnderline}

type span struct {
	kind     spanKind
	link     *linkAttr
	ch       byte // delimiter character of emphasis
	autolink bool
}

type boundary struct {
	closers []int // inner first
	openers []int // outer first
}

type tokKind uint8

const (
	tkText tokKind = iota
	tkDelim
	tkCode
	tkAtom
	tkLinkOpen
	tkLinkClose
	tkBreak
)

type token struct {
	kind  tokKind
	item  int    // item index (text, code, atom, break)
	span  int    // span index (delim, link)
	open  bool   // delim: opening
	pos   int    // boundary index of a delimiter
	scope int    // link scope: span index of the enclosing link + 1, or 0
	s     string // written form (all but text)
	// text tokens: written form in the writer's arena
	forceFirst, forceLast bool
	from, to              int
	// written first and last runes, for the flanking rules
	first, last rune
}

type inlineWriter struct {
	ctx inlineCtx
	atx bool
	// splitEarly: where a span opens that outlasts an open one, close the
	// open one and reopen it inside (instead of splitting the new one where
	// the open one ends).
	splitEarly bool
	// italicUnderscore: write italic with '_' where it does not touch an
	// underline.
	italicUnderscore bool

	items []item
	// eff: the items as the plan reads them, where a hard break has the
	// emphasis and link its neighbours share; only their emphasis bits and
	// link are read. effBuf keeps eff's buffer when it is a copy.
	eff    []item
	effBuf []item
	spans  []span
	bounds []boundary
	toks   []token
	prev   []rune // decoded character before each item
	stack  []int
	kinds  []spanKind
	sims   []simRun
	simPtr []*simRun
	got    []uint8
	depth  []int32

	arena  []byte
	runBuf []runInfo

	// verify's buffers: the matched delimiters, the runs' links
	matches []match
	links   []int

	runMemo runMemo
}

// try plans and writes items; ok is false when the replayed delimiter
// algorithm disagrees with the plan.
func (w *inlineWriter) try(items []item, aggressive bool) (string, bool) {
	w.items = items
	w.planSpans()
	w.buildTokens()
	w.writeTexts()
	// Without spans there is no delimiter to fix the flanking of.
	for round := 0; round < 8 && (len(w.spans) > 0 || fullPlan); round++ {
		if !w.fixFlanking(aggressive) {
			break
		}
		w.writeTexts()
	}
	ok := w.verify()
	return w.join(), ok
}

// planSpans computes the effective marks and the span boundaries.
func (w *inlineWriter) planSpans() {
	n := len(w.items)
	// Items without emphasis or a link (most of a note's lines, list items
	// and cells) open no span: the plan is empty, and buildTokens, which
	// reads the boundaries only when there are spans, lays out the tokens
	// without them.
	if !fullPlan && !hasSpans(w.items) {
		w.spans = w.spans[:0]
		return
	}
	// The plan reads only the emphasis bits and the link of eff, which are
	// the items' own except at hard breaks: without one, eff is the items
	// themselves (read only), not a copy.
	if !hasBreak(w.items) {
		w.eff = w.items
	} else {
		w.eff = append(w.effBuf[:0], w.items...)
		w.effBuf = w.eff
	}
	for i := range w.eff {
		e := &w.eff[i]
		if e.kind != itBreak {
			continue
		}
		e.marks &= mEmphasis
		var pm, nm uint8
		var pl, nl *linkAttr
		for j := i - 1; j >= 0; j-- {
			if w.items[j].kind != itBreak {
				pm, pl = w.items[j].marks&mEmphasis, w.items[j].link
				break
			}
		}
		for j := i + 1; j < n; j++ {
			if w.items[j].kind != itBreak {
				nm, nl = w.items[j].marks&mEmphasis, w.items[j].link
				break
			}
		}
		e.marks = pm & nm
		e.link = nil
		if sameLink(pl, nl) {
			e.link = pl
		}
	}
	w.spans = w.spans[:0]
	if cap(w.bounds) < n+1 {
		w.bounds = append(w.bounds[:cap(w.bounds)], make([]boundary, n+1-cap(w.bounds))...)
	}
	w.bounds = w.bounds[:n+1]
	for i := range w.bounds {
		w.bounds[i].closers = w.bounds[i].closers[:0]
		w.bounds[i].openers = w.bounds[i].openers[:0]
	}
	stack := w.stack[:0]
	defer func() { w.stack = stack[:0] }()
	for i := 0; i <= n; i++ {
		var want item
		if i < n {
			want = w.eff[i]
		}
		k := 0
		for k < len(stack) && w.spanWanted(stack[k], &want) {
			k++
		}
		if w.splitEarly && i < n {
			k = w.earlySplit(stack, k, i, &want)
		}
		b := &w.bounds[i]
		for j := len(stack) - 1; j >= k; j-- {
			b.closers = append(b.closers, stack[j])
		}
		stack = stack[:k]
		if i == n {
			break
		}
		// Marks to open, outer first.
		var have uint8
		haveLink := false
		for _, s := range stack {
			if w.spans[s].kind == spLink {
				haveLink = true
			} else {
				have |= spanBits[w.spans[s].kind]
			}
		}
		kinds := w.kinds[:0]
		if want.link != nil && !haveLink {
			kinds = append(kinds, spLink)
		}
		for k := spBold; k <= spUnderline; k++ {
			if want.marks&spanBits[k] != 0 && have&spanBits[k] == 0 {
				kinds = append(kinds, k)
			}
		}
		// Longer runs outside; ties: the link, then schema order.
		for a := 1; a < len(kinds); a++ {
			for c := a; c > 0 && w.runLen(i, kinds[c]) > w.runLen(i, kinds[c-1]); c-- {
				kinds[c], kinds[c-1] = kinds[c-1], kinds[c]
			}
		}
		for _, k := range kinds {
			sp := span{kind: k, ch: delimChar(k)}
			if k == spLink {
				sp.link = want.link
			}
			if k == spItalic && (w.italicUnderscore || w.italicNeedsUnderscore(i)) {
				sp.ch = '_'
			}
			w.spans = append(w.spans, sp)
			b.openers = append(b.openers, len(w.spans)-1)
		}
		w.kinds = kinds[:0]
		w.resolveFusion(b)
		stack = append(stack, b.openers...)
	}
	w.markAutolinks()
}

// fullPlan makes the writer run every pass on items without spans too
// (tests: the oracle of that shortcut, TestRenderParsedMatchesFull).
var fullPlan = false

// hasSpans reports whether any item has emphasis or a link, that is,
// whether planSpans opens any span. (A hard break's effective marks are
// those its neighbours share, so without marks on any item it has none.)
func hasSpans(items []item) bool {
	for i := range items {
		if items[i].marks&mEmphasis != 0 || items[i].link != nil {
			return true
		}
	}
	return false
}

// earlySplit lowers k to the outermost kept emphasis span that ends before
// an emphasis mark opening at boundary i.
func (w *inlineWriter) earlySplit(stack []int, k, i int, want *item) int {
	longest := 0
	for sk := spBold; sk <= spUnderline; sk++ {
		bit := spanBits[sk]
		if want.marks&bit == 0 {
			continue
		}
		open := false
		for _, s := range stack[:k] {
			if w.spans[s].kind == sk {
				open = true
			}
		}
		if !open {
			longest = max(longest, w.runLen(i, sk))
		}
	}
	if longest == 0 {
		return k
	}
	for j := 0; j < k; j++ {
		sp := &w.spans[stack[j]]
		if sp.kind != spLink && w.runLen(i, sp.kind) < longest {
			return j
		}
	}
	return k
}

func delimChar(k spanKind) byte {
	switch k {
	case spStrike:
		return '~'
	case spUnderline:
		return '_'
	}
	return '*'
}

func (w *inlineWriter) spanWanted(s int, want *item) bool {
	sp := &w.spans[s]
	if sp.kind == spLink {
		return want.link != nil && sameLink(sp.link, want.link)
	}
	return want.marks&spanBits[sp.kind] != 0
}

func (w *inlineWriter) runLen(i int, k spanKind) int {
	n := 0
	if k == spLink {
		for j := i; j < len(w.eff) && w.eff[j].link != nil && sameLink(w.eff[j].link, w.eff[i].link); j++ {
			n++
		}
		return n
	}
	for j := i; j < len(w.eff) && w.eff[j].marks&spanBits[k] != 0; j++ {
		n++
	}
	return n
}

// italicNeedsUnderscore reports whether an italic span opening at boundary i
// had better use '_': where it ends, a bold span opens (or, having opened
// inside it, reopens), and the two '*' runs would fuse.
func (w *inlineWriter) italicNeedsUnderscore(i int) bool {
	end := i + w.runLen(i, spItalic)
	if end >= len(w.eff) || end == 0 || w.eff[end].marks&mBold == 0 {
		return false
	}
	if w.eff[end].marks&mUnderline != 0 && w.eff[end-1].marks&mUnderline == 0 {
		return false // an underline opens there too: '_' would fuse with it
	}
	bStart := end
	for bStart > 0 && w.eff[bStart-1].marks&mBold != 0 {
		bStart--
	}
	return bStart > i || (bStart == i && w.runLen(i, spBold) <= w.runLen(i, spItalic))
}

// resolveFusion reorders the openers at a boundary so that the first one does
// not use the same character as the last closer (the two runs would fuse
// into one that both closes and opens).
func (w *inlineWriter) resolveFusion(b *boundary) {
	if len(b.closers) == 0 || len(b.openers) == 0 {
		return
	}
	last := w.spans[b.closers[len(b.closers)-1]]
	if last.kind == spLink {
		return
	}
	c := last.ch
	first := &w.spans[b.openers[0]]
	if first.kind == spLink || first.ch != c {
		return
	}
	for j := 1; j < len(b.openers); j++ {
		if w.spans[b.openers[j]].ch != c {
			o := b.openers[j]
			copy(b.openers[1:j+1], b.openers[:j])
			b.openers[0] = o
			return
		}
	}
	for j := 0; j < len(b.openers); j++ {
		sp := &w.spans[b.openers[j]]
		if sp.kind == spItalic {
			if c == '*' {
				sp.ch = '_'
			} else {
				sp.ch = '*'
			}
			o := b.openers[j]
			copy(b.openers[1:j+1], b.openers[:j])
			b.openers[0] = o
			return
		}
	}
}

// markAutolinks marks the links written as <url>: one plain text item equal
// to its destination.
func (w *inlineWriter) markAutolinks() {
	for i := range w.bounds {
		for _, s := range w.bounds[i].openers {
			sp := &w.spans[s]
			if sp.kind != spLink || i >= len(w.items) || sp.link.title != "" {
				continue
			}
			it := &w.items[i]
			if it.kind != itText || it.marks != 0 {
				continue
			}
			if i+1 < len(w.items) && sameLink(w.items[i+1].link, sp.link) {
				continue
			}
			if len(w.bounds[i].openers) != 1 {
				continue
			}
			sp.autolink = autolinkable(it.text, sp.link.href, w.ctx.block == ctxCell)
		}
	}
}

func autolinkable(text, href string, inTable bool) bool {
	// Most links' text is not their destination: that is checked first,
	// before the text is searched.
	plain := href == text
	mailto := !plain && len(href) == len("mailto:")+len(text) && strings.HasPrefix(href, "mailto:") && href[len("mailto:"):] == text
	if !plain && !mailto {
		return false
	}
	if strings.ContainsAny(text, "&\\") || (inTable && strings.IndexByte(text, '|') >= 0) {
		return false
	}
	b := unsafe.Slice(unsafe.StringData(text), len(text)) // read only
	if plain {
		return util.FindEmailIndex(b) < 0 && util.FindURLIndex(b) == len(b)
	}
	return util.FindEmailIndex(b) == len(b)
}

// buildTokens lays out the token sequence from the plan.
func (w *inlineWriter) buildTokens() {
	w.toks = w.toks[:0]
	w.prev = w.prev[:0]
	p := noPrev
	for i := range w.items {
		w.prev = append(w.prev, p)
		p = itemLastRune(&w.items[i], p)
	}
	if len(w.spans) == 0 && !fullPlan {
		// No spans: every boundary is empty and no item is in a link.
		w.itemTokens()
		return
	}
	scope := 0
	for i := 0; i <= len(w.items); i++ {
		b := &w.bounds[i]
		for _, s := range b.closers {
			sp := &w.spans[s]
			if sp.kind == spLink {
				scope = 0
				if !sp.autolink {
					w.toks = append(w.toks, token{kind: tkLinkClose, span: s, s: linkTail(sp.link, w.ctx.block == ctxCell), first: ']', last: ')'})
				}
				continue
			}
			w.toks = append(w.toks, token{kind: tkDelim, span: s, pos: i, scope: scope, s: delimString(sp), first: rune(sp.ch), last: rune(sp.ch)})
		}
		for _, s := range b.openers {
			sp := &w.spans[s]
			if sp.kind == spLink {
				scope = s + 1
				if !sp.autolink {
					w.toks = append(w.toks, token{kind: tkLinkOpen, span: s, s: "[", first: '[', last: '['})
				}
				continue
			}
			w.toks = append(w.toks, token{kind: tkDelim, span: s, open: true, pos: i, scope: scope, s: delimString(sp), first: rune(sp.ch), last: rune(sp.ch)})
		}
		if i == len(w.items) {
			break
		}
		it := &w.items[i]
		switch {
		case it.kind == itBreak || it.kind == itTag || it.kind == itMention || it.marks&mCode != 0:
			w.toks = append(w.toks, w.itemToken(i, scope))
		case scope > 0 && w.spans[scope-1].autolink:
			s := w.ctx.arena.concat("<", it.text, ">")
			w.toks = append(w.toks, token{kind: tkAtom, item: i, s: s, first: '<', last: '>'})
		default:
			w.toks = append(w.toks, token{kind: tkText, item: i, scope: scope})
		}
	}
}

// itemTokens is buildTokens' layout of items outside any span: one token
// per item, with no delimiters, links or scopes.
func (w *inlineWriter) itemTokens() {
	w.toks = slices.Grow(w.toks, len(w.items))
	for i := range w.items {
		it := &w.items[i]
		switch {
		case it.kind == itBreak || it.kind == itTag || it.kind == itMention || it.marks&mCode != 0:
			w.toks = append(w.toks, w.itemToken(i, 0))
		default:
			w.toks = append(w.toks, token{kind: tkText, item: i})
		}
	}
}

// itemToken is the token of item i when it is a hard break, a tag or
// mention (in scope), or code: written whole, never split by a delimiter.
func (w *inlineWriter) itemToken(i, scope int) token {
	it := &w.items[i]
	switch {
	case it.kind == itBreak:
		return token{kind: tkBreak, item: i, s: "\\\n", first: '\\', last: '\n'}
	case it.kind == itTag || it.kind == itMention:
		s := w.ctx.arena.concat(sigil(it.kind), it.text)
		return token{kind: tkAtom, item: i, scope: scope, s: s, first: rune(s[0]), last: lastRune(s)}
	}
	return token{kind: tkCode, item: i, s: codeSpan(w.ctx.arena, it.text, w.ctx.block == ctxCell), first: '`', last: '`'}
}

func delimString(sp *span) string {
	switch {
	case sp.kind == spItalic && sp.ch == '_':
		return "_"
	case sp.kind == spItalic:
		return "*"
	case sp.ch == '_':
		return "__"
	case sp.ch == '~':
		return "~~"
	}
	return "**"
}

// codeSpan writes code with a backtick fence longer than any run inside it
// and spaces where Markdown would otherwise strip or join.
func codeSpan(a *textArena, code string, inTable bool) string {
	if inTable && strings.IndexByte(code, '|') >= 0 {
		code = strings.ReplaceAll(code, "|", "\\|")
	}
	runs := map[int]bool{}
	for i := 0; i < len(code); {
		if code[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(code) && code[j] == '`' {
			j++
		}
		runs[j-i] = true
		i = j
	}
	n := 1
	for runs[n] {
		n++
	}
	fence := "``"[:min(n, 2)]
	if n > 2 {
		fence = strings.Repeat("`", n)
	}
	pad := code[0] == '`' || code[len(code)-1] == '`' ||
		(code[0] == ' ' && code[len(code)-1] == ' ' && !util.IsBlank([]byte(code)))
	if pad {
		return a.concat(fence, " ", code, " ", fence)
	}
	return a.concat(fence, code, fence)
}

// linkTail writes "](destination "title")".
func linkTail(l *linkAttr, inTable bool) string {
	var b strings.Builder
	// Escapes aside, the tail is the destination and title with at most 7
	// bytes around them: one allocation instead of the builder's doublings.
	b.Grow(len(l.href) + len(l.title) + 8)
	b.WriteString("](")
	switch {
	case l.href == "" && l.title != "":
		b.WriteString("<>")
	case strings.IndexByte(l.href, ' ') >= 0 && !strings.ContainsAny(l.href, "<>\n\r"):
		writePointyDestination(&b, l.href, inTable)
	default:
		writeDestination(&b, l.href, inTable)
	}
	if l.title != "" {
		b.WriteString(" \"")
		writeTitle(&b, l.title, inTable)
		b.WriteByte('"')
	}
	b.WriteByte(')')
	return b.String()
}

func writeDestination(b *strings.Builder, href string, inTable bool) {
	balanced := parensBalanced(href)
	writeEscaped(b, href, inTable,
		func(c byte) bool { return c <= ' ' || c == 0x7f },
		func(c byte) bool { return c == '\\' || c == '<' || c == '>' || (c == '(' || c == ')') && !balanced })
}

// writePointyDestination writes <destination>, for one holding spaces.
func writePointyDestination(b *strings.Builder, href string, inTable bool) {
	b.WriteByte('<')
	writeEscaped(b, href, inTable,
		func(c byte) bool { return c < ' ' || c == 0x7f },
		func(c byte) bool { return c == '\\' })
	b.WriteByte('>')
}

func parensBalanced(s string) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
			if depth > 16 {
				return false
			}
		case ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

func writeTitle(b *strings.Builder, title string, inTable bool) {
	writeEscaped(b, title, inTable,
		func(c byte) bool { return c == '\n' || c == '\r' },
		func(c byte) bool { return c == '"' || c == '\\' })
}

// writeEscaped writes s, a link's destination or title: a byte charRef picks as a character
// reference, a byte backslash picks behind a backslash, and, as everywhere in a link, an
// entity-like & and (in a table cell) | escaped so that they stay literal.
func writeEscaped(b *strings.Builder, s string, inTable bool, charRef, backslash func(c byte) bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case charRef(c):
			writeCharRef(b, rune(c))
		case backslash(c):
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '&' && entityLike(s[i:]):
			b.WriteString("\\&")
		case c == '|' && inTable:
			b.WriteString("\\|")
		default:
			b.WriteByte(c)
		}
	}
}

func writeCharRef(b *strings.Builder, r rune) {
	b.WriteString("&#")
	b.WriteString(strconv.Itoa(int(r)))
	b.WriteByte(';')
}

// entityLike reports whether s starts with something Markdown could read as
// a character reference: &name; or &#digits; or &#xhex;.
func entityLike(s string) bool {
	if len(s) < 3 || s[0] != '&' {
		return false
	}
	i := 1
	if s[1] == '#' {
		i = 2
		if i < len(s) && (s[i] == 'x' || s[i] == 'X') {
			i++
			j := i
			for j < len(s) && util.IsHexDecimal(s[j]) {
				j++
			}
			return j > i && j < len(s) && s[j] == ';'
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return j > i && j < len(s) && s[j] == ';'
	}
	j := i
	for j < len(s) && util.IsAlphaNumeric(s[j]) {
		j++
	}
	return j > i && j < len(s) && s[j] == ';'
}

// writeTexts writes every text token.
func (w *inlineWriter) writeTexts() {
	w.arena = w.arena[:0]
	for t := range w.toks {
		if w.toks[t].kind == tkText {
			w.writeText(t)
		}
	}
}

// plainByte marks the ASCII characters that writeText writes as themselves
// wherever they stand in a text other than its first and last character and a
// line start: needsEscape has no rule for them.
var plainByte = func() (t [utf8.RuneSelf]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = c >= ' ' && !strings.ContainsRune("\\*~_`[]|!<&#@", rune(c))
	}
	return t
}()

// lineStartAt reports whether token t starts a line.
func (w *inlineWriter) lineStartAt(t int) bool {
	if w.atx || w.ctx.block == ctxCell {
		return false
	}
	if t == 0 {
		return !w.ctx.noLineStart
	}
	p := &w.toks[t-1]
	switch p.kind {
	case tkBreak:
		return true
	case tkText:
		return strings.HasSuffix(w.items[p.item].text, "\n")
	}
	return false
}

// writeText escapes one text token for its context, into the arena.
func (w *inlineWriter) writeText(t int) {
	tok := &w.toks[t]
	it := &w.items[tok.item]
	text := it.text
	inLink := it.link != nil
	var next *token
	if t+1 < len(w.toks) {
		next = &w.toks[t+1]
	}
	lastTok := next == nil
	afterAtom := tok.item > 0 && (w.items[tok.item-1].kind == itTag || w.items[tok.item-1].kind == itMention) &&
		w.items[tok.item-1].sameMarks(it) && t > 0 && w.toks[t-1].kind == tkAtom
	b := w.arena
	tok.from = len(b)
	lineStart := w.lineStartAt(t)
	prev := w.prev[tok.item]
	escapeAt := -1 // byte index to escape for a line-start construct
	firstSet := false
	prevRaw := false // the previous character was written as itself
	note := func(first, last rune) {
		if !firstSet {
			tok.first, firstSet = first, true
		}
		tok.last = last
		prevRaw = first == last && first != '&' && first != '\\'
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		atEnd := i+size == len(text)
		switch {
		case r == '\n' && (w.atx || w.ctx.block == ctxCell):
			b = append(b, "&#10;"...)
			note('&', ';')
		case r == '\n':
			b = append(b, '\n')
			note('\n', '\n')
			prev = r
			i += size
			lineStart = true
			continue
		case (i == 0 && tok.forceFirst) || (atEnd && tok.forceLast):
			b = appendCharRef(b, r)
			note('&', ';')
		case i == 0 && afterAtom && continuesName(w.items[tok.item-1].kind == itMention, text):
			if r < utf8.RuneSelf && util.IsPunct(byte(r)) {
				b = append(b, '\\', byte(r))
				note('\\', r)
			} else {
				b = appendCharRef(b, r)
				note('&', ';')
			}
		case r == '\r':
			b = append(b, "&#13;"...)
			note('&', ';')
		default:
			if lineStart && i == 0 && t == 0 && r == '[' && w.startsBlock() {
				escapeAt = 0
				lineStart = false
			} else if lineStart {
				escapeAt = lineEscape(text[i:])
				if escapeAt >= 0 {
					escapeAt += i
				}
				lineStart = false
			}
			// Fast path: a run of characters that never need escaping in the
			// middle of a text (letters, digits, spaces, most punctuation) is
			// copied at once; the per-character rules below would write each
			// of them as itself.
			if i > 0 && i != escapeAt && r < utf8.RuneSelf && plainByte[r] {
				end := len(text) - 1 // the last character may be forced to a reference
				if escapeAt > i && escapeAt < end {
					end = escapeAt
				}
				j := i + 1
				for j < end && text[j] < utf8.RuneSelf && plainByte[text[j]] {
					j++
				}
				if j > i+1 {
					b = append(b, text[i:j]...)
					note(r, rune(text[j-1]))
					prevRaw = true
					lineStart = false
					prev = rune(text[j-1])
					i = j
					continue
				}
			}
			switch {
			case i == escapeAt:
				b = append(b, '\\')
				b = append(b, text[i:i+size]...)
				note('\\', r)
			case w.needsEscape(text, i, r, prev, prevRaw, inLink, atEnd, next, lastTok, t):
				if r == '\\' && atEnd && next != nil && next.kind == tkBreak {
					b = append(b, "&#92;"...)
					note('&', ';')
				} else {
					b = append(b, '\\')
					b = append(b, text[i:i+size]...)
					note('\\', r)
				}
			default:
				b = append(b, text[i:i+size]...)
				note(r, r)
			}
		}
		lineStart = false
		prev = r
		i += size
	}
	tok.to = len(b)
	w.arena = b
}

func appendCharRef(b []byte, r rune) []byte {
	b = append(b, '&', '#')
	b = strconv.AppendInt(b, int64(r), 10)
	return append(b, ';')
}

// lineEscape returns the index of the character to escape so that a line
// starting with s does not open a block, or -1.
func lineEscape(s string) int {
	if s == "" {
		return -1
	}
	line := s
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		line = s[:k]
	}
	switch c := line[0]; c {
	case '#':
		n := countRun(line, '#')
		if n <= 6 && (n == len(line) || line[n] == ' ' || line[n] == '\t') {
			return 0
		}
	case '>':
		return 0
	case '+':
		if len(line) == 1 || line[1] == ' ' || line[1] == '\t' {
			return 0
		}
	case '-', ':':
		if c == '-' && (len(line) == 1 || line[1] == ' ' || line[1] == '\t') {
			return 0
		}
		if onlyBytes(line, "-: \t") && strings.IndexByte(line, '-') >= 0 {
			return 0
		}
	case '=':
		if onlyBytes(line, "= \t") {
			return 0
		}
	default:
		if c >= '0' && c <= '9' {
			d := 0
			for d < len(line) && line[d] >= '0' && line[d] <= '9' {
				d++
			}
			if d <= 9 && d < len(line) && (line[d] == '.' || line[d] == ')') &&
				(d+1 == len(line) || line[d+1] == ' ' || line[d+1] == '\t') {
				return d
			}
		}
	}
	return -1
}

func onlyBytes(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

// needsEscape decides the backslash escapes of inline syntax characters.
func (w *inlineWriter) needsEscape(text string, i int, r rune, prev rune, prevRaw, inLink, atEnd bool, next *token, lastTok bool, t int) bool {
	switch r {
	case '\\':
		if atEnd {
			return true
		}
		_, nsize := utf8.DecodeRuneInString(text[i+1:])
		if i+1+nsize == len(text) && w.toks[t].forceLast {
			return true
		}
		c := text[i+1]
		return c == '\n' || util.IsPunct(c)
	case '*', '~':
		return !w.spacedRun(text, i, byte(r))
	case '_':
		if w.spacedRun(text, i, '_') {
			return false
		}
		// An underscore between two letters or digits written as themselves
		// can neither open nor close emphasis.
		if i == 0 || atEnd || text[i+1] == '_' || text[i-1] == '_' || !prevRaw {
			return true
		}
		pr, psize := utf8.DecodeLastRuneInString(text[:i])
		nr, nsize := utf8.DecodeRuneInString(text[i+1:])
		if (i-psize == 0 && w.toks[t].forceFirst) || (i+1+nsize == len(text) && w.toks[t].forceLast) {
			return true
		}
		return !isWordRune(pr) || !isWordRune(nr)
	case '`', ']', '|':
		return true
	case '[':
		return inLink
	case '!':
		return atEnd && next != nil && next.kind == tkLinkOpen
	case '<':
		if atEnd {
			return true
		}
		c := text[i+1]
		return c != ' ' && c != '\t' && c != '\n'
	case '&':
		return entityLike(text[i:])
	case '#', '@':
		if !inLink {
			if _, ok := scanTag(prev, text, i, nil); ok {
				return true
			}
		}
		if r == '#' && w.atx && lastTok {
			return closingHashes(text, i, t == 0)
		}
	}
	return false
}

// spacedRun reports whether the run of c around i has a space on both sides
// inside the text, so that it can neither open nor close. Chars of a run are
// asked in order, so the run is measured once.
func (w *inlineWriter) spacedRun(text string, i int, c byte) bool {
	if m := &w.runMemo; m.text == text && i >= m.from && i < m.to && m.ch == c {
		return m.spaced
	}
	a := i
	for a > 0 && text[a-1] == c {
		a--
	}
	z := i
	for z < len(text) && text[z] == c {
		z++
	}
	spaced := a > 0 && z < len(text) && text[a-1] == ' ' && text[z] == ' '
	w.runMemo = runMemo{text: text, from: a, to: z, ch: c, spaced: spaced}
	return spaced
}

type runMemo struct {
	text     string
	from, to int
	ch       byte
	spaced   bool
}

func isWordRune(r rune) bool {
	return !util.IsSpaceRune(r) && !util.IsPunctRune(r)
}

// closingHashes reports whether the '#' at i starts a trailing run of '#'
// that an ATX heading would take as its closing sequence.
func closingHashes(text string, i int, firstTok bool) bool {
	if i > 0 && text[i-1] == '#' {
		return false
	}
	j := i
	for j < len(text) && text[j] == '#' {
		j++
	}
	if j != len(text) {
		return false
	}
	if i == 0 {
		return firstTok
	}
	return isStripSpace(text[i-1])
}

// runInfo is a run of adjacent delimiter tokens with one character.
type runInfo struct {
	from, to int // token indexes, inclusive
	ch       byte
	p, n     rune // written characters before and after
	pTok     int  // token holding p, or -1
	nTok     int
}

func (w *inlineWriter) runs() []runInfo {
	out := w.runBuf[:0]
	defer func() { w.runBuf = out[:0] }()
	for t := 0; t < len(w.toks); t++ {
		if w.toks[t].kind != tkDelim {
			continue
		}
		ch := w.spans[w.toks[t].span].ch
		z := t
		for z+1 < len(w.toks) && w.toks[z+1].kind == tkDelim && w.spans[w.toks[z+1].span].ch == ch {
			z++
		}
		ri := runInfo{from: t, to: z, ch: ch, p: '\n', n: '\n', pTok: -1, nTok: -1}
		if t > 0 {
			ri.p, ri.pTok = w.toks[t-1].last, t-1
		}
		if z+1 < len(w.toks) {
			ri.n, ri.nTok = w.toks[z+1].first, z+1
		}
		out = append(out, ri)
		t = z
	}
	return out
}

func flankClass(r rune) int {
	switch {
	case util.IsSpaceRune(r):
		return 0
	case util.IsPunctRune(r):
		return 1
	}
	return 2
}

// fixFlanking writes as character references the letters and digits next to
// delimiters that would keep them from opening or closing. It reports
// whether anything changed.
func (w *inlineWriter) fixFlanking(aggressive bool) bool {
	changed := false
	force := func(tok int, first bool) {
		if tok < 0 || w.toks[tok].kind != tkText {
			return
		}
		if first && !w.toks[tok].forceFirst {
			w.toks[tok].forceFirst = true
			changed = true
		}
		if !first && !w.toks[tok].forceLast {
			w.toks[tok].forceLast = true
			changed = true
		}
	}
	for _, ru := range w.runs() {
		opens, closes := false, false
		for t := ru.from; t <= ru.to; t++ {
			if w.toks[t].open {
				opens = true
			} else {
				closes = true
			}
		}
		pc, nc := flankClass(ru.p), flankClass(ru.n)
		if opens && pc == 2 && (nc != 2 || ru.ch == '_' || aggressive) {
			force(ru.pTok, false)
		}
		if closes && nc == 2 && (pc != 2 || ru.ch == '_' || aggressive) {
			force(ru.nTok, true)
		}
		if ru.ch == '~' && ru.p == '~' {
			force(ru.pTok, false)
		}
	}
	return changed
}

// join concatenates the written tokens.
func (w *inlineWriter) join() string {
	n := 0
	for i := range w.toks {
		if w.toks[i].kind == tkText {
			n += w.toks[i].to - w.toks[i].from
		} else {
			n += len(w.toks[i].s)
		}
	}
	b := w.ctx.arena.take(n)
	for i := range w.toks {
		if w.toks[i].kind == tkText {
			b = append(b, w.arena[w.toks[i].from:w.toks[i].to]...)
		} else {
			b = append(b, w.toks[i].s...)
		}
	}
	return w.ctx.arena.done(b)
}

// simRun is a delimiter run as goldmark's delimiter algorithm sees it.
type simRun struct {
	ch                byte
	length, orig      int
	canOpen, canClose bool
	literal           bool // inside a tag name: must stay literal
	removed           bool
	pos               int // 2*boundary for planned runs, 2*item+1 inside items
	scope             int
	order             int // position in the written text, for sorting
}

func bottomIndex(ch byte, canOpen bool, orig int) int {
	c := 0
	switch ch {
	case '_':
		c = 1
	case '~':
		c = 2
	}
	o := 0
	if canOpen {
		o = 1
	}
	return (c*2+o)*3 + orig%3
}

func bitIndex(bit uint8) int {
	switch bit {
	case mBold:
		return 0
	case mItalic:
		return 1
	case mStrike:
		return 2
	}
	return 3
}

// flanking applies CommonMark's left- and right-flanking rules as goldmark
// does, for a run of ch between the characters p and n.
func flanking(ch byte, p, n rune) (canOpen, canClose bool) {
	pp, ps := util.IsPunctRune(p), util.IsSpaceRune(p)
	np, ns := util.IsPunctRune(n), util.IsSpaceRune(n)
	left := !ns && (!np || ps || pp)
	right := !ps && (!pp || ns || np)
	if ch == '_' {
		return left && (!right || pp), right && (!left || np)
	}
	return left, right
}

// match is a pair of delimiters verify matched: the items between them get
// the mark bit.
type match struct {
	from, to int // item range
	bit      uint8
}

// verify replays goldmark's delimiter processing on the written tokens and
// reports whether every planned delimiter matches as planned, nothing else
// matches, and each item ends up with exactly its emphasis marks.
func (w *inlineWriter) verify() bool {
	w.sims = w.sims[:0]
	for _, ru := range w.runs() {
		length := 0
		for t := ru.from; t <= ru.to; t++ {
			length += len(w.toks[t].s)
		}
		if ru.ch == '~' && (length > 2 || ru.p == '~') {
			return false
		}
		// A tag name ending in '_' would fuse with an underscore run.
		if ru.ch == '_' && ru.pTok >= 0 && w.toks[ru.pTok].kind == tkAtom && strings.HasSuffix(w.toks[ru.pTok].s, "_") {
			return false
		}
		o, c := flanking(ru.ch, ru.p, ru.n)
		w.sims = append(w.sims, simRun{ch: ru.ch, length: length, orig: length, canOpen: o, canClose: c,
			pos: 2 * w.toks[ru.from].pos, scope: w.toks[ru.from].scope, order: ru.from << 16})
	}
	for t := range w.toks {
		tok := &w.toks[t]
		if tok.kind != tkAtom || strings.IndexByte(tok.s, '_') < 0 {
			continue
		}
		if k := w.items[tok.item].kind; k != itTag && k != itMention {
			continue // an autolink is read whole, before emphasis
		}
		s := tok.s
		for i := 0; i < len(s); i++ {
			if s[i] != '_' {
				continue
			}
			j := i
			for j < len(s) && s[j] == '_' {
				j++
			}
			p, _ := utf8.DecodeLastRuneInString(s[:i])
			n := rune('\n')
			if j < len(s) {
				n, _ = utf8.DecodeRuneInString(s[j:])
			} else if t+1 < len(w.toks) {
				n = w.toks[t+1].first
			}
			o, c := flanking('_', p, n)
			if o || c {
				w.sims = append(w.sims, simRun{ch: '_', length: j - i, orig: j - i, canOpen: o, canClose: c,
					literal: true, pos: 2*tok.item + 1, scope: tok.scope, order: t<<16 | i})
			}
			i = j
		}
	}
	if len(w.sims) == 0 {
		return true
	}
	runs := w.simPtr[:0]
	for i := range w.sims {
		runs = append(runs, &w.sims[i])
	}
	w.simPtr = runs
	// The orders are distinct: any sort gives the same list.
	slices.SortFunc(runs, func(a, b *simRun) int { return cmp.Compare(a.order, b.order) })
	matches := w.matches[:0]
	defer func() { w.matches = matches[:0] }()
	// CommonMark's process emphasis, with openers_bottom, as goldmark reads
	// the text (see processEmphasis).
	process := func(list []*simRun) bool {
		var bottoms [3 * 2 * 3]int
		for i := range bottoms {
			bottoms[i] = -1
		}
		w.links = slices.Grow(w.links[:0], 2*len(list))[:2*len(list)]
		prev, next := w.links[:len(list)], w.links[len(list):]
		for i := range list {
			prev[i], next[i] = i-1, i+1
		}
		unlink := func(i int) {
			list[i].removed = true
			if prev[i] >= 0 {
				next[prev[i]] = next[i]
			}
			if next[i] < len(list) {
				prev[next[i]] = prev[i]
			}
		}
		for ci := 0; ci < len(list); {
			closer := list[ci]
			if closer.removed || !closer.canClose {
				ci = next[ci]
				continue
			}
			key := bottomIndex(closer.ch, closer.canOpen, closer.orig)
			stop := bottoms[key]
			oi := -1
			for k := prev[ci]; k > stop; k = prev[k] {
				o := list[k]
				if !o.canOpen || o.ch != closer.ch {
					continue
				}
				if (o.canClose || closer.canOpen) && (o.orig+closer.orig)%3 == 0 && closer.orig%3 != 0 {
					continue
				}
				oi = k
				break
			}
			if oi < 0 {
				bottoms[key] = ci - 1
				n := next[ci]
				if !closer.canOpen {
					unlink(ci)
				}
				ci = n
				continue
			}
			o := list[oi]
			if o.literal || closer.literal {
				return false
			}
			consume := 1
			if o.length >= 2 && closer.length >= 2 {
				consume = 2
			}
			o.length -= consume
			closer.length -= consume
			var bit uint8
			switch {
			case closer.ch == '~':
				bit = mStrike
			case consume == 2 && closer.ch == '_':
				bit = mUnderline
			case consume == 2:
				bit = mBold
			default:
				bit = mItalic
			}
			matches = append(matches, match{o.pos / 2, closer.pos / 2, bit})
			for k := next[oi]; k != ci; k = next[k] {
				unlink(k)
			}
			if o.length == 0 {
				unlink(oi)
			}
			if closer.length == 0 {
				n := next[ci]
				unlink(ci)
				ci = n
			}
		}
		return true
	}
	// Runs inside links first, each link alone, then the rest.
	scoped := false
	for _, r := range runs {
		if r.scope != 0 {
			scoped = true
			break
		}
	}
	if !scoped {
		if !process(runs) {
			return false
		}
	} else {
		byScope := map[int][]*simRun{}
		var scopes []int
		for _, r := range runs {
			if _, ok := byScope[r.scope]; !ok {
				scopes = append(scopes, r.scope)
			}
			byScope[r.scope] = append(byScope[r.scope], r)
		}
		for _, sc := range scopes {
			if sc != 0 && !process(byScope[sc]) {
				return false
			}
		}
		if !process(byScope[0]) {
			return false
		}
	}
	for _, r := range runs {
		if r.literal {
			if r.length != r.orig {
				return false
			}
		} else if r.length != 0 {
			return false
		}
	}
	// Compare the marks each item receives with its own.
	n := len(w.items) + 1
	w.got = append(w.got[:0], make([]uint8, n)...)
	w.depth = append(w.depth[:0], make([]int32, 4*n)...)
	got := w.got
	for _, m := range matches {
		b := bitIndex(m.bit)
		if m.from < m.to {
			w.depth[b*n+m.from]++
			w.depth[b*n+min(m.to, len(w.items))]--
		}
	}
	for b := 0; b < 4; b++ {
		run := int32(0)
		for i := range w.items {
			run += w.depth[b*n+i]
			if run > 1 {
				return false // nested twice: not what was planned
			}
			if run == 1 {
				got[i] |= 1 << b
			}
		}
	}
	for i := range w.items {
		if w.items[i].kind == itBreak {
			continue
		}
		if got[i] != w.items[i].marks&mEmphasis {
			return false
		}
	}
	return true
}
