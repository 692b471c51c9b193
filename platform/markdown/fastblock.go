package markdown

import (
	"bytes"
	"strconv"
	"sync"
	"unsafe"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The fast path's block parser (issue 35, stage 2). goldmark's block parse
// (mdBlockParser) is a large share of the fast path. blockParse builds the
// same block tree itself for the documents realistic notes are: it follows
// goldmark 1.8.7's parseBlocks, openBlocks and closeBlocks step for step
// (parser/parser.go), with its own code for the block parsers the dialect
// uses (blockquote, list, list item, paragraph, ATX heading, fenced code,
// thematic break) over a reader of its own, and makes goldmark's ast nodes
// (paragraphs as rawParagraph, closed as rawParagraphTransformer closes
// them) so that the converter and fastInline run unchanged. Closed
// paragraphs go through the codec's table transformer as in goldmark.
//
// It bails (blockParse returns false and parseFast asks mdBlockParser) on
// what it does not follow exactly: a tab in a line's indentation (outside
// fenced code at indentation 0), indented code, a possible HTML block, a
// possible link reference definition, a setext underline, a lazy
// continuation line, an empty list item or one whose content is 5 or more
// columns after its marker, a list goldmark would not let interrupt a
// paragraph, an ATX heading ending with '#', a backtick fence whose info
// holds '`', and a few states goldmark reaches only from those.

// fastBlocks turns stage 2 on (tests compare the paths).
var fastBlocks = true

// Block states of goldmark's parsers.
const (
	bsClose       = 0
	bsContinue    = 1
	bsHasChildren = 2
)

// Results of openBlocks, as goldmark's.
const (
	brParagraphContinuation = iota + 1
	brNewBlocksOpened
	brNoBlocksOpened
)

type fbKind uint8

const (
	fbQuote fbKind = iota
	fbList
	fbItem
	fbPara
	fbFence
	fbLeaf // an ATX heading or a thematic break: closed by the next line
)

type fbOpen struct {
	kind fbKind
	node ast.Node
	// a fence's character, indentation and length
	fchar   byte
	findent int
	flen    int
}

type fbStat struct {
	lineNum, level int
	blank          bool
}

type blockParser struct {
	src  []byte
	n    int
	pos  int // the reader's position: the rest of the line is src[pos:stop]
	stop int // end of the current line (after its '\n', or n)
	head int // start of the current line
	line int

	open     []fbOpen
	stats    []fbStat
	skipList bool
	bail     string

	reader text.Reader
	pc     parser.Context

	nodes *blockNodes
}

// blockNodes makes the block tree's nodes. goldmark allocates each node on
// its own and grows each leaf block's lines from nothing (ast.NewListItem,
// text.Segments.Append, ...): about half the allocations of a write, and a
// quarter of its bytes. The tree lives only as long as the parse, and its
// nodes together, so they are taken from blocks of nodes of each kind, and
// the leaf blocks' lines from one array with room for a line of every
// source line (a source line is at most one line of one leaf block). The
// fast path gives them back once it has converted the tree (nothing of the
// document, nor the converter, points into it: the document's texts are
// pieces of the source or of the converter's text arena), so that the
// next parse reuses them (blockNodesPool); a tree tests keep is built on
// blockNodes of its own.
type blockNodes struct {
	paras  nodeChunk[rawParagraph]
	items  nodeChunk[ast.ListItem]
	lists  nodeChunk[ast.List]
	heads  nodeChunk[ast.Heading]
	quotes nodeChunk[ast.Blockquote]
	rules  nodeChunk[ast.ThematicBreak]
	fences nodeChunk[ast.FencedCodeBlock]

	// lines' values are the array (length 0); linesTop of it are taken,
	// the last ones by linesOwner, the leaf block lines are being added
	// to.
	lines      text.Segments
	linesCap   int
	linesTop   int
	linesOwner ast.Node
	window     text.Segments // (SetLines through an interface would make a local escape)

	// parser is the block parser itself, whose stacks are kept too.
	parser blockParser
	root   blockRoot

	// the tables' nodes (buildTable)
	tables    nodeChunk[east.Table]
	headers   nodeChunk[east.TableHeader]
	rows      nodeStore[east.TableRow]
	cells     nodeStore[east.TableCell]
	cellLines lineStore
	table     tableNodes
}

// blockRoot is the document node of blockParse's tree. buildTable, which
// the table transformer calls with the paragraph alone, finds the tree's
// blockNodes through it.
type blockRoot struct {
	ast.Document
	nodes *blockNodes
}

// treeNodes is the blockNodes of the tree n is in, nil for goldmark's.
func treeNodes(n ast.Node) *blockNodes {
	for ; n != nil; n = n.Parent() {
		if r, ok := n.(*blockRoot); ok {
			return r.nodes
		}
	}
	return nil
}

// nodeStore hands out runs of zero nodes of one kind from one array, kept
// for the next parse; when a run does not fit, a larger array replaces it
// (the runs taken stay with the tables holding them).
type nodeStore[T any] struct {
	all  []T
	top  int
	held int // bytes of all
}

func (s *nodeStore[T]) take(n int) []T {
	if s.top+n > len(s.all) {
		s.all = make([]T, max(2*len(s.all), n, 64))
		s.top = 0
		var zero T
		s.held = len(s.all) * int(unsafe.Sizeof(zero))
	}
	out := s.all[s.top : s.top+n : s.top+n]
	s.top += n
	return out
}

func (s *nodeStore[T]) reset() {
	clear(s.all[:s.top])
	s.top = 0
}

// lineStore hands out room for runs of lines from one array, as nodeStore
// does: take's Segments has length 0 and room for n lines at least.
type lineStore struct {
	all      text.Segments
	cap, top int
}

func (l *lineStore) take(n int) text.Segments {
	if l.top+n > l.cap {
		c := max(2*l.cap, n, 256)
		l.all = text.Segments{}
		for k := c; k > 0; k -= len(zeroLines) {
			// text.Segments has no way to make room but appending.
			l.all.AppendAll(zeroLines[:min(k, len(zeroLines))])
		}
		l.cap, l.top = c, 0
	}
	w := l.all
	w.SetSliced(l.top, l.top)
	l.top += n
	return w
}

// maxBlockNodes is the most bytes of blockNodes the pool keeps (the 100 KB
// benchmark note holds about 500 KB): a pathological input's nodes would
// stay in the pool.
const maxBlockNodes = 2 << 20

// zeroLines is read only: what blockNodes.lines is made from. Past its
// length (a note of more than 8,192 lines), the lines past it grow as
// goldmark grows them.
var zeroLines [8192]text.Segment

var blockNodesPool = sync.Pool{New: func() any { return new(blockNodes) }}

// reset makes the nodes handed out zero again (a node handed out is a zero
// node, as goldmark's constructors make them) and takes them all back.
func (b *blockNodes) reset() {
	b.paras.reset()
	b.items.reset()
	b.lists.reset()
	b.heads.reset()
	b.quotes.reset()
	b.rules.reset()
	b.fences.reset()
	b.linesTop, b.linesOwner = 0, nil
	b.window = text.Segments{}
	clear(b.parser.open[:cap(b.parser.open)])
	b.parser = blockParser{open: b.parser.open[:0], stats: b.parser.stats[:0]}
	b.root = blockRoot{}
	b.tables.reset()
	b.headers.reset()
	b.rows.reset()
	b.cells.reset()
	b.cellLines.top = 0
	b.table = tableNodes{}
}

// release puts b back in the pool, taken apart from the tree, unless it
// holds more than maxBlockNodes.
func (b *blockNodes) release() {
	held := b.paras.held + b.items.held + b.lists.held + b.heads.held + b.quotes.held + b.rules.held + b.fences.held
	held += b.tables.held + b.headers.held + b.rows.held + b.cells.held
	held += (b.linesCap + b.cellLines.cap) * int(unsafe.Sizeof(text.Segment{}))
	if held > maxBlockNodes {
		return
	}
	b.reset()
	blockNodesPool.Put(b)
}

// prepare makes room for the lines of a source of lines lines.
func (b *blockNodes) prepare(lines int) {
	lines = min(lines, len(zeroLines))
	if lines > b.linesCap {
		// text.Segments has no way to make room but appending:
		// appending zeroLines allocates the array once.
		b.lines = text.Segments{}
		b.lines.AppendAll(zeroLines[:lines])
		b.linesCap = lines
	}
	b.lines.SetSliced(0, 0)
}

// nodeChunk hands out zero nodes of one kind from blocks of 8 to 256,
// kept for the next parse.
type nodeChunk[T any] struct {
	chunks [][]T
	ci, k  int // the next node is chunks[ci][k]
	held   int // bytes of the chunks
}

func (c *nodeChunk[T]) new() *T {
	for c.ci < len(c.chunks) && c.k == len(c.chunks[c.ci]) {
		c.ci++
		c.k = 0
	}
	if c.ci == len(c.chunks) {
		n := 8
		if c.ci > 0 {
			n = min(2*len(c.chunks[c.ci-1]), 256)
		}
		c.chunks = append(c.chunks, make([]T, n))
		var zero T
		c.held += n * int(unsafe.Sizeof(zero))
	}
	n := &c.chunks[c.ci][c.k]
	c.k++
	return n
}

func (c *nodeChunk[T]) reset() {
	for i := 0; i < c.ci && i < len(c.chunks); i++ {
		clear(c.chunks[i])
	}
	if c.ci < len(c.chunks) {
		clear(c.chunks[c.ci][:c.k])
	}
	c.ci, c.k = 0, 0
}

// addLine appends seg to the lines of the leaf block node. Lines are only
// ever added to the last leaf block opened, so its lines are the last ones
// taken from the array and grow in place (past the array's end, Append
// moves them to memory of their own). A block that is not the last one
// (which does not happen, but costs nothing to allow) has its lines moved to
// the top first, or, once the array is full, to memory of their own: an
// append to lines below the top would write over the next block's.
func (p *blockParser) addLine(node ast.Node, seg text.Segment) {
	b := p.nodes
	if node != b.linesOwner {
		old := node.Lines()
		if b.linesTop+old.Len()+1 <= b.linesCap {
			b.window = b.lines
			b.window.SetSliced(b.linesTop, b.linesTop)
		} else {
			b.window = text.Segments{}
			b.linesTop = b.linesCap
		}
		b.window.AppendAll(old.Sliced(0, old.Len()))
		b.linesTop += old.Len()
		node.SetLines(&b.window)
		b.linesOwner = node
	}
	node.Lines().Append(seg)
	b.linesTop++
}

// blockParse builds goldmark's block tree of src, as mdBlockParser would,
// or reports false (and why) when it cannot be sure to.
func blockParse(source []byte, pc parser.Context) (ast.Node, bool) {
	return blockParseIn(source, pc, new(blockNodes))
}

// blockParseIn is blockParse with the tree's nodes taken from nodes (reset,
// or new).
func blockParseIn(source []byte, pc parser.Context, nodes *blockNodes) (ast.Node, bool) {
	p := &nodes.parser
	*p = blockParser{src: source, n: len(source), reader: text.NewReader(source), pc: pc, nodes: nodes,
		open: p.open[:0], stats: p.stats[:0]}
	nodes.prepare(bytes.Count(source, []byte{'\n'}) + 1)
	p.stop = p.lineStop(0)
	root := &nodes.root // ast.NewDocument
	root.nodes = nodes
	p.parseBlocks(root)
	if p.bail != "" {
		fastBail("blocks: " + p.bail)
		return nil, false
	}
	return root, true
}

func (p *blockParser) lineStop(from int) int {
	if from < p.n {
		// IndexByte is vectorised: the block parser looks for every line's
		// end.
		if i := bytes.IndexByte(p.src[from:p.n], '\n'); i >= 0 {
			return from + i + 1
		}
	}
	return p.n
}

// peek is goldmark's PeekLine: the rest of the line, nil at the end.
func (p *blockParser) peek() []byte {
	if p.pos >= 0 && p.pos < p.n {
		return p.src[p.pos:p.stop]
	}
	return nil
}

func (p *blockParser) advanceLine() {
	p.pos = p.stop
	p.head = p.pos
	if p.pos >= p.n {
		return
	}
	p.stop = p.lineStop(p.pos)
	p.line++
}

// advanceToEOL leaves the reader on the line's '\n' (or at the end).
func (p *blockParser) advanceToEOL() {
	if p.pos >= p.n {
		return
	}
	if p.stop > p.pos && p.src[p.stop-1] == '\n' {
		p.pos = p.stop - 1
	} else {
		p.pos = p.n
	}
}

func (p *blockParser) fail(why string) {
	if p.bail == "" {
		p.bail = why
	}
}

// indent is util.IndentWidth of the rest of the line, which has no tab in
// its indentation (else it bails): its width and position are the same.
func (p *blockParser) indent(line []byte) int {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i < len(line) && line[i] == '\t' {
		p.fail("tab")
	}
	return i
}

func (p *blockParser) parseBlocks(root ast.Node) {
	for p.bail == "" {
		// skip blank lines
		for {
			line := p.peek()
			if line == nil {
				return
			}
			if !util.IsBlank(line) {
				break
			}
			p.advanceLine()
		}
		if p.openBlocks(root, true) != brNewBlocksOpened {
			if p.bail == "" {
				p.fail("nothing opened")
			}
			return
		}
		p.advanceLine()
		p.stats = p.stats[:0]
		for p.bail == "" {
			l := len(p.open)
			if l == 0 {
				break
			}
			lastIndex := l - 1
			for i := 0; i < l && p.bail == ""; i++ {
				be := p.open[i]
				line := p.peek()
				if line == nil {
					p.closeBlocks(lastIndex, 0)
					p.advanceLine()
					return
				}
				lineNum := p.line
				p.stats = append(p.stats, fbStat{lineNum, i, util.IsBlank(line)})
				if be.kind != fbPara {
					state := p.cont(i)
					if state&bsContinue != 0 {
						if state&bsHasChildren != 0 && i == lastIndex {
							p.openBlocks(be.node, p.isBlankLine(lineNum-1, i+1))
							break
						}
						continue
					}
				}
				isBlank := p.isBlankLine(lineNum-1, i)
				var parent ast.Node = root
				if i != 0 {
					parent = p.open[i-1].node
				}
				lastNode := p.open[lastIndex].node
				result := p.openBlocks(parent, isBlank)
				if result != brParagraphContinuation {
					if p.open[lastIndex].node != lastNode {
						p.fail("transformed") // goldmark's setext path
						return
					}
					p.closeBlocks(lastIndex, i)
				} else if i != lastIndex {
					p.fail("lazy continuation")
					return
				}
				break
			}
			p.advanceLine()
		}
	}
}

// isBlankLine is goldmark's.
func (p *blockParser) isBlankLine(lineNum, level int) bool {
	l := len(p.stats)
	if l == 0 {
		return true
	}
	for i := l - 1 - level; i >= 0; i-- {
		s := p.stats[i]
		if s.lineNum == lineNum && s.level <= level {
			return s.blank
		} else if s.lineNum < lineNum {
			break
		}
	}
	return false
}

// cont is the Continue of the open block i (not a paragraph).
func (p *blockParser) cont(i int) int {
	b := &p.open[i]
	line := p.peek()
	switch b.kind {
	case fbQuote:
		if p.quoteMarker(line) {
			return bsContinue | bsHasChildren
		}
		return bsClose
	case fbList:
		if util.IsBlank(line) {
			return bsContinue | bsHasChildren
		}
		list := b.node.(*ast.List)
		offset := list.LastChild().(*ast.ListItem).Offset
		indent := p.indent(line)
		if indent < offset {
			if indent < 4 {
				match, typ := parseListItem(line)
				if typ != notList && match[1]-offset < 4 {
					marker := line[match[3]-1]
					if !list.CanContinue(marker, typ == orderedList) {
						return bsClose
					}
					if gmThematicBreak(line[match[3]-1:]) {
						return bsClose
					}
					return bsContinue | bsHasChildren
				}
			}
			return bsClose
		}
		return bsContinue | bsHasChildren
	case fbItem:
		if util.IsBlank(line) {
			p.advanceToEOL()
			return bsContinue | bsHasChildren
		}
		offset := b.node.(*ast.ListItem).Offset
		indent := p.indent(line)
		if indent < offset {
			if indent < 4 {
				if _, typ := parseListItem(line); typ != notList {
					p.skipList = true
				}
				return bsClose
			}
			p.fail("item indentation")
			return bsClose
		}
		p.pos += offset
		return bsContinue | bsHasChildren
	case fbFence:
		return p.fenceLine(b, line)
	}
	return bsClose
}

// quoteMarker is goldmark's blockquote process: '>' after at most 3
// spaces, then one optional space.
func (p *blockParser) quoteMarker(line []byte) bool {
	w := p.indent(line)
	if w > 3 || w >= len(line) || line[w] != '>' {
		return false
	}
	pos := w + 1
	if pos >= len(line) || line[pos] == '\n' {
		p.pos += pos
		return true
	}
	p.pos += pos
	switch line[pos] {
	case ' ':
		p.pos++
	case '\t':
		p.fail("tab")
	}
	return true
}

// fenceLine is the fenced code parser's Continue.
func (p *blockParser) fenceLine(b *fbOpen, line []byte) int {
	// The indentation, tabs included (util.IndentWidth at the line's
	// column; no tab comes before the reader's position in a line).
	col := p.pos - p.head
	w, pos := util.IndentWidth(line, col)
	if w < 4 {
		i := pos
		for i < len(line) && line[i] == b.fchar {
			i++
		}
		if i-pos >= b.flen && util.IsBlank(line[i:]) {
			p.advanceToEOL()
			return bsClose
		}
	}
	start := 0
	if b.findent > 0 {
		k := 0
		for k < len(line) && line[k] == ' ' && k < b.findent {
			k++
		}
		if k < len(line) && k < b.findent && line[k] == '\t' {
			p.fail("tab in fenced code indentation")
			return bsClose
		}
		if k >= b.findent {
			start = b.findent
		} else {
			start = max(0, util.FirstNonSpacePosition(line))
		}
	}
	seg := text.NewSegment(p.pos+start, p.stop)
	seg.ForceNewline = true
	p.addLine(b.node, seg)
	p.advanceToEOL()
	return bsContinue
}

// openBlocks is goldmark's, with the dialect's block parsers in their
// order.
func (p *blockParser) openBlocks(parent ast.Node, blankLine bool) int {
	result := brNoBlocksOpened
	continuable := len(p.open) > 0 && p.open[len(p.open)-1].kind == fbPara
	for p.bail == "" {
		line := p.peek()
		if line == nil || util.IsBlank(line) {
			break // nothing opens on a blank line
		}
		w := p.indent(line)
		if p.bail != "" {
			break
		}
		interrupt := continuable && result == brNoBlocksOpened
		if w > 3 {
			if !interrupt {
				p.fail("indented code")
			}
			break
		}
		var last *fbOpen
		if len(p.open) > 0 {
			last = &p.open[len(p.open)-1]
		}
		lastPara := last != nil && last.kind == fbPara
		blockPos := p.pos + w
		var node ast.Node
		kind := fbLeaf
		children := false
		ch := line[w]
		// setext heading
		if (ch == '-' || ch == '=') && lastPara && last.node.Parent() == parent {
			if _, ok := matchesSetextHeadingBar(line); ok {
				p.fail("setext heading")
				break
			}
		}
		// thematic break
		if ch == '-' || ch == '*' || ch == '_' {
			if gmThematicBreak(line) {
				node = p.nodes.rules.new()
				p.advanceToEOL()
			}
		}
		// list, list item
		if node == nil && (ch == '-' || ch == '*' || ch == '+' || (ch >= '0' && ch <= '9')) {
			lastList := last != nil && last.kind == fbList
			if lastList || p.skipList {
				p.skipList = false
			} else if match, typ := parseListItem(line); typ != notList {
				start := -1
				if typ == orderedList {
					start, _ = strconv.Atoi(string(line[match[2] : match[3]-1]))
				}
				if lastPara && last.node.Parent() == parent {
					if typ == orderedList && start != 1 {
						p.fail("ordered list interrupting a paragraph")
						break
					}
					if match[4] < 0 || util.IsBlank(line[match[4]:match[5]]) {
						p.fail("empty list item interrupting a paragraph")
						break
					}
				}
				l := p.nodes.lists.new() // ast.NewList
				l.Marker, l.IsTight = line[match[3]-1], true
				if start > -1 {
					l.Start = start
				}
				node, kind, children = l, fbList, true
			}
			if node == nil {
				if list, ok := parent.(*ast.List); ok {
					node = p.listItem(list, line)
					if node == nil {
						break
					}
					kind, children = fbItem, true
				}
			}
		}
		if _, ok := parent.(*ast.List); ok && kind != fbItem {
			p.fail("a list without an item")
			break
		}
		var fchar byte
		var findent, flen int
		if node == nil {
			switch ch {
			case '#':
				node = p.atxHeading(line, w)
			case '`', '~':
				node, fchar, flen = p.fence(line, w)
				findent = w
				if node != nil {
					kind = fbFence
				}
			case '>':
				if p.quoteMarker(line) {
					node, kind, children = p.nodes.quotes.new(), fbQuote, true
				}
			case '<':
				if mayOpenHTML(line[w:]) {
					p.fail("HTML block")
				}
			}
		}
		if p.bail != "" {
			break
		}
		if node == nil {
			if interrupt {
				break
			}
			// paragraph
			r := p.nodes.paras.new()
			p.addLine(r, text.NewSegment(p.pos, p.stop))
			p.advanceToEOL()
			node, kind = r, fbPara
		}
		node.SetPos(blockPos)
		node.SetBlankPreviousLines(blankLine)
		parent.AppendChild(parent, node)
		result = brNewBlocksOpened
		p.open = append(p.open, fbOpen{kind: kind, node: node, fchar: fchar, findent: findent, flen: flen})
		if len(p.open) > 4*MaxNesting {
			p.fail("nesting")
			break
		}
		if !children {
			break
		}
		parent = node
	}
	if result == brNoBlocksOpened && continuable && p.bail == "" {
		line := p.peek()
		if !util.IsBlank(line) {
			last := p.open[len(p.open)-1].node
			p.addLine(last, text.NewSegment(p.pos, p.stop))
			p.advanceToEOL()
			result = brParagraphContinuation
		}
	}
	return result
}

// listItem is the list item parser's Open under list.
func (p *blockParser) listItem(list *ast.List, line []byte) ast.Node {
	offset := 0
	if lc := list.LastChild(); lc != nil {
		offset = lc.(*ast.ListItem).Offset
	}
	match, typ := parseListItem(line)
	if typ == notList || match[1]-offset > 3 {
		p.fail("not a list item under a list")
		return nil
	}
	if match[4] < 0 || util.IsBlank(line[match[4]:match[5]]) {
		p.fail("empty list item")
		return nil
	}
	k := match[4]
	for k < len(line) && line[k] == ' ' {
		k++
	}
	if k < len(line) && line[k] == '\t' {
		p.fail("tab")
		return nil
	}
	itemOffset := k - match[4]
	if itemOffset > 4 {
		p.fail("list item content 5 columns after its marker")
		return nil
	}
	p.pos += match[3] + itemOffset
	li := p.nodes.items.new() // ast.NewListItem
	li.Offset = match[3] + itemOffset
	return li
}

// atxHeading is the ATX heading parser's Open at w, or nil.
func (p *blockParser) atxHeading(line []byte, w int) ast.Node {
	i := w
	for i < len(line) && line[i] == '#' {
		i++
	}
	level := i - w
	if level > 6 {
		return nil
	}
	if i == len(line) {
		h := p.nodes.heads.new() // ast.NewHeading
		h.Level = level
		return h
	}
	l := util.TrimLeftSpaceLength(line[i:])
	if l == 0 {
		return nil
	}
	start := min(i+l, len(line)-1)
	node := p.nodes.heads.new() // ast.NewHeading
	node.Level = level
	hl := text.NewSegment(p.pos+start, p.pos+len(line))
	hl = hl.TrimRightSpace(p.src)
	if hl.Len() > 0 {
		if p.src[hl.Stop-1] == '#' {
			p.fail("ATX heading ending with '#'")
			return nil
		}
		p.addLine(node, hl)
	}
	p.advanceToEOL()
	return node
}

// fence is the fenced code parser's Open at w, or nil.
func (p *blockParser) fence(line []byte, w int) (ast.Node, byte, int) {
	fc := line[w]
	i := w
	for i < len(line) && line[i] == fc {
		i++
	}
	n := i - w
	if n < 3 {
		return nil, 0, 0
	}
	var info *ast.Text
	if i < len(line)-1 {
		rest := line[i:]
		left := util.TrimLeftSpaceLength(rest)
		right := util.TrimRightSpaceLength(rest)
		if left < len(rest)-right {
			infoStart, infoStop := p.pos+i+left, p.stop-right
			for _, b := range rest[left : len(rest)-right] {
				if b == '`' && fc == '`' {
					p.fail("backtick in a backtick fence's info")
					return nil, 0, 0
				}
			}
			if infoStart != infoStop {
				info = ast.NewTextSegment(text.NewSegment(infoStart, infoStop))
			}
		}
	}
	f := p.nodes.fences.new() // ast.NewFencedCodeBlock
	f.Info = info
	return f, fc, n
}

// mayOpenHTML reports whether goldmark's HTML block parser could open at
// line (starting with '<'): '!' or '?', or a tag name (after an optional
// '/' and spaces) followed by a space, a tab, a form feed (goldmark's
// type-1 pattern takes any \s there), '\r', '>', '/' or the line's end.
func mayOpenHTML(line []byte) bool {
	i := 1
	if i < len(line) && (line[i] == '!' || line[i] == '?') {
		return true
	}
	if i < len(line) && line[i] == '/' {
		i++
		for i < len(line) && line[i] == ' ' {
			i++
		}
	}
	if i >= len(line) || !isASCIILetter(line[i]) {
		return false
	}
	for i < len(line) && (isASCIILetter(line[i]) || line[i] >= '0' && line[i] <= '9' || line[i] == '-') {
		i++
	}
	if i >= len(line) {
		return true
	}
	switch line[i] {
	case ' ', '\t', '\n', '\f', '>', '/', '\r':
		return true
	}
	return false
}

func isASCIILetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// closeBlocks is goldmark's: it closes the open blocks from..to (deepest
// first) and takes them off the stack.
func (p *blockParser) closeBlocks(from, to int) {
	for i := from; i >= to; i-- {
		switch p.open[i].kind {
		case fbPara:
			p.closeParagraph(p.open[i].node.(*rawParagraph))
		case fbList:
			closeList(p.open[i].node.(*ast.List))
		}
	}
	if from == len(p.open)-1 {
		p.open = p.open[:to]
	} else {
		p.open = append(p.open[:to], p.open[from+1:]...)
	}
}

// closeParagraph runs the paragraph transformers goldmark would (a
// definition bails; tables), then the paragraph's Close (lines trimmed, an
// empty paragraph dropped).
func (p *blockParser) closeParagraph(r *rawParagraph) {
	lines := r.Lines()
	if lines.Len() == 0 {
		return
	}
	first := lines.At(0)
	first = first.TrimLeftSpace(p.src)
	if first.Len() > 0 && p.src[first.Start] == '[' {
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			for k := seg.Start; k+1 < seg.Stop; k++ {
				if p.src[k] == ']' && p.src[k+1] == ':' {
					p.fail("link reference definition")
					return
				}
			}
		}
	}
	parent := r.Parent()
	if lines.Len() >= 2 && p.tableCandidate(lines) {
		para := ast.NewParagraph()
		para.SetLines(lines)
		para.SetPos(r.Pos())
		para.SetBlankPreviousLines(r.HasBlankPreviousLines())
		parent.ReplaceChild(parent, r, para)
		tableTransformer{own: true}.Transform(para, p.reader, p.pc)
		if para.Parent() == nil {
			return
		}
		lines = para.Lines()
		if lines.Len() == 0 {
			parent.RemoveChild(parent, para)
			return
		}
		parent.ReplaceChild(parent, para, r)
		r.SetLines(lines)
	}
	for i := 0; i < lines.Len(); i++ {
		l := lines.At(i)
		lines.Set(i, l.TrimLeftSpace(p.src))
	}
	last := lines.At(lines.Len() - 1)
	lines.Set(lines.Len()-1, last.TrimRightSpace(p.src))
}

