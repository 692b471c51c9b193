package markdown

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The goldmark parser: CommonMark plus GFM tables, strikethrough and task
// lists (the GFM extension would also turn on linkify). Emphasis (with
// `__x__` read as underline rather than strong), strikethrough and links use
// the linear parsers of parse_inline.go.
var mdParser = newParser([]util.PrioritizedValue{
	util.Prioritized(extension.NewTaskCheckBoxParser(), 0),
	util.Prioritized(parser.NewCodeSpanParser(), 100),
	util.Prioritized(linkParser{}, 200),
	util.Prioritized(parser.NewAutoLinkParser(), 300),
	util.Prioritized(parser.NewRawHTMLParser(), 400),
	util.Prioritized(emphasisParser{}, 500),
})

// newParser is a goldmark parser of the dialect's blocks (CommonMark's and
// tables) with the given inline parsers, and more paragraph transformers
// after the codec's own (mdParser, and the fast path's mdBlockParser).
func newParser(inline []util.PrioritizedValue, paragraph ...util.PrioritizedValue) parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(inline...),
		parser.WithParagraphTransformers(append([]util.PrioritizedValue{
			util.Prioritized(definitionTransformer{}, 100),
			util.Prioritized(tableTransformer{}, 200),
		}, paragraph...)...),
		parser.WithASTTransformers(
			util.Prioritized(extension.NewTableASTTransformer(), 0),
		),
	)
}

// definitionTransformer runs goldmark's link reference definition
// transformer only on paragraphs that can start with a definition ("[" after
// the indentation): goldmark's makes a block reader for every paragraph,
// and definitions only ever come first.
type definitionTransformer struct{}

func (definitionTransformer) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := node.Lines()
	if lines.Len() == 0 {
		return
	}
	seg := lines.At(0)
	first := bytes.TrimLeft(seg.Value(reader.Source()), " \t")
	if len(first) == 0 || first[0] != '[' {
		return
	}
	parser.LinkReferenceParagraphTransformer.Transform(node, reader, pc)
}

// kindUnderline is the goldmark node kind of `__x__`.
var kindUnderline = ast.NewNodeKind("Underline")

type underlineNode struct {
	ast.BaseInline
}

func (n *underlineNode) Kind() ast.NodeKind { return kindUnderline }

func (n *underlineNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, nil, nil)
}

// Parse reads Markdown into the stored document. It rejects, with an *Error
// (errors.Is(err, ErrInvalid)), what cannot be stored without losing content:
// images, invalid UTF-8, NUL bytes, link destinations with a scheme other than
// http, https or mailto, and lists and quotes nested deeper than MaxNesting.
// What is only presentation is normalised (see the package documentation).
// It also rejects (ConstructLength) a document whose canonical Markdown, or
// stored form, certainly passes its limit, stopping as soon as it knows
// (limit.go); ParseCanonical adds the exact check. The caller limits the
// input size.
func Parse(markdown string) (Doc, error) {
	d, _, err := parse(markdown)
	return d, err
}

// parse is Parse, also returning the converter for tests to inspect. It
// tries the fast path first (fastpath.go) when fastPath is on, and reads the
// input again the full way when that path bails.
func parse(markdown string) (Doc, *converter, error) {
	src, err := prepare(markdown)
	if err != nil {
		return Doc{}, nil, err
	}
	if err := nestingScan(src); err != nil {
		return Doc{}, nil, err
	}
	if fastPath {
		if d, c, ok := parseFast(src); ok {
			fastTaken.Add(1)
			return d, c, nil
		}
		fastBailed.Add(1)
	}
	return parseFull(src)
}

// parseFull converts goldmark's whole tree, inline content included, as
// mdParser builds it.
func parseFull(src string) (Doc, *converter, error) {
	// goldmark only reads its source (it takes read-only strings of it
	// itself), so the input's bytes are lent to it instead of copied.
	source := unsafe.Slice(unsafe.StringData(src), len(src))
	pc := parser.NewContext()
	c := &converter{src: src, source: source, pc: pc}
	c.slab.sized(len(src))
	pc.Set(budgetKey, &c.budget)
	pc.Set(dlistKey, &c.dlists)
	root := mdParser.Parse(text.NewReader(source), parser.WithContext(pc))
	if c.budget.overAt != 0 {
		c.over(c.budget.overAt-1, reasonTable)
		return Doc{}, c, c.err
	}
	content := c.blocks(root, 0)
	if c.err != nil {
		return Doc{}, c, c.err
	}
	if checkTableShapes {
		if n := tableCells(content); n != c.budget.cells {
			panic(fmt.Sprintf("markdown: the table pre-count expected %d cells, goldmark built %d", c.budget.cells, n))
		}
	}
	return Doc{Content: content}, c, nil
}

