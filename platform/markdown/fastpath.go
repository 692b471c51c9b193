package markdown

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The fast path (issue 35). goldmark's inline parsers are about half of its
// parse. Parse first lets goldmark build only the block tree (mdBlockParser:
// the same block parsers and transformers as mdParser, no inline parsers)
// and reads each leaf block's lines itself (fastInline), calling the
// converter's add, addSource, addNewline and addBreak exactly as walk does
// on mdParser's tree for the same input, then the same tail (inlineDone).
// fastInline covers what realistic notes hold: text, escapes and character
// references, hard and soft breaks, code spans, emphasis, strikethrough,
// inline links and autolinks, task boxes. On anything else (raw HTML,
// images, reference definitions, tabs in container prefixes, a link or
// title running over a line end, any error) it bails: Parse drops the fast
// attempt and converts the input again through mdParser from scratch, so
// bailing is always safe. Its scans are bounded by a work count linear in
// the block; past it, it bails too.
//
// fastpath_test.go holds the two paths to the same Doc on every corpus of
// the package whenever the fast path does not bail (it never returns an
// error: on one it bails, and the full path finds it), and FuzzFastPath on
// random input.

// fastPath turns the fast path on (tests compare both paths).
var fastPath = true

// fastTaken and fastBailed count the parses that took the fast path and
// those it bailed on (tests).
var fastTaken, fastBailed atomic.Int64

// fastBlocksTaken counts the block trees blockParse built (fastblock.go).
var fastBlocksTaken atomic.Int64

// fastBailHook, when set (tests, not concurrently), hears why the fast path
// bailed.
var fastBailHook func(reason string)

// errFastBail stops the block conversion when fastInline bails.
var errFastBail = errors.New("markdown: fast path bailed")

// mdBlockParser is mdParser without inline parsers, and with paragraphs
// closed as rawParagraph nodes (rawParagraphTransformer), which goldmark's
// inline pass skips: it would only cut their lines into Text nodes, which
// fastInline does not read. Headings and table cells keep their Text nodes
// (one per line): making them raw too would allocate one node per block
// instead of one per line, about the same for them.
var mdBlockParser = newParser(nil, util.Prioritized(rawParagraphTransformer{}, 300))

// rawParagraphTransformer, the last paragraph transformer, puts a
// rawParagraph with the paragraph's lines in the place of a paragraph being
// closed, and does what goldmark's paragraph Close would (trim the lines,
// drop a paragraph left without any), since goldmark does not close a
// paragraph a transformer took out. Only the last open block is taken: a
// paragraph a setext heading looks at is transformed after goldmark closed
// it and took it off the open blocks (and a transformer taking it out would
// stop the heading), and a paragraph closed once the line that ends it has
// opened a block of its own (the next list item, or a block after a lazy
// container, as in "- a\n- b" or "> a\n- b") is not the last; those stay
// paragraphs (TextBlock nodes in a tight list), whose Text nodes fastInline
// does not read either. A tight list's raw paragraphs stay rawParagraph
// instead of becoming TextBlock nodes: the converter reads both alike.
type rawParagraphTransformer struct{}

func (rawParagraphTransformer) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	open := pc.OpenedBlocks()
	if len(open) == 0 || open[len(open)-1].Node != ast.Node(node) {
		return
	}
	parent := node.Parent()
	lines := node.Lines()
	if lines.Len() == 0 {
		parent.RemoveChild(parent, node)
		return
	}
	source := reader.Source()
	for i := 0; i < lines.Len(); i++ {
		l := lines.At(i)
		lines.Set(i, l.TrimLeftSpace(source))
	}
	last := lines.At(lines.Len() - 1)
	lines.Set(lines.Len()-1, last.TrimRightSpace(source))
	r := &rawParagraph{}
	r.SetLines(lines)
	r.SetBlankPreviousLines(node.HasBlankPreviousLines())
	r.SetPos(node.Pos())
	parent.ReplaceChild(parent, node, r)
}

// rawParagraph is a closed paragraph of the fast path's tree.
type rawParagraph struct {
	ast.BaseBlock
}

var kindRawParagraph = ast.NewNodeKind("RawParagraph")

func (n *rawParagraph) Kind() ast.NodeKind { return kindRawParagraph }

// IsRaw makes goldmark's inline pass skip the paragraph.
func (n *rawParagraph) IsRaw() bool { return true }

func (n *rawParagraph) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, nil, nil)
}

// parseFast is parseFull on the fast path's block tree with fastInline:
// blockParse's (stage 2, fastblock.go), or mdBlockParser's when blockParse
// bailed (stage 1). ok is false when it bailed (the caller then runs
// parseFull).
func parseFast(src string) (Doc, *converter, bool) {
	if fastBlocks {
		if d, c, ok, built := parseFastOn(src, true); built {
			// The tree is mdBlockParser's: a bail in the conversion would
			// bail on its tree too.
			return d, c, ok
		}
	}
	d, c, ok, _ := parseFastOn(src, false)
	return d, c, ok
}