// tableCandidate reports whether a line after the first may be a table's
// delimiter row (goldmark's isTableDelim).
func (p *blockParser) tableCandidate(lines *text.Segments) bool {
	for i := 1; i < lines.Len(); i++ {
		seg := lines.At(i)
		if isTableDelim(p.src[seg.Start:seg.Stop]) {
			return true
		}
	}
	return false
}

// isTableDelim is goldmark's (extension/table.go).
func isTableDelim(bs []byte) bool {
	if w, _ := util.IndentWidth(bs, 0); w > 3 {
		return false
	}
	allSep := true
	for _, b := range bs {
		if b != '-' {
			allSep = false
		}
		if !(util.IsSpace(b) || b == '-' || b == '|' || b == ':') {
			return false
		}
	}
	return !allSep
}

// closeList is goldmark's list Close: a list is loose when an item other
// than the first, or a child other than the first of an item, follows a
// blank line. (goldmark then makes a tight list's paragraphs TextBlocks;
// the converter reads rawParagraph alike.)
func closeList(list *ast.List) {
	for c := list.FirstChild(); c != nil && list.IsTight; c = c.NextSibling() {
		if c.FirstChild() != nil && c.FirstChild() != c.LastChild() {
			for c1 := c.FirstChild().NextSibling(); c1 != nil; c1 = c1.NextSibling() {
				if c1.HasBlankPreviousLines() {
					list.IsTight = false
					break
				}
			}
		}
		if c != list.FirstChild() {
			if c.HasBlankPreviousLines() {
				list.IsTight = false
			}
		}
	}
}