// tableCells counts the cells of the tables in nodes.
func tableCells(nodes []Node) int {
	n := 0
	for i := range nodes {
		if nodes[i].Type == TypeTable {
			for _, row := range nodes[i].Content {
				n += len(row.Content)
			}
			continue
		}
		n += tableCells(nodes[i].Content)
	}
	return n
}

type converter struct {
	src       string
	source    []byte
	err       error
	listDepth int

	// inline state of the block being converted
	items    []item
	lits     [][]litRange // literal byte ranges of each text item
	litArena []litRange   // backing store of lits for the current block
	buf      []byte       // text of the last item, unless it is a source range
	open     bool         // the last item is being built
	scanned  []item
	// While the text in buf equals src[srcFrom:srcTo], it is taken from the
	// source without copying.
	srcFrom, srcTo int
	srcOK          bool

	slab    nodeSlab
	text    textArena // the document's texts that are not pieces of src
	dropped bool      // the writer dropped marks it could not write (see inline)
	// keptDefinition: a link reference definition nothing used was kept
	// as a link (tests)
	keptDefinition bool
	pc             parser.Context
	pipeCode       bool // `\|` in code is "|" (a cell widenTable added)
	fast           bool // reading inline content with fastInline (fastpath.go)
	noSigil        bool // fastInline found no '#' or '@' in the block's text: scanTags has nothing to do
	asciiText      bool // fastInline found the block's text outside code and links ASCII (countItems)
	fs             fastState

	budget budget     // characters the output certainly holds (limit.go)
	dlists dlistArena // processEmphasis's lists
	// links resolved from one reference definition (or any long
	// destination), by the memory of their destination and title: each use
	// of a definition shares its bytes, and is decoded and checked once.
	links map[linkKey]*linkAttr
}

type linkKey struct {
	dest, title *byte
	destLen     int
	titleLen    int
}

type litRange struct{ from, to int }

func (c *converter) fail(construct string, pos int, detail string) {
	if c.err == nil {
		c.err = invalid(construct, c.lineOf(pos), detail)
	}
}

func (c *converter) lineOf(pos int) int {
	if pos < 0 {
		pos = 0
	}
	if pos > len(c.src) {
		pos = len(c.src)
	}
	return strings.Count(c.src[:pos], "\n") + 1
}

// nodePos finds a source offset for a node: its own, or its first line's, or
// a descendant's.
func nodePos(n ast.Node) int {
	for m := n; m != nil; m = m.FirstChild() {
		if p := m.Pos(); p >= 0 {
			return p
		}
		if m.Type() == ast.TypeBlock && m.Lines().Len() > 0 {
			return m.Lines().At(0).Start
		}
		if t, ok := m.(*ast.Text); ok {
			return t.Segment.Start
		}
	}
	return 0
}