// parseFastOn is the fast path on the block tree of blockParse (own) or
// mdBlockParser; built is false when blockParse bailed.
func parseFastOn(src string, own bool) (d Doc, c *converter, ok, built bool) {
	source := unsafe.Slice(unsafe.StringData(src), len(src))
	pc := parser.NewContext()
	c = &converter{src: src, source: source, pc: pc, fast: true}
	c.slab.sized(len(src))
	sc := scratchPool.Get().(*scratch)
	c.borrow(sc)
	defer c.giveBack(sc)
	pc.Set(budgetKey, &c.budget)
	var root ast.Node
	if own {
		nodes := blockNodesPool.Get().(*blockNodes)
		defer func() {
			// The tree is done with once converted (or bailed on): its
			// nodes go back for the next parse (see blockNodes).
			nodes.release()
		}()
		if root, built = blockParseIn(source, pc, nodes); !built {
			return Doc{}, nil, false, false
		}
		fastBlocksTaken.Add(1)
	} else {
		root = mdBlockParser.Parse(text.NewReader(source), parser.WithContext(pc))
	}
	built = true
	d, ok = c.fastConvert(root)
	return d, c, ok, built
}

// scratch is the converter's working memory for one block's inline
// content (fastInline's state, the items and their literal ranges), which
// each block starts from empty (fastInline's reset, inlineStart, scanTags):
// a parse grew it from nothing (a tenth of a 5 KB write's bytes), so parses
// pass it on (scratchPool). None of it is the document's: items are copied
// into nodes (nodesFromItems), and their texts are pieces of the source or
// of the converter's text arena (flush copies buf there).
type scratch struct {
	items    []item
	lits     [][]litRange
	litArena []litRange
	buf      []byte
	scanned  []item
	fs       fastState
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// borrow gives the converter sc's memory.
func (c *converter) borrow(sc *scratch) {
	c.items, c.lits, c.litArena, c.buf, c.scanned = sc.items[:0], sc.lits[:0], sc.litArena[:0], sc.buf[:0], sc.scanned[:0]
	c.fs = sc.fs
	sc.fs = fastState{}
}

// maxScratch is the most working memory (bytes) the pool keeps: a block
// of a pathological input grows it to megabytes, which the pool would hold
// on to, and which a collection empties from the pool anyway (so
// TestLinearMemory's small inputs would reuse theirs and its large ones
// not). A realistic note's is about 10 KB.
const maxScratch = 64 << 10

// scratchSize is about the bytes of the converter's working memory.
func (c *converter) scratchSize() uintptr {
	f := &c.fs
	return uintptr(cap(c.items)+cap(c.scanned))*unsafe.Sizeof(item{}) +
		uintptr(cap(c.lits))*unsafe.Sizeof([]litRange{}) +
		uintptr(cap(c.litArena))*unsafe.Sizeof(litRange{}) +
		uintptr(cap(c.buf)) +
		uintptr(cap(f.toks))*unsafe.Sizeof(ftok{}) +
		uintptr(cap(f.delims))*unsafe.Sizeof(fdelim{}) +
		uintptr(cap(f.links))*unsafe.Sizeof(flink{}) +
		uintptr(cap(f.opens))*unsafe.Sizeof(fopen{}) +
		uintptr(cap(f.top)+cap(f.inLink)+cap(f.prev)+cap(f.next)+cap(f.diff))*4
}

// giveBack puts the converter's working memory back in the pool, without
// the items' texts and links (the pool would keep the document's memory
// alive), unless it is larger than maxScratch.
func (c *converter) giveBack(sc *scratch) {
	if c.scratchSize() > maxScratch {
		return
	}
	clear(c.items[:cap(c.items)])
	clear(c.scanned[:cap(c.scanned)])
	clear(c.lits[:cap(c.lits)])
	// fastInline's tokens and links hold texts of the source (an
	// autolink's label) and link attributes: reset only cuts them to
	// length 0, so they are cleared here too.
	clear(c.fs.toks[:cap(c.fs.toks)])
	clear(c.fs.links[:cap(c.fs.links)])
	sc.items, sc.lits, sc.litArena, sc.buf, sc.scanned = c.items[:0], c.lits[:0], c.litArena[:0], c.buf[:0], c.scanned[:0]
	sc.fs = c.fs
	c.items, c.lits, c.litArena, c.buf, c.scanned = nil, nil, nil, nil, nil
	c.fs = fastState{}
	scratchPool.Put(sc)
}

// fastConvert converts the fast path's block tree.
func (c *converter) fastConvert(root ast.Node) (Doc, bool) {
	pc := c.pc
	if c.budget.overAt != 0 {
		fastBail("length")
		return Doc{}, false
	}
	if len(pc.References()) > 0 {
		fastBail("reference definition")
		return Doc{}, false
	}
	content := c.blocks(root, 0)
	if c.err != nil {
		if c.err != errFastBail {
			fastBail("error")
		}
		return Doc{}, false
	}
	if checkTableShapes {
		if n := tableCells(content); n != c.budget.cells {
			panic("markdown: the table pre-count differs from the cells built (fast path)")
		}
	}
	return Doc{Content: content}, true
}

func fastBail(reason string) {
	if fastBailHook != nil {
		fastBailHook(reason)
	}
}

// leaf converts a leaf block's inline content: with fastInline on the fast
// path (a bail stops the conversion with errFastBail), else with inline.
func (c *converter) leaf(block ast.Node, ctx blockCtx) []item {
	if !c.fast {
		return c.inline(block, ctx)
	}
	items, ok := c.fastInline(block, ctx)
	if !ok {
		if c.err == nil {
			c.err = errFastBail
		}
		return nil
	}
	return items
}

// taskBoxOf is taskBox, read from the source on the fast path (goldmark
// made no TaskCheckBox node there).
func (c *converter) taskBoxOf(it ast.Node) TaskState {
	if !c.fast {
		return taskBox(it)
	}
	p := it.FirstChild()
	if p == nil || (p.Kind() != ast.KindParagraph && p.Kind() != ast.KindTextBlock && p.Kind() != kindRawParagraph) {
		return TaskNone
	}
	box, _ := boxAt(p, c.source)
	return box
}

// boxAt finds the task box goldmark's task parser reads at the start of a
// leaf block that is the first child of a list item: `^\[([\sxX])\]\s*` on
// its first line (\s being [\t\n\f\r ]); n is the match's length.
func boxAt(block ast.Node, source []byte) (TaskState, int) {
	li := block.Parent()
	if li == nil || li.Kind() != ast.KindListItem || li.FirstChild() != block {
		return TaskNone, 0
	}
	lines := block.Lines()
	if lines.Len() == 0 {
		return TaskNone, 0
	}
	seg := lines.At(0)
	line := source[seg.Start:seg.Stop]
	if len(line) < 3 || line[0] != '[' || line[2] != ']' {
		return TaskNone, 0
	}
	state := TaskOpen
	switch line[1] {
	case 'x', 'X':
		state = TaskDone
	case ' ', '\t', '\n', '\f', '\r':
	default:
		return TaskNone, 0
	}
	n := 3
	for n < len(line) && isRESpace(line[n]) {
		n++
	}
	return state, n
}

// isRESpace is \s of Go's regular expressions.
func isRESpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}