type listItemType int

const (
	notList listItemType = iota
	bulletList
	orderedList
)

// parseListItem is goldmark's (parser/list.go).
func parseListItem(line []byte) ([6]int, listItemType) {
	i := 0
	l := len(line)
	ret := [6]int{}
	for ; i < l && line[i] == ' '; i++ {
	}
	if i > 3 {
		return ret, notList
	}
	ret[0] = 0
	ret[1] = i
	ret[2] = i
	var typ listItemType
	if i < l && (line[i] == '-' || line[i] == '*' || line[i] == '+') {
		i++
		ret[3] = i
		typ = bulletList
	} else if i < l {
		for ; i < l && util.IsNumeric(line[i]); i++ {
		}
		ret[3] = i
		if ret[3] == ret[2] || ret[3]-ret[2] > 9 {
			return ret, notList
		}
		if i < l && (line[i] == '.' || line[i] == ')') {
			i++
			ret[3] = i
		} else {
			return ret, notList
		}
		typ = orderedList
	} else {
		return ret, notList
	}
	if i < l && line[i] != '\n' {
		w, _ := util.IndentWidth(line[i:], 0)
		if w == 0 {
			return ret, notList
		}
	}
	if i >= l {
		ret[4] = -1
		ret[5] = -1
		return ret, typ
	}
	ret[4] = i
	ret[5] = len(line)
	if line[ret[5]-1] == '\n' && line[i] != '\n' {
		ret[5]--
	}
	return ret, typ
}