func (c *converter) blocks(parent ast.Node, depth int) []Node {
	out := c.slab.make(parent.ChildCount())[:0]
	// Top-level blocks are taken out of goldmark's tree once converted, so
	// that a collection during the conversion does not mark what is done
	// with (the tree is about as large as the document being built).
	top := parent.Kind() == ast.KindDocument
	var done ast.Node
	// Definitions nothing uses, in a row, become one paragraph of links.
	var defs []item
	defsAt := 0
	flushDefs := func() {
		if len(defs) == 0 {
			return
		}
		items := normInline(defs, ctxParagraph)
		c.countItems(items, defsAt)
		if len(items) > 0 && c.err == nil {
			var p *Node
			out, p = pushNode(out)
			p.Type, p.Content = TypeParagraph, c.slab.nodesFromItems(items)
		}
		defs = nil
	}
	for n := parent.FirstChild(); n != nil && c.err == nil; n = n.NextSibling() {
		if top {
			if done != nil {
				parent.RemoveChild(parent, done)
			}
			done = n
			c.slab.at = nodePos(n) // the slab's blocks are sized from it
		}
		if d, ok := n.(*ast.LinkReferenceDefinition); ok {
			// Definitions some link used are resolved into those links.
			if l := c.unusedDefinition(d); l != nil {
				if len(defs) == 0 {
					defsAt = nodePos(n)
				} else {
					defs = append(defs, item{kind: itText, text: "\n"})
				}
				label, _ := decodeText(d.Label, nil)
				defs = append(defs, item{kind: itText, text: label, link: l})
			}
			continue
		}
		flushDefs()
		switch b := n.(type) {
		case *ast.Paragraph, *ast.TextBlock, *rawParagraph:
			if items := c.leaf(n, ctxParagraph); len(items) > 0 {
				var p *Node
				out, p = pushNode(out)
				p.Type, p.Content = TypeParagraph, c.slab.nodesFromItems(items)
			}
		case *ast.Heading:
			level := min(b.Level, 3)
			ctx := ctxHeading
			if level == 3 {
				ctx = ctxHeading3
			}
			content := c.slab.nodesFromItems(c.leaf(n, ctx))
			var p *Node
			out, p = pushNode(out)
			p.Type, p.Attrs.Level, p.Content = TypeHeading, uint8(level), content
		case *ast.ThematicBreak:
			var p *Node
			out, p = pushNode(out)
			p.Type = TypeHorizontalRule
		case *ast.CodeBlock:
			code := canonCode(c.lines(n))
			c.countText(code, nodePos(n))
			var p *Node
			out, p = pushNode(out)
			p.Type, p.Text = TypeCodeBlock, code
		case *ast.FencedCodeBlock:
			lang := ""
			if b.Info != nil {
				v, _ := decodeText(b.Info.Segment.Value(c.source), nil)
				lang = canonLanguage(v)
			}
			code := canonCode(c.lines(n))
			c.countText(lang, nodePos(n))
			c.countText(code, nodePos(n))
			var p *Node
			out, p = pushNode(out)
			p.Type, p.Attrs.Language, p.Text = TypeCodeBlock, lang, code
		case *ast.Blockquote:
			if depth+1 > MaxNesting {
				c.fail(ConstructNesting, nodePos(n), "")
				return nil
			}
			content := c.blocks(n, depth+1)
			var p *Node
			out, p = pushNode(out)
			if kind, rest, ok := splitCallout(content); ok {
				p.Type, p.Attrs.Label, p.Content = TypeCallout, kind, rest
			} else {
				p.Type, p.Content = TypeBlockquote, content
			}
		case *ast.List:
			if depth+1 > MaxNesting {
				c.fail(ConstructNesting, nodePos(n), "")
				return nil
			}
			c.listDepth++
			items := c.slab.make(n.ChildCount())[:0]
			for it := n.FirstChild(); it != nil; it = it.NextSibling() {
				content := c.blocks(it, depth+1)
				var p *Node
				items, p = pushNode(items)
				p.Type, p.Content = TypeListItem, content
				if box := c.taskBoxOf(it); box != TaskNone {
					c.taskItem(p, box, nodePos(it))
				}
			}
			c.listDepth--
			if len(items) == 0 {
				continue
			}
			var l *Node
			out, l = pushNode(out)
			l.Type = TypeBulletList
			if b.IsOrdered() {
				l.Type = TypeOrderedList
				l.Attrs.Start = int32(min(max(b.Start, 0), maxListStart))
			}
			l.Content = items
			l.Attrs.Tight = listTight(items, b.IsTight, c.listDepth > 0)
		case *ast.HTMLBlock:
			out = append(out, c.htmlBlock(b)...)
		case *east.Table:
			var p *Node
			out, p = pushNode(out)
			c.table(b, p)
		default:
			out = append(out, c.blocks(n, depth)...)
		}
	}
	if c.err == nil {
		flushDefs()
	}
	return out
}

// unusedDefinition returns the link of a definition that no link used (it
// is not the first of its label, or nothing refers to it), to be kept as
// a link whose text is the label; nil for a used definition, or one whose
// destination is refused.
func (c *converter) unusedDefinition(d *ast.LinkReferenceDefinition) *linkAttr {
	key := util.ToLinkReference(d.Label)
	if ref, ok := c.pc.Reference(key); ok && unsafe.SliceData(ref.Label()) == unsafe.SliceData(d.Label) {
		if used, _ := c.pc.Get(usedRefsKey).(usedRefs); used != nil {
			if _, ok := used[key]; ok {
				return nil
			}
		}
	}
	href, _ := decodeText(d.Destination, nil)
	title, _ := decodeText(d.Title, nil)
	if !c.checkHref(href, d.Destination, nodePos(d)) {
		return nil
	}
	c.keptDefinition = true
	return &linkAttr{href: href, title: title}
}

// taskBox reports the checkbox goldmark's task parser found at the start of
// a list item's first paragraph.
func taskBox(it ast.Node) TaskState {
	if p := it.FirstChild(); p != nil && (p.Kind() == ast.KindParagraph || p.Kind() == ast.KindTextBlock) {
		if box, ok := p.FirstChild().(*east.TaskCheckBox); ok {
			if box.IsChecked {
				return TaskDone
			}
			return TaskOpen
		}
	}
	return TaskNone
}

// taskItem gives a list item its checkbox, which Markdown writes before the
// first paragraph: when there is none (`- [ ]` alone), the box is kept as
// the text "[ ]" (or "[x]"), written `- \[ \]`.
func (c *converter) taskItem(li *Node, box TaskState, pos int) {
	if len(li.Content) > 0 && li.Content[0].Type == TypeParagraph {
		li.Attrs.Task = box
		return
	}
	text := "[ ]"
	if box == TaskDone {
		text = "[x]"
	}
	items := []item{{kind: itText, text: text}}
	c.countItems(items, pos)
	para := Node{Type: TypeParagraph, Content: c.slab.nodesFromItems(items)}
	li.Content = append([]Node{para}, li.Content...)
}