// Token kinds of fastInline.
const (
	fkText    uint8 = iota // source text [from, to), escapes and references decoded
	fkLit                  // s, literal (a heading's task box)
	fkCode                 // a code span, s its code
	fkAuto                 // an autolink: s its label, href its destination
	fkSoft                 // a soft line break
	fkHard                 // a hard line break
	fkDelim                // a delimiter run (delims[d])
	fkBracket              // "[" at from: text unless a link used it
	fkShown                // a link without content: its shown text
	fkNone                 // a "[" a link used
)

type ftok struct {
	kind     uint8
	from, to int32
	d        int32 // fkDelim: index in delims
	link     int32 // 1 + index in links of the link holding it
	s, href  string
}

type fdelim struct {
	tok               int32
	char              byte
	orig, length      int
	canOpen, canClose bool
}

type flink struct {
	attr     *linkAttr
	from, to int // its delimiters: inLink[from:to]
}

type fopen struct {
	tok   int32
	index int
}

// fastState is fastInline's state, kept from block to block.
type fastState struct {
	toks          []ftok
	delims        []fdelim
	top           []int32 // delimiters outside links, in order
	inLink        []int32 // the delimiters of each link (flink.from, to)
	links         []flink
	opens         []fopen
	inactiveBelow int
	prev, next    []int32
	diff          []int32 // 4 mark counters per token
	// backtick runs of the block by length, each with a cursor
	runs     map[int]*runList
	runKeys  []int // the lengths this block has runs of
	runsOK   bool
	work     int
	limit    int
	textFrom int   // where the text since the last node starts
	cell     bool  // the block is a table cell
	seen     uint8 // the classes of the bytes scan read as text (fastClass)
}

type runList struct {
	at  []int32 // run starts, in order
	cur int
}

func (f *fastState) reset() {
	f.toks = f.toks[:0]
	f.delims = f.delims[:0]
	f.top = f.top[:0]
	f.inLink = f.inLink[:0]
	f.links = f.links[:0]
	f.opens = f.opens[:0]
	f.inactiveBelow = 0
	f.work = 0
	f.seen = 0
	if f.runsOK {
		for _, n := range f.runKeys {
			r := f.runs[n]
			r.at = r.at[:0]
			r.cur = 0
		}
		f.runKeys = f.runKeys[:0]
		f.runsOK = false
	}
}