// gmThematicBreak is goldmark's isThematicBreak, on a line without a tab before its
// first non-space.
func gmThematicBreak(line []byte) bool {
	w, pos := util.IndentWidth(line, 0)
	if w > 3 {
		return false
	}
	mark := byte(0)
	count := 0
	for i := pos; i < len(line); i++ {
		c := line[i]
		if util.IsSpace(c) {
			continue
		}
		if mark == 0 {
			mark = c
			count = 1
			if mark == '*' || mark == '-' || mark == '_' {
				continue
			}
			return false
		}
		if c != mark {
			return false
		}
		count++
	}
	return count > 2
}

// matchesSetextHeadingBar is goldmark's.
func matchesSetextHeadingBar(line []byte) (byte, bool) {
	start := 0
	end := len(line)
	space := util.TrimLeftLength(line, []byte{' '})
	if space > 3 {
		return 0, false
	}
	start += space
	level1 := util.TrimLeftLength(line[start:end], []byte{'='})
	c := byte('=')
	var level2 int
	if level1 == 0 {
		level2 = util.TrimLeftLength(line[start:end], []byte{'-'})
		c = '-'
	}
	if util.IsSpace(line[end-1]) {
		end -= util.TrimRightSpaceLength(line[start:end])
	}
	if !((level1 > 0 && start+level1 == end) || (level2 > 0 && start+level2 == end)) {
		return 0, false
	}
	return c, true
}