// segment is the text of a source segment, sharing the source's memory when
// the segment has no padding.
func (c *converter) segment(seg text.Segment) string {
	if seg.Padding == 0 {
		return c.src[seg.Start:seg.Stop]
	}
	return string(seg.Value(c.source))
}

func (c *converter) lines(n ast.Node) string {
	lines := n.Lines()
	size := 0
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		size += seg.Len()
	}
	b := c.text.take(size)
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		if seg.Padding == 0 {
			b = append(b, c.source[seg.Start:seg.Stop]...)
		} else {
			b = append(b, seg.Value(c.source)...)
		}
	}
	return c.text.done(b)
}

// htmlBlock keeps raw HTML as literal text, one paragraph per run of
// non-blank lines.
func (c *converter) htmlBlock(b *ast.HTMLBlock) []Node {
	raw := c.lines(b)
	if b.HasClosure() {
		raw += string(b.ClosureLine.Value(c.source))
	}
	var out []Node
	for _, para := range splitParagraphs(raw) {
		items := normInline([]item{{kind: itText, text: para}}, ctxParagraph)
		c.countItems(items, nodePos(b))
		if len(items) > 0 {
			out = append(out, Node{Type: TypeParagraph, Content: c.slab.nodesFromItems(items)})
		}
	}
	return out
}

func splitParagraphs(s string) []string {
	var out []string
	var cur []string
	for _, line := range strings.Split(s, "\n") {
		if isBlankStr(line) {
			if len(cur) > 0 {
				out = append(out, strings.Join(cur, "\n"))
				cur = cur[:0]
			}
			continue
		}
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, "\n"))
	}
	return out
}

// table converts t into table, a zero node (see pushNode).
func (c *converter) table(t *east.Table, table *Node) {
	table.Type = TypeTable
	rows := c.slab.make(t.ChildCount())[:0]
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		cellType := TypeTableCell
		if _, ok := row.(*east.TableHeader); ok {
			cellType = TypeTableHeader
		}
		n := row.ChildCount()
		var r *Node
		rows, r = pushNode(rows)
		r.Type = TypeTableRow
		cells := c.slab.make(n)[:0]
		paras := c.slab.make(n)
		i := 0
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			// goldmark takes the backslash out of `\|` in a cell's code;
			// in the cells it dropped and widenTable added, the converter.
			c.pipeCode = i >= len(t.Alignments)
			items := c.leaf(cell, ctxCell)
			c.pipeCode = false
			paras[i].Type, paras[i].Content = TypeParagraph, c.slab.nodesFromItems(items)
			var p *Node
			cells, p = pushNode(cells)
			p.Type, p.Content = cellType, paras[i:i+1:i+1]
			i++
		}
		r.Content = cells
	}
	table.Content = rows
}

// pushNode appends a zero node to nodes and returns it, for the caller to
// fill in field by field. nodes' room past its length must be zero (the
// slab's nodes are, and append's new arrays): writing a whole node while
// the collector marks costs its write barrier on every pointer field, and
// the block conversion writes each node once.
func pushNode(nodes []Node) ([]Node, *Node) {
	if len(nodes) < cap(nodes) {
		nodes = nodes[:len(nodes)+1]
	} else {
		nodes = append(nodes, Node{})
	}
	return nodes, &nodes[len(nodes)-1]
}

// inline converts the inline children of a block into canonical items.
func (c *converter) inline(block ast.Node, ctx blockCtx) []item {
	c.inlineStart()
	c.walk(block, 0, nil)
	return c.inlineDone(block, ctx)
}

// inlineDone turns the items added for a block into its canonical items:
// tags split out, normalised, written by the writer when needed, counted.
func (c *converter) inlineDone(block ast.Node, ctx blockCtx) []item {
	c.flush()
	if c.err != nil {
		return nil
	}
	items := c.scanTags()
	items, moved := normInlineMoved(items, ctx)
	if writerNeeded(items, moved) {
		// Marks can come out of a source in a shape the writer cannot
		// always write back: emphasis taken off edge whitespace can leave a
		// range that starts inside a link and ends after it; spans the
		// source split by a run like "******" merge into crossing ranges
		// once their text joins; one span ending where another begins
		// ("*a***b**") needs delimiter runs that fuse. The writer drops
		// what it cannot write, and Parse must give what Render would read
		// back. All are rare in real notes, so the writer runs only then.
		planned := planInline(items, inlineCtx{block: ctx}).items
		c.dropped = c.dropped || !sameItems(planned, items)
		items = planned
	}
	c.countItems(items, nodePos(block))
	c.asciiText = false // the other callers of countItems count other items
	if c.err != nil {
		return nil
	}
	return items
}

// inlineStart empties the inline state for the next block.
func (c *converter) inlineStart() {
	c.items = c.items[:0]
	c.lits = c.lits[:0]
	c.litArena = c.litArena[:0]
	c.buf = c.buf[:0]
	c.open = false
	c.srcOK = false
	c.noSigil = false
	c.asciiText = false
}