// Break kinds at a line's end.
const (
	brNone = iota
	brSoft
	brHard        // two spaces: the text before is right-trimmed
	brHardVisible // a backslash: the text before is kept as it is
)

// lineEnd finds where the content of the rest of a line [pos, stop) ends
// and the break it ends with, as goldmark's parseBlock does.
func lineEnd(src []byte, pos, stop int) (int, int) {
	n := stop - pos
	if n == 0 || src[stop-1] != '\n' {
		return stop, brNone
	}
	if (n >= 3 && src[stop-2] == '\\' && src[stop-3] != '\\') || (n == 2 && src[stop-2] == '\\') {
		return stop - 2, brHardVisible
	}
	if n >= 3 && src[stop-3] == ' ' && src[stop-2] == ' ' {
		return stop - 3, brHard
	}
	return stop - 1, brSoft
}

// Byte classes of scan's loop over a line's text (fastClass). Most bytes
// are of none, and the loop only steps over them; the others it stops at
// (clStop) or notes in fastState.seen, so that the passes after it skip a
// block that cannot need them: scanTags one without a '#' or '@'
// (clSigil), addText's search for escapes and references one without a
// '\\', '&' or NUL byte (clDecode), countItems' character count of a
// block whose text is ASCII (clHigh).
const (
	clStop   uint8 = 1 << iota // a trigger character, a backslash or a newline
	clSigil                    // '#' or '@'
	clDecode                   // '\\', '&' or NUL: decodeText may change the text
	clHigh                     // a byte of a non-ASCII character
)

var fastClass = func() (t [256]uint8) {
	for _, ch := range "`<[]!*_~\\\n" {
		t[ch] |= clStop
	}
	t['#'] |= clSigil
	t['@'] |= clSigil
	t['\\'] |= clDecode
	t['&'] |= clDecode
	t[0] |= clDecode
	for b := utf8.RuneSelf; b < 256; b++ {
		t[b] |= clHigh
	}
	return t
}()

// fastInline reads a leaf block's lines as mdParser's inline parsers and
// converter.walk would, and returns its canonical items; ok is false when
// the block holds something it does not emulate exactly (see the top of
// this file).
func (c *converter) fastInline(block ast.Node, ctx blockCtx) (items []item, ok bool) {
	f := &c.fs
	f.reset()
	src := c.source
	lines := block.Lines()
	nl := lines.Len()
	size := 0
	for i := 0; i < nl; i++ {
		seg := lines.At(i)
		if seg.Padding != 0 {
			fastBail("padding")
			return nil, false
		}
		if i < nl-1 && (seg.Stop <= seg.Start || src[seg.Stop-1] != '\n') {
			fastBail("line without newline")
			return nil, false
		}
		size += seg.Stop - seg.Start
	}
	f.limit = 256 + 8*size
	// In a table cell, goldmark's table AST transformer (or, in a cell it
	// dropped, the converter) takes the backslash out of `\|` in code.
	_, f.cell = block.(*east.TableCell)
	c.inlineStart()
	if nl > 0 && !f.scan(c, block, lines) {
		return nil, false
	}
	if !f.emphasis() {
		fastBail("work")
		return nil, false
	}
	f.emit(c)
	// No text of the block holds a '#' or '@' (code, link destinations and
	// autolinks, which scan does not read as text, never hold tags).
	c.noSigil = f.seen&clSigil == 0
	// Text outside code and links is the block's text that scan read,
	// references decoded, or ASCII the converter adds (breaks, sigils):
	// without a non-ASCII byte or a reference, its bytes are characters.
	c.asciiText = f.seen&(clHigh|clDecode) == 0
	items = c.inlineDone(block, ctx)
	if c.err != nil {
		fastBail("error")
		return nil, false
	}
	return items, true
}