// buildTable is goldmark's table paragraph transformer (extension/table.go)
// without its regular expressions, and without the list of cells holding
// `\|` in code, which only goldmark's inline code spans read (fastInline
// reads `\|` in a cell itself): the first line after the first that is a
// delimiter row makes the lines before it the header and those after it
// the rows, and the paragraph keeps the lines before the header.
func buildTable(node *ast.Paragraph, source []byte) {
	lines := node.Lines()
	if lines.Len() < 2 {
		return
	}
	for i := 1; i < lines.Len(); i++ {
		alignments := tableDelimiter(lines.At(i), source)
		if alignments == nil {
			continue
		}
		bn := treeNodes(node)
		tn := newTableNodes(lines.Len()-i-1, len(alignments), bn)
		var header *east.TableHeader
		var table *east.Table
		if bn != nil {
			header, table = bn.headers.new(), bn.tables.new()
		} else {
			header, table = &east.TableHeader{}, east.NewTable()
		}
		if n := tableRow(header, lines.At(i-1), alignments, true, source, tn); n != len(alignments) {
			return
		}
		table.Alignments = alignments
		table.SetPos(node.Pos())
		header.SetPos(lines.At(i - 1).Start)
		table.AppendChild(table, header)
		for j := i + 1; j < lines.Len(); j++ {
			row := &tn.rows[j-i-1] // east.NewTableRow
			row.Alignments = alignments
			row.SetPos(lines.At(j).Start)
			tableRow(row, lines.At(j), alignments, false, source, tn)
			table.AppendChild(table, row)
		}
		lines.SetSliced(0, i-1)
		node.Parent().InsertAfter(node.Parent(), node, table)
		if lines.Len() == 0 {
			node.Parent().RemoveChild(node.Parent(), node)
		} else {
			last := lines.At(i - 2)
			last.Stop--
			lines.Set(i-2, last)
		}
	}
}