// writerNeeded reports whether normalised items (moved: emphasis was taken
// off edge whitespace) may hold marks the writer cannot write as they are
// (see converter.inline).
func writerNeeded(items []item, moved bool) bool {
	return moved || crossingMarks(items) || abuttingMarks(items)
}

// abuttingMarks reports whether, between two items, more than one emphasis
// mark changes: one span ends where another begins, or two open or close
// together inside the text.
func abuttingMarks(items []item) bool {
	prev, started := uint8(0), false
	for i := range items {
		it := &items[i]
		if it.kind == itBreak {
			continue
		}
		cur := it.marks & mEmphasis
		if started {
			if change := prev ^ cur; change&(change-1) != 0 {
				return true
			}
		}
		prev, started = cur, true
	}
	return false
}

// crossingMarks reports whether the ranges of two marks (emphasis or a link)
// cross: one opens inside the other and closes after it. Marks that open at
// the same place nest either way. Hard breaks are not looked at.
func crossingMarks(items []item) bool {
	var openedAt [4]int // by emphasis bit: where its current range opened
	linkAt := 0
	var prev uint8
	var prevLink *linkAttr
	for i := range items {
		it := &items[i]
		if it.kind == itBreak {
			continue
		}
		cur := it.marks & mEmphasis
		linkGoes := prevLink != nil && !sameLink(prevLink, it.link)
		still := prev & cur
		for b := 0; b < 4; b++ {
			bit := uint8(1) << b
			if prev&bit == 0 || cur&bit != 0 {
				continue
			}
			// bit closes here: nothing that opened later may stay open.
			for o := 0; o < 4; o++ {
				if still&(1<<o) != 0 && openedAt[o] > openedAt[b] {
					return true
				}
			}
			if prevLink != nil && !linkGoes && linkAt > openedAt[b] {
				return true
			}
		}
		if linkGoes {
			for o := 0; o < 4; o++ {
				if still&(1<<o) != 0 && openedAt[o] > linkAt {
					return true
				}
			}
		}
		for b := 0; b < 4; b++ {
			if cur&^prev&(1<<b) != 0 {
				openedAt[b] = i
			}
		}
		if it.link != nil && !sameLink(prevLink, it.link) {
			linkAt = i
		}
		prev, prevLink = cur, it.link
	}
	return false
}

// add appends text with its marks, merging with the previous item when the
// marks are equal. lits are literal ranges relative to s. The text of the
// last item grows in c.buf, so that many small pieces cost linear time.
func (c *converter) add(s string, marks uint8, link *linkAttr, lits []litRange, allLiteral bool) {
	if s == "" {
		return
	}
	if allLiteral {
		lits = []litRange{{0, len(s)}}
	}
	if n := len(c.items); n > 0 && c.open {
		last := &c.items[n-1]
		if last.marks == marks && sameLink(last.link, link) {
			c.materialise()
			base := len(c.buf)
			for _, l := range lits {
				c.lits[n-1] = append(c.lits[n-1], litRange{l.from + base, l.to + base})
			}
			c.buf = append(c.buf, s...)
			return
		}
	}
	c.flush()
	c.items = append(c.items, item{kind: itText, marks: marks, link: link})
	// The item's ranges are carved from one arena, capacity-limited so that
	// growing them later copies them out instead of overwriting a neighbour.
	from := len(c.litArena)
	c.litArena = append(c.litArena, lits...)
	c.lits = append(c.lits, c.litArena[from:len(c.litArena):len(c.litArena)])
	c.buf = append(c.buf[:0], s...)
	c.open = true
	c.srcOK = false
}

// materialise copies a pending source range into buf, as text that does not
// continue it is about to follow.
func (c *converter) materialise() {
	if c.srcOK {
		c.buf = append(c.buf[:0], c.src[c.srcFrom:c.srcTo]...)
		c.srcOK = false
	}
}

// addSource is add for text without escapes: the source bytes [from, to).
func (c *converter) addSource(from, to int, marks uint8, link *linkAttr) {
	if from >= to {
		return
	}
	if n := len(c.items); n > 0 && c.open {
		last := &c.items[n-1]
		if last.marks == marks && sameLink(last.link, link) {
			if c.srcOK && from == c.srcTo {
				c.srcTo = to
				return
			}
			c.materialise()
			c.buf = append(c.buf, c.source[from:to]...)
			return
		}
	}
	c.flush()
	c.items = append(c.items, item{kind: itText, marks: marks, link: link})
	c.lits = append(c.lits, nil)
	c.open = true
	c.srcFrom, c.srcTo, c.srcOK = from, to, true
}