// scan reads the block's lines into tokens, resolving links as the link
// parser does.
func (f *fastState) scan(c *converter, block ast.Node, lines *text.Segments) bool {
	src := c.source
	nl := lines.Len()
	first := lines.At(0)
	li := 0
	seg := first
	pos := seg.Start
	if box, n := boxAt(block, src); box != TaskNone {
		if n > 0 && src[seg.Start+n-1] == '\n' {
			fastBail("task box at a line end")
			return false
		}
		if block.Kind() == ast.KindHeading {
			lit := "[ ] "
			if box == TaskDone {
				lit = "[x] "
			}
			f.toks = append(f.toks, ftok{kind: fkLit, s: lit})
		}
		pos += n
	}
	escaped := false
	for {
		// (Re)start on line li at pos: at the line's start or after a node.
		stop := seg.Stop
		ce, br := lineEnd(src, pos, stop)
		f.textFrom = pos
		i := pos
		moved := false
		for i < ce {
			ch := src[i]
			cl := fastClass[ch]
			if cl == 0 {
				i++
				continue
			}
			f.seen |= cl
			if cl&clStop == 0 {
				i++
				continue
			}
			if ch == '\n' {
				break
			}
			if ch == '\\' {
				// An escape: the next character is text whatever it is
				// (a newline ends the line with the escape pending, which
				// is a bail unless it is the block's last line).
				escaped = true
				i++
				if i >= ce || src[i] == '\n' {
					break
				}
				f.seen |= fastClass[src[i]] &^ clStop
				escaped = false
				i++
				continue
			}
			end, endLine, res := f.trigger(c, lines, li, i, stop)
			if res == trBail {
				return false
			}
			if f.work > f.limit {
				fastBail("work")
				return false
			}
			if res == trNode {
				pos = end
				if endLine != li {
					li = endLine
					seg = lines.At(li)
				}
				moved = true
				break
			}
			i = end // text
		}
		if moved {
			continue
		}
		from := f.textFrom
		// The line's last text, then its break.
		to := ce
		if br != brHardVisible {
			for to > from && util.IsSpace(src[to-1]) {
				to--
			}
		}
		if to > from {
			f.toks = append(f.toks, ftok{kind: fkText, from: int32(from), to: int32(to)})
		}
		switch br {
		case brSoft:
			f.toks = append(f.toks, ftok{kind: fkSoft})
		case brHard, brHardVisible:
			f.toks = append(f.toks, ftok{kind: fkHard})
		}
		li++
		if li >= nl {
			break
		}
		if escaped {
			fastBail("escape at a line end")
			return false
		}
		seg = lines.At(li)
		pos = seg.Start
	}
	return true
}

const (
	trText = iota // the trigger character is text; end: where text goes on
	trNode        // a node: end (on line endLine) is where reading goes on
	trBail
)

// trigger tries the inline parsers at i (a trigger character on line li,
// whose segment ends at stop). For a node it appends the pending text
// first (pending).
func (f *fastState) trigger(c *converter, lines *text.Segments, li, i, stop int) (end, endLine, res int) {
	src := c.source
	ch := src[i]
	switch ch {
	case '*', '_', '~':
		j := i
		for j < stop && src[j] == ch {
			j++
		}
		// The character before the run as the block reader's
		// PrecendingCharacter gives it: a line break at the block's start,
		// else the source's character, which at the start of a later line
		// is the newline or the container's prefix ('>', a space).
		before := rune('\n')
		if !(li == 0 && i <= lines.At(0).Start) && i > 0 {
			before, _ = utf8.DecodeLastRune(src[:i])
		}
		if ch == '~' && (j-i > 2 || before == '~') {
			// emphasisParser makes no delimiter of the run, nor of the
			// rest of it (each '~' after the first follows a '~').
			return j, li, trText
		}
		after := rune(' ')
		if j < stop {
			after, _ = utf8.DecodeRune(src[j:stop])
		}
		beforePunct := util.IsPunctRune(before)
		beforeSpace := util.IsSpaceRune(before)
		afterPunct := util.IsPunctRune(after)
		afterSpace := util.IsSpaceRune(after)
		isLeft := !afterSpace && (!afterPunct || beforeSpace || beforePunct)
		isRight := !beforeSpace && (!beforePunct || afterSpace || afterPunct)
		var canOpen, canClose bool
		if ch == '_' {
			canOpen = isLeft && (!isRight || beforePunct)
			canClose = isRight && (!isLeft || afterPunct)
		} else {
			canOpen, canClose = isLeft, isRight
		}
		f.pending(c, i)
		f.delims = append(f.delims, fdelim{tok: int32(len(f.toks)), char: ch, orig: j - i, length: j - i, canOpen: canOpen, canClose: canClose})
		f.top = append(f.top, int32(len(f.delims)-1))
		f.toks = append(f.toks, ftok{kind: fkDelim, from: int32(i), to: int32(j), d: int32(len(f.delims) - 1)})
		return j, li, trNode
	case '`':
		return f.codeSpan(c, lines, li, i, stop)
	case '<':
		line := src[i+1 : stop]
		k := util.FindEmailIndex(line)
		email := k >= 0
		if k < 0 {
			k = util.FindURLIndex(line)
		}
		if k >= 0 {
			f.work += k
			k++
			if i+k < stop && src[i+k] == '>' {
				label := c.src[i+1 : i+k]
				href := label
				if email {
					href = "mailto:" + label
				}
				if !hrefSafe(href, []byte(href)) {
					fastBail("autolink scheme")
					return 0, 0, trBail
				}
				f.pending(c, i)
				f.toks = append(f.toks, ftok{kind: fkAuto, s: label, href: href})
				return i + k + 1, li, trNode
			}
		}
		if i+1 < stop {
			if n := src[i+1]; n == '/' || n == '!' || n == '?' || n|0x20 >= 'a' && n|0x20 <= 'z' {
				fastBail("raw HTML")
				return 0, 0, trBail
			}
		}
		return i + 1, li, trText
	case '!':
		if i+1 < stop && src[i+1] == '[' {
			fastBail("image")
			return 0, 0, trBail
		}
		return i + 1, li, trText
	case '[':
		f.pending(c, i)
		f.opens = append(f.opens, fopen{tok: int32(len(f.toks)), index: len(f.opens)})
		f.toks = append(f.toks, ftok{kind: fkBracket, from: int32(i), to: int32(i + 1)})
		return i + 1, li, trNode
	}
	// ']'
	if len(f.opens) == 0 {
		return i + 1, li, trText
	}
	o := f.opens[len(f.opens)-1]
	f.opens = f.opens[:len(f.opens)-1]
	inactive := o.index < f.inactiveBelow
	f.inactiveBelow = min(f.inactiveBelow, len(f.opens))
	if inactive || i+1 >= stop || src[i+1] != '(' {
		return i + 1, li, trText
	}
	end, dest, title, res := f.inlineLink(src, i+2, stop)
	switch res {
	case trBail:
		return 0, 0, trBail
	case trText:
		return i + 1, li, trText
	}
	href, _ := decodeText(dest, nil)
	t, _ := decodeText(title, nil)
	if !hrefSafe(href, dest) {
		fastBail("link scheme")
		return 0, 0, trBail
	}
	f.pending(c, i)
	l := flink{attr: &linkAttr{href: href, title: t}}
	id := int32(len(f.links) + 1)
	if int(o.tok)+1 == len(f.toks) {
		f.toks[o.tok].kind = fkShown
		f.toks[o.tok].link = id
	} else {
		f.toks[o.tok].kind = fkNone
		for k := int(o.tok) + 1; k < len(f.toks); k++ {
			f.toks[k].link = id
		}
	}
	// The delimiters after the opener are the link's.
	k := len(f.top)
	for k > 0 && f.delims[f.top[k-1]].tok > o.tok {
		k--
	}
	l.from = len(f.inLink)
	f.inLink = append(f.inLink, f.top[k:]...)
	l.to = len(f.inLink)
	f.top = f.top[:k]
	f.links = append(f.links, l)
	f.inactiveBelow = len(f.opens)
	return end, li, trNode
}