// tableNodes holds a table's rows and cells, and the cells' lines (one
// each): goldmark allocates each on its own. A table has the header's
// number of cells on each row (tableRow), so the table's are made at once,
// from the tree's blockNodes (bn) when it has them (blockParse's), else in
// one allocation each; a header with more cells than the delimiter row has
// columns is no table, and takes the cells past them from goldmark's
// constructor.
type tableNodes struct {
	rows   []east.TableRow
	cells  []east.TableCell
	lines  text.Segments // values: a line for each cell, len(cells) (len 0)
	window text.Segments
	k      int // cells handed out
}

func newTableNodes(rows, cols int, bn *blockNodes) *tableNodes {
	if bn != nil {
		tn := &bn.table
		*tn = tableNodes{rows: bn.rows.take(rows), cells: bn.cells.take((rows + 1) * cols)}
		tn.lines = bn.cellLines.take(len(tn.cells))
		return tn
	}
	tn := &tableNodes{rows: make([]east.TableRow, rows), cells: make([]east.TableCell, (rows+1)*cols)}
	n := len(tn.cells)
	for n > 0 {
		// text.Segments has no way to make room but appending.
		k := min(n, len(zeroLines))
		tn.lines.AppendAll(zeroLines[:k])
		n -= k
	}
	tn.lines.SetSliced(0, 0)
	return tn
}