// addNewline adds a soft line break, which stays a source range when the
// source has the newline right there.
func (c *converter) addNewline(marks uint8, link *linkAttr) {
	if n := len(c.items); n > 0 && c.open && c.srcOK {
		last := &c.items[n-1]
		if last.marks == marks && sameLink(last.link, link) && c.srcTo < len(c.src) && c.src[c.srcTo] == '\n' {
			c.srcTo++
			return
		}
	}
	c.add("\n", marks, link, nil, false)
}

// flush stores the text being built in the last item.
func (c *converter) flush() {
	if c.open {
		if c.srcOK {
			c.items[len(c.items)-1].text = c.src[c.srcFrom:c.srcTo]
		} else {
			c.items[len(c.items)-1].text = c.text.copy(c.buf)
		}
		c.buf = c.buf[:0]
		c.open = false
		c.srcOK = false
	}
}

func (c *converter) addBreak() {
	c.flush()
	c.items = append(c.items, item{kind: itBreak})
	c.lits = append(c.lits, nil)
}

func (c *converter) walk(parent ast.Node, marks uint8, link *linkAttr) {
	for n := parent.FirstChild(); n != nil && c.err == nil; n = n.NextSibling() {
		switch t := n.(type) {
		case *ast.Text:
			raw := t.Segment.Value(c.source)
			switch {
			case t.IsRaw():
				// add copies the text: raw is lent to it.
				c.add(unsafe.String(unsafe.SliceData(raw), len(raw)), marks, link, nil, true)
			case !hasEscapeOrRef(raw) && t.Segment.Padding == 0:
				c.addSource(t.Segment.Start, t.Segment.Stop, marks, link)
			default:
				s, lits := decodeText(raw, nil)
				c.add(s, marks, link, lits, false)
			}
			if t.HardLineBreak() {
				c.addBreak()
			} else if t.SoftLineBreak() {
				c.addNewline(marks, link)
			}
		case *ast.String:
			c.add(unsafe.String(unsafe.SliceData(t.Value), len(t.Value)), marks, link, nil, true) // copied by add
		case *literalNode:
			c.add(c.segment(t.seg), marks, link, nil, true)
		case *ast.CodeSpan:
			if tx, ok := t.FirstChild().(*ast.Text); ok && tx.NextSibling() == nil {
				// One line of code: its text is a piece of the source.
				if v := c.segment(tx.Segment); !strings.HasSuffix(v, "\n") {
					if c.pipeCode {
						v = strings.ReplaceAll(v, "\\|", "|")
					}
					c.add(v, marks|mCode, link, nil, true)
					continue
				}
			}
			var b strings.Builder
			for ch := t.FirstChild(); ch != nil; ch = ch.NextSibling() {
				if tx, ok := ch.(*ast.Text); ok {
					v := tx.Segment.Value(c.source)
					if len(v) > 0 && v[len(v)-1] == '\n' {
						b.Write(v[:len(v)-1])
						b.WriteByte(' ')
					} else {
						b.Write(v)
					}
				}
			}
			code := b.String()
			if c.pipeCode {
				code = strings.ReplaceAll(code, "\\|", "|")
			}
			c.add(code, marks|mCode, link, nil, true)
		case *ast.Emphasis:
			bit := mItalic
			if t.Level >= 2 {
				bit = mBold
			}
			c.walk(n, marks|bit, link)
		case *underlineNode:
			c.walk(n, marks|mUnderline, link)
		case *east.Strikethrough:
			c.walk(n, marks|mStrike, link)
		case *ast.Link:
			l := c.link(t)
			if l == nil {
				return
			}
			if n.FirstChild() == nil {
				// `[](url)`: the destination is the text (normInline does
				// the same for a link of whitespace).
				c.add(linkShownText(l), marks, l, nil, true)
				continue
			}
			c.walk(n, marks, l)
		case *ast.AutoLink:
			label := string(t.Label(c.source))
			href := string(t.URL(c.source))
			if t.AutoLinkType == ast.AutoLinkEmail {
				href = "mailto:" + href
			}
			pos := nodePos(n)
			if !c.checkHref(href, []byte(href), pos) {
				return
			}
			c.add(label, marks, &linkAttr{href: href}, nil, true)
		case *ast.Image:
			c.fail(ConstructImage, t.Pos(), "")
			return
		case *east.TaskCheckBox:
			// In a paragraph, the list item's state (taskBox), not text;
			// goldmark also finds one starting a heading in an item
			// (`- # [x] a`), which stays text.
			if _, ok := parent.(*ast.Heading); ok {
				box := "[ ] "
				if t.IsChecked {
					box = "[x] "
				}
				c.add(box, marks, link, nil, true)
			}
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < t.Segments.Len(); i++ {
				seg := t.Segments.At(i)
				b.Write(seg.Value(c.source))
			}
			c.add(b.String(), marks, link, nil, true)
		default:
			c.walk(n, marks, link)
		}
	}
}