// pending appends the text read since the last node, up to i.
func (f *fastState) pending(c *converter, i int) {
	from := f.textFrom
	if i > from {
		f.toks = append(f.toks, ftok{kind: fkText, from: int32(from), to: int32(i)})
	}
}

// inlineLink reads "(destination "title")" from p (after the '(') on the
// line ending at stop, as linkParser.inlineLink does. It bails when the
// reading would go on to the next line.
func (f *fastState) inlineLink(src []byte, p, stop int) (end int, dest, title []byte, res int) {
	start := p
	defer func() { f.work += end - start }()
	skip := func() bool {
		for p < stop && util.IsSpace(src[p]) {
			if src[p] == '\n' {
				return false
			}
			p++
		}
		return p < stop
	}
	if !skip() {
		fastBail("link over a line end")
		return p, nil, nil, trBail
	}
	if src[p] == ')' {
		return p + 1, nil, nil, trNode
	}
	if src[p] == '<' {
		j := p + 1
		found := -1
		for j < stop {
			ch := src[j]
			if ch == '\\' && j < stop-1 && util.IsPunct(src[j+1]) {
				j += 2
				continue
			}
			if ch == '>' {
				found = j
				break
			}
			j++
		}
		if found < 0 {
			return j, nil, nil, trText
		}
		dest = src[p+1 : found]
		p = found + 1
	} else {
		n, ok := rawDestination(src[p:stop])
		j := p + n
		if !ok || j == p {
			return j, nil, nil, trText
		}
		dest = src[p:j]
		p = j
	}
	if !skip() {
		fastBail("link over a line end")
		return p, nil, nil, trBail
	}
	if src[p] == ')' {
		return p + 1, dest, nil, trNode
	}
	opener := src[p]
	closer := opener
	switch opener {
	case '"', '\'':
	case '(':
		closer = ')'
	default:
		return p, nil, nil, trText
	}
	p++
	j := p
	for {
		if j >= stop || src[j] == '\n' {
			fastBail("title over a line end")
			return j, nil, nil, trBail
		}
		ch := src[j]
		if ch == '\\' && j < stop-1 && util.IsPunct(src[j+1]) {
			j += 2
			continue
		}
		if ch == closer {
			break
		}
		if ch == opener {
			return j, nil, nil, trText
		}
		j++
	}
	title = src[p:j]
	p = j + 1
	if !skip() {
		fastBail("link over a line end")
		return p, nil, nil, trBail
	}
	if src[p] != ')' {
		return p, nil, nil, trText
	}
	return p + 1, dest, title, trNode
}