// cell is east.NewTableCell.
func (tn *tableNodes) cell() *east.TableCell {
	if tn.k == len(tn.cells) {
		return east.NewTableCell()
	}
	c := &tn.cells[tn.k]
	c.Alignment = east.AlignNone
	tn.k++
	return c
}

// line gives the cell c, just taken with cell, its line. The cell's lines
// share the table's array: nothing adds a line to a cell once built
// (widenTable adds lines only to cells it makes).
func (tn *tableNodes) line(c *east.TableCell, seg text.Segment) {
	if tn.k == 0 || c != &tn.cells[tn.k-1] {
		c.Lines().Append(seg)
		return
	}
	tn.window = tn.lines
	tn.window.SetSliced(tn.k-1, tn.k-1)
	tn.window.Append(seg)
	c.SetLines(&tn.window)
}

// tableRow is goldmark's parseRow: it appends the cells of the row on seg
// to row and returns their number.
func tableRow(row ast.Node, seg text.Segment, alignments []east.Alignment, isHeader bool, source []byte, tn *tableNodes) int {
	npos := seg.Start
	seg = seg.TrimLeftSpace(source)
	seg = seg.TrimRightSpace(source)
	line := source[seg.Start:seg.Stop]
	pos, limit := 0, len(line)
	if len(line) > 0 && line[0] == '|' {
		pos++
	}
	if len(line) > 0 && line[limit-1] == '|' {
		limit--
	}
	n := 0
	i := 0
	for ; pos < limit; i++ {
		alignment := east.AlignNone
		if i >= len(alignments) {
			if !isHeader {
				return n
			}
		} else {
			alignment = alignments[i]
		}
		cell := tn.cell()
		cell.SetPos(npos + pos) // as goldmark's (the untrimmed start)
		cell.Alignment = alignment
		closure := pos
		for ; closure < limit; closure++ {
			if line[closure] == '|' && (closure == 0 || line[closure-1] != '\\') {
				break
			}
		}
		cs := text.NewSegment(seg.Start+pos, seg.Start+closure)
		cs = cs.TrimLeftSpace(source)
		cs = cs.TrimRightSpace(source)
		tn.line(cell, cs)
		row.AppendChild(row, cell)
		n++
		pos = closure + 1
	}
	for ; i < len(alignments); i++ {
		row.AppendChild(row, tn.cell())
		n++
	}
	return n
}