// link decodes and checks a link's destination and title, once for all the
// uses of a reference definition (their bytes are the definition's).
func (c *converter) link(t *ast.Link) *linkAttr {
	long := len(t.Destination)+len(t.Title) >= 64
	var key linkKey
	if long {
		key = linkKey{unsafe.SliceData(t.Destination), unsafe.SliceData(t.Title), len(t.Destination), len(t.Title)}
		if l, ok := c.links[key]; ok {
			return l
		}
	}
	href, _ := decodeText(t.Destination, nil)
	title, _ := decodeText(t.Title, nil)
	if !c.checkHref(href, t.Destination, t.Pos()) {
		return nil
	}
	l := &linkAttr{href: href, title: title}
	if long {
		if c.links == nil {
			c.links = map[linkKey]*linkAttr{}
		}
		c.links[key] = l
	}
	return l
}

// checkHref rejects unsafe schemes, looking at the destination decoded
// correctly and also as goldmark's HTML renderer decodes it.
func (c *converter) checkHref(href string, raw []byte, pos int) bool {
	scheme, inHref, bad := refusedScheme(href, raw)
	if !bad {
		return true
	}
	c.fail(ConstructScheme, pos, scheme)
	if e, ok := c.err.(*Error); ok && inHref && e.Construct == ConstructScheme {
		e.Hint = schemeHint(href, scheme)
	}
	return false
}

// refusedScheme returns the scheme a destination is refused for, read from
// href (decoded correctly; inHref) or, when that passes, from raw as
// goldmark's HTML renderer decodes it. (checkHref and the fast path's
// hrefSafe share it.)
func refusedScheme(href string, raw []byte) (scheme string, inHref, bad bool) {
	if scheme, bad := unsafeScheme(href); bad {
		return scheme, true, true
	}
	if !hasEscapeOrRef(raw) && href == string(raw) {
		// raw is what it reads as (no escape, no reference): checked.
		return "", false, false
	}
	alt := util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(raw)))
	scheme, bad = unsafeScheme(string(alt))
	return scheme, false, bad
}

// schemeHint says how to write a destination whose "scheme" is a host
// followed by a port (localhost:3000, example.com:8080/x): with http://.
func schemeHint(href, scheme string) string {
	i := strings.IndexByte(href, ':')
	if i < 0 {
		return ""
	}
	port := href[i+1:]
	if j := strings.IndexAny(port, "/?#"); j >= 0 {
		port = port[:j]
	}
	if port == "" || strings.Trim(port, "0123456789") != "" {
		return ""
	}
	lead := func(r rune) bool { return r <= ' ' }
	host := strings.TrimLeftFunc(href[:i], lead)
	if !strings.EqualFold(host, scheme) {
		return ""
	}
	return fmt.Sprintf("to link to a host and port, write the scheme: http://%s", strings.TrimLeftFunc(href, lead))
}

// unsafeScheme reports a destination whose scheme is not http, https or
// mailto, reading it as a browser would (ignoring leading controls and
// spaces, and tabs and newlines anywhere).
func unsafeScheme(href string) (string, bool) {
	i := 0
	for i < len(href) && href[i] <= ' ' {
		i++
	}
	// The scheme's characters, lowercased, as far as the longest allowed
	// one: every destination of a note is checked, and most are http,
	// https or mailto, which need no string built.
	var low [6]byte
	n, start := 0, i
	for ; i < len(href); i++ {
		ch := href[i]
		if ch == '\t' || ch == '\n' || ch == '\r' {
			continue
		}
		if ch == ':' {
			if n <= len(low) {
				if s := low[:n]; string(s) == "http" || string(s) == "https" || string(s) == "mailto" {
					return "", false
				}
			}
			return schemeName(href[start:i]), true
		}
		isAlpha := ch|0x20 >= 'a' && ch|0x20 <= 'z'
		if n == 0 && !isAlpha {
			return "", false
		}
		if !isAlpha && !(ch >= '0' && ch <= '9') && ch != '+' && ch != '-' && ch != '.' {
			return "", false
		}
		if n < len(low) {
			if isAlpha {
				ch |= 0x20
			}
			low[n] = ch
		}
		n++
	}
	return "", false
}

// schemeName is a scheme's characters (letters, digits, '+', '-', '.',
// and tabs and newlines, which a browser ignores) as unsafeScheme reports
// them: without the tabs and newlines, lowercased.
func schemeName(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '\t' || ch == '\n' || ch == '\r':
		case ch >= 'A' && ch <= 'Z':
			b = append(b, ch|0x20)
		default:
			b = append(b, ch)
		}
	}
	return string(b)
}