// codeSpan reads a code span at i (line li), as goldmark's code span
// parser does: the closer is the next run of exactly as many backticks in
// the rest of the block; without one the backticks are text.
func (f *fastState) codeSpan(c *converter, lines *text.Segments, li, i, stop int) (end, endLine, res int) {
	src := c.source
	k := i
	for k < stop && src[k] == '`' {
		k++
	}
	n := k - i
	if !f.runsOK {
		f.collectRuns(src, lines)
	}
	r := f.runs[n]
	closeAt := -1
	if r != nil {
		for r.cur < len(r.at) && int(r.at[r.cur]) < k {
			r.cur++
		}
		if r.cur < len(r.at) {
			closeAt = int(r.at[r.cur])
		}
	}
	if closeAt < 0 {
		// goldmark makes a Text node of the backticks and reads on after
		// it; reading them as text gives the same items (the line's break
		// is the same read from after them: it depends on the line's last
		// three characters, and a backtick is neither ' ' nor '\\').
		return k, li, trText
	}
	// The line of the closer.
	lj := li
	for lines.At(lj).Stop <= closeAt {
		lj++
	}
	// goldmark's segments: the rest of line li, whole lines, the start of
	// line lj (when not empty).
	type part struct{ from, to int }
	count := 0
	if lj == li {
		if closeAt > k {
			count = 1
		}
	} else {
		count = lj - li
		if s := lines.At(lj); closeAt > s.Start {
			count++
		}
	}
	seg := func(x int) part {
		if lj == li {
			return part{k, closeAt}
		}
		switch {
		case x == 0:
			return part{k, lines.At(li).Stop}
		case li+x < lj:
			s := lines.At(li + x)
			return part{s.Start, s.Stop}
		default:
			return part{lines.At(lj).Start, closeAt}
		}
	}
	var code string
	if count > 0 {
		firstP, lastP := seg(0), seg(count-1)
		blank := true
		for x := 0; x < count && blank; x++ {
			p := seg(x)
			blank = util.IsBlank(src[p.from:p.to])
		}
		if !blank && firstP.to > firstP.from && isSpaceOrNL(src[firstP.from]) && lastP.to > lastP.from && isSpaceOrNL(src[lastP.to-1]) {
			// trim one space or newline at each end (one segment: both)
			if count == 1 {
				firstP.from++
				firstP.to--
				if firstP.to < firstP.from {
					firstP.to = firstP.from
				}
			} else {
				firstP.from++
				lastP.to--
			}
		}
		get := func(x int) part {
			switch x {
			case 0:
				return firstP
			case count - 1:
				return lastP
			}
			return seg(x)
		}
		if count == 1 && (firstP.to == firstP.from || src[firstP.to-1] != '\n') {
			code = c.src[firstP.from:firstP.to]
		} else {
			size := 0
			for x := 0; x < count; x++ {
				p := get(x)
				size += p.to - p.from
			}
			b := make([]byte, 0, size)
			for x := 0; x < count; x++ {
				p := get(x)
				v := src[p.from:p.to]
				if len(v) > 0 && v[len(v)-1] == '\n' {
					b = append(b, v[:len(v)-1]...)
					b = append(b, ' ')
				} else {
					b = append(b, v...)
				}
			}
			code = string(b)
		}
	}
	if f.cell {
		code = strings.ReplaceAll(code, "\\|", "|")
	}
	f.pending(c, i)
	f.toks = append(f.toks, ftok{kind: fkCode, s: code})
	return closeAt + n, lj, trNode
}

func isSpaceOrNL(b byte) bool { return b == ' ' || b == '\n' }

// collectRuns records the block's maximal backtick runs (within lines) by
// length.
func (f *fastState) collectRuns(src []byte, lines *text.Segments) {
	if f.runs == nil {
		f.runs = map[int]*runList{}
	}
	for l := 0; l < lines.Len(); l++ {
		s := lines.At(l)
		for j := s.Start; j < s.Stop; {
			if src[j] != '`' {
				j++
				continue
			}
			k := j
			for k < s.Stop && src[k] == '`' {
				k++
			}
			r := f.runs[k-j]
			if r == nil {
				r = &runList{}
				f.runs[k-j] = r
			}
			if len(r.at) == 0 {
				f.runKeys = append(f.runKeys, k-j)
			}
			r.at = append(r.at, int32(j))
			j = k
		}
	}
	f.runsOK = true
}

// emphasis matches the delimiters, outside links and in each link apart,
// as processEmphasis does. false: it took more work than allowed.
func (f *fastState) emphasis() bool {
	n := len(f.toks)
	if cap(f.diff) < 4*(n+1) {
		f.diff = make([]int32, 4*(n+1))
	}
	f.diff = f.diff[:4*(n+1)]
	clear(f.diff)
	if len(f.delims) == 0 {
		return true
	}
	if !f.process(f.top) {
		return false
	}
	for _, l := range f.links {
		if !f.process(f.inLink[l.from:l.to]) {
			return false
		}
	}
	return true
}