// tableDelimiter is goldmark's parseDelimiter: the alignments of a
// delimiter row, or nil.
func tableDelimiter(seg text.Segment, source []byte) []east.Alignment {
	line := source[seg.Start:seg.Stop]
	if !isTableDelim(line) {
		return nil
	}
	// The columns are bytes.Split(line, "|") less a blank first and a
	// blank last one, read in place.
	ncols := bytes.Count(line, []byte{'|'}) + 1
	var alignments []east.Alignment
	next := 0
	for k := 0; k < ncols; k++ {
		end := len(line)
		if j := bytes.IndexByte(line[next:], '|'); j >= 0 {
			end = next + j
		}
		col := line[next:end]
		next = end + 1
		if (k == 0 || k == ncols-1) && util.IsBlank(col) {
			continue
		}
		if alignments == nil {
			alignments = make([]east.Alignment, 0, ncols)
		}
		// ^\s*:?-+:?\s*$ (isTableDelim let only spaces, '-', '|' and ':' in)
		a, b := 0, len(col)
		for a < b && util.IsSpace(col[a]) {
			a++
		}
		for b > a && util.IsSpace(col[b-1]) {
			b--
		}
		left := a < b && col[a] == ':'
		if left {
			a++
		}
		right := b > a && col[b-1] == ':'
		if right {
			b--
		}
		if a >= b {
			return nil
		}
		for k := a; k < b; k++ {
			if col[k] != '-' {
				return nil
			}
		}
		switch {
		case left && right:
			alignments = append(alignments, east.AlignCenter)
		case left:
			alignments = append(alignments, east.AlignLeft)
		case right:
			alignments = append(alignments, east.AlignRight)
		default:
			alignments = append(alignments, east.AlignNone)
		}
	}
	return alignments
}