// decodeText resolves backslash escapes and character references in one
// pass, as CommonMark defines (and as goldmark's HTML writer does): a
// resolved escape is never read again as the start of a reference. It also
// returns the byte ranges of the result that came from an escape or a
// reference; such characters never take part in tags.
func decodeText(raw []byte, lits []litRange) (string, []litRange) {
	if !hasEscapeOrRef(raw) {
		return string(raw), lits
	}
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); {
		ch := raw[i]
		if ch == '\\' && i+1 < len(raw) && util.IsPunct(raw[i+1]) {
			start := b.Len()
			b.WriteByte(raw[i+1])
			lits = append(lits, litRange{start, b.Len()})
			i += 2
			continue
		}
		if ch == '&' {
			if s, n := charReference(raw[i:]); n > 0 {
				start := b.Len()
				b.WriteString(s)
				lits = append(lits, litRange{start, b.Len()})
				i += n
				continue
			}
		}
		if ch == 0 {
			b.WriteString("\uFFFD")
			i++
			continue
		}
		b.WriteByte(ch)
		i++
	}
	return b.String(), lits
}

func hasEscapeOrRef(raw []byte) bool {
	for _, ch := range raw {
		if ch == '\\' || ch == '&' || ch == 0 {
			return true
		}
	}
	return false
}

// charReference decodes a character reference at the start of s: &name; with
// an HTML5 entity name, &#digits; (up to 7) or &#xhex; (up to 6). It returns
// the characters and the length read, or 0.
func charReference(s []byte) (string, int) {
	if len(s) < 3 || s[0] != '&' {
		return "", 0
	}
	if s[1] == '#' {
		i := 2
		base := 10
		if i < len(s) && (s[i] == 'x' || s[i] == 'X') {
			base = 16
			i++
		}
		j := i
		for j < len(s) && (base == 10 && s[j] >= '0' && s[j] <= '9' || base == 16 && util.IsHexDecimal(s[j])) {
			j++
		}
		digits := j - i
		if digits == 0 || j >= len(s) || s[j] != ';' || (base == 10 && digits > 7) || (base == 16 && digits > 6) {
			return "", 0
		}
		v, _ := strconv.ParseUint(string(s[i:j]), base, 32)
		return string(util.ToValidRune(rune(v))), j + 1
	}
	j := 1
	for j < len(s) && util.IsAlphaNumeric(s[j]) {
		j++
	}
	if j == 1 || j >= len(s) || s[j] != ';' {
		return "", 0
	}
	e, ok := util.LookUpHTML5EntityByName(string(s[1:j]))
	if !ok {
		return "", 0
	}
	return string(e.Characters), j + 1
}

// scanTags splits tags and mentions out of the text items (not code, not
// links), following the rule in tags.go.
func (c *converter) scanTags() []item {
	if c.noSigil {
		return c.items
	}
	// One pass finds the first text holding a sigil (most blocks have
	// none and are returned as they are); the items before it are copied
	// as they are, and each text is searched for a sigil once.
	first, at := -1, -1
	for i := range c.items {
		if c.items[i].kind == itText {
			if k := indexSigil(c.items[i].text); k >= 0 {
				first, at = i, k
				break
			}
		}
	}
	if first < 0 {
		return c.items
	}
	out := append(c.scanned[:0], c.items[:first]...)
	defer func() { c.scanned = out[:0] }()
	prev := noPrev
	for i := range first {
		prev = itemLastRune(&c.items[i], prev)
	}
	for idx := first; idx < len(c.items); idx++ {
		it := c.items[idx]
		k := at // the first sigil's index in it.text, -1 when it has none
		if idx != first {
			k = -1
			if it.kind == itText && it.marks&mCode == 0 && it.link == nil {
				k = indexSigil(it.text)
			}
		}
		if it.kind != itText || it.marks&mCode != 0 || it.link != nil || k < 0 {
			out = append(out, it)
			prev = itemLastRune(&it, prev)
			continue
		}
		lits := c.lits[idx]
		literal := func(j int) bool {
			k := sort.Search(len(lits), func(k int) bool { return lits[k].to > j })
			return k < len(lits) && lits[k].from <= j
		}
		s := it.text
		start := 0
		p := prev
		for i := 0; i < len(s); {
			if i > 0 {
				k = indexSigil(s[i:])
			}
			if k < 0 {
				break
			}
			if k > 0 {
				p, _ = utf8.DecodeLastRuneInString(s[:i+k])
			}
			i += k
			if end, ok := scanTag(p, s, i, literal); ok {
				if i > start {
					out = append(out, item{kind: itText, text: s[start:i], marks: it.marks})
				}
				kind := itTag
				if s[i] == '@' {
					kind = itMention
				}
				out = append(out, item{kind: kind, text: s[i+1 : end], marks: it.marks})
				p, _ = utf8.DecodeLastRuneInString(s[:end])
				i, start = end, end
				continue
			}
			p = rune(s[i])
			i++
		}
		p, _ = utf8.DecodeLastRuneInString(s)
		if start < len(s) {
			out = append(out, item{kind: itText, text: s[start:], marks: it.marks})
		}
		prev = p
	}
	return out
}