func markIndex(bit uint8) int {
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

var markBits = [4]uint8{mBold, mItalic, mStrike, mUnderline}

func (f *fastState) process(ds []int32) bool {
	n := len(ds)
	if n == 0 {
		return true
	}
	if cap(f.prev) < n {
		f.prev = make([]int32, n)
		f.next = make([]int32, n)
	}
	prev, next := f.prev[:n], f.next[:n]
	for i := range ds {
		prev[i] = int32(i - 1)
		next[i] = int32(i + 1)
	}
	next[n-1] = -1
	first := int32(0)
	remove := func(e int32) {
		if prev[e] >= 0 {
			next[prev[e]] = next[e]
		} else {
			first = next[e]
		}
		if next[e] >= 0 {
			prev[next[e]] = prev[e]
		}
	}
	var bottoms [3 * 2 * 3]int32
	for i := range bottoms {
		bottoms[i] = -1
	}
	for closer := first; closer >= 0; {
		c := &f.delims[ds[closer]]
		if !c.canClose {
			closer = next[closer]
			continue
		}
		key := bottomIndex(c.char, c.canOpen, c.orig)
		opener := int32(-1)
		stop := bottoms[key]
		for o := prev[closer]; o >= 0 && o > stop; o = prev[o] {
			f.work++
			od := &f.delims[ds[o]]
			if !od.canOpen || od.char != c.char {
				continue
			}
			if (od.canClose || c.canOpen) && (od.orig+c.orig)%3 == 0 && c.orig%3 != 0 {
				continue
			}
			opener = o
			break
		}
		if f.work > f.limit {
			return false
		}
		if opener < 0 {
			bottoms[key] = closer - 1
			nx := next[closer]
			if !c.canOpen {
				remove(closer)
			}
			closer = nx
			continue
		}
		od := &f.delims[ds[opener]]
		consume := 1
		if od.length >= 2 && c.length >= 2 {
			consume = 2
		}
		od.length -= consume
		c.length -= consume
		var bit uint8
		switch c.char {
		case '*':
			bit = mItalic
			if consume == 2 {
				bit = mBold
			}
		case '_':
			bit = mItalic
			if consume == 2 {
				bit = mUnderline
			}
		default:
			bit = mStrike
		}
		m := markIndex(bit)
		f.diff[4*(int(od.tok)+1)+m]++
		f.diff[4*int(c.tok)+m]--
		for e := next[opener]; e != closer; e = next[e] {
			f.work++
			remove(e)
		}
		if od.length == 0 {
			remove(opener)
		}
		if c.length == 0 {
			nx := next[closer]
			remove(closer)
			closer = nx
		}
	}
	return true
}

// emit adds the tokens to the converter as walk adds mdParser's nodes.
func (f *fastState) emit(c *converter) {
	var count [4]int32
	for i := range f.toks {
		t := &f.toks[i]
		var marks uint8
		for m := 0; m < 4; m++ {
			count[m] += f.diff[4*i+m]
			if count[m] > 0 {
				marks |= markBits[m]
			}
		}
		var link *linkAttr
		if t.link > 0 {
			link = f.links[t.link-1].attr
		}
		switch t.kind {
		case fkText:
			if f.seen&clDecode == 0 {
				// No text of the block has an escape or a reference.
				c.addSource(int(t.from), int(t.to), marks, link)
			} else {
				c.addText(int(t.from), int(t.to), marks, link)
			}
		case fkLit:
			c.add(t.s, marks, link, nil, true)
		case fkCode:
			c.add(t.s, marks|mCode, link, nil, true)
		case fkAuto:
			c.add(t.s, marks, &linkAttr{href: t.href}, nil, true)
		case fkSoft:
			c.addNewline(marks, link)
		case fkHard:
			c.addBreak()
		case fkDelim:
			d := &f.delims[t.d]
			switch {
			case d.length == d.orig:
				c.addSource(int(t.from), int(t.to), marks, link)
			case d.length > 0:
				c.add(c.src[t.from:int(t.from)+d.length], marks, link, nil, true)
			}
		case fkBracket:
			c.addSource(int(t.from), int(t.to), marks, link)
		case fkShown:
			c.add(linkShownText(link), marks, link, nil, true)
		}
	}
}

// addText adds source text as walk adds a Text node's.
func (c *converter) addText(from, to int, marks uint8, link *linkAttr) {
	raw := c.source[from:to]
	if !hasEscapeOrRef(raw) {
		c.addSource(from, to, marks, link)
		return
	}
	s, lits := decodeText(raw, nil)
	c.add(s, marks, link, lits, false)
}

// hrefSafe is checkHref without the error.
func hrefSafe(href string, raw []byte) bool {
	_, _, bad := refusedScheme(href, raw)
	return !bad
}
