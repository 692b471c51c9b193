package markdown

import (
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Linear inline parsing. goldmark 1.8.7 reads emphasis and links as
// CommonMark says, but some of its steps rescan the rest of a paragraph:
// delimiter processing looks back over every earlier delimiter for each
// closer, link destinations are rescanned to the end of the line for each
// "](", and a "]" walks every node after its "[". A 100 KB paragraph of
// "[a](" then costs seconds. This file replaces those parsers with the same
// rules, made linear:
//
//   - emphasis and strikethrough delimiters are collected in the tree and
//     processed when the block closes, with CommonMark's openers_bottom;
//   - link openers form a stack; a link deactivates the "[" below it (links
//     cannot nest), instead of searching the label for links;
//   - scans for a title's or a reference label's closer, and for a pointy
//     destination's '>', are remembered, so overlapping attempts do not
//     rescan;
//   - a raw destination may nest parentheses 32 deep (CommonMark allows a
//     limit; cmark uses the same), which bounds its scan;
//   - the text of an inline link has no length limit (CommonMark has none;
//     goldmark applies the 999-character limit of reference labels to it).

// starDelimiters and underscoreDelimiters follow CommonMark's emphasis rules;
// only the node made by a double underscore differs.
type starDelimiters struct{}

func (starDelimiters) IsDelimiter(b byte) bool { return b == '*' }

func (starDelimiters) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char
}

func (starDelimiters) OnMatch(consumes int) ast.Node { return ast.NewEmphasis(consumes) }

type underscoreDelimiters struct{}

func (underscoreDelimiters) IsDelimiter(b byte) bool { return b == '_' }

func (underscoreDelimiters) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char
}

func (underscoreDelimiters) OnMatch(consumes int) ast.Node {
	if consumes == 2 {
		return &underlineNode{}
	}
	return ast.NewEmphasis(1)
}

type tildeDelimiters struct{}

func (tildeDelimiters) IsDelimiter(b byte) bool { return b == '~' }

func (tildeDelimiters) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char
}

func (tildeDelimiters) OnMatch(int) ast.Node { return east.NewStrikethrough() }

// emphasisParser reads runs of '*', '_' and '~' into delimiter nodes, left in
// the tree until the block closes.
type emphasisParser struct{}

func (emphasisParser) Trigger() []byte { return []byte{'*', '_', '~'} }

func (emphasisParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, segment := block.PeekLine()
	before := block.PrecendingCharacter()
	var proc parser.DelimiterProcessor
	switch line[0] {
	case '*':
		proc = starDelimiters{}
	case '_':
		proc = underscoreDelimiters{}
	default:
		proc = tildeDelimiters{}
	}
	d := parser.ScanDelimiter(line, before, 1, proc)
	if d == nil {
		return nil
	}
	if d.Char == '~' && (d.OriginalLength > 2 || before == '~') {
		return nil // GFM strikethrough: one or two tildes
	}
	d.Segment = segment.WithStop(segment.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	return d
}

// CloseBlock processes the delimiters of the block, inside links first.
// goldmark calls it for every block, containers included, each after its
// children: only a block whose children are inline holds delimiters (a
// container's were processed with its own blocks), so the others are not
// walked again.
func (emphasisParser) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	if first := parent.FirstChild(); first != nil && first.Type() == ast.TypeInline {
		a, _ := pc.Get(dlistKey).(*dlistArena)
		processEmphasis(parent, a)
		a.reset()
	}
}

// dlistKey finds Parse's dlistArena in goldmark's parser context.
var dlistKey = parser.NewContextKey()

// dlistArena lends processEmphasis its lists, one block after another, from
// one buffer for the whole parse. A nil arena allocates each list.
type dlistArena struct {
	buf  []dlist
	used int
}

func (a *dlistArena) take(n int) []dlist {
	if a == nil {
		return make([]dlist, n)
	}
	if a.used+n > len(a.buf) {
		// The lists taken so far stay in the old buffer.
		a.buf = make([]dlist, max(2*len(a.buf), n, 64))
		a.used = 0
	}
	out := a.buf[a.used : a.used+n : a.used+n]
	a.used += n
	return out
}

// reset frees the lists of a block, and lets go of the goldmark nodes they
// point to.
func (a *dlistArena) reset() {
	if a == nil {
		return
	}
	clear(a.buf[:a.used])
	a.used = 0
}

// dlist is a delimiter in the processing list.
type dlist struct {
	d          *parser.Delimiter
	prev, next *dlist
	index      int // position in source order
}

func processEmphasis(parent ast.Node, a *dlistArena) {
	var first, last *dlist
	count := 0
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
		if _, ok := c.(*parser.Delimiter); ok {
			count++
		}
	}
	entries := a.take(count) // one list for the block's delimiters
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
		if d, ok := c.(*parser.Delimiter); ok {
			e := &entries[0]
			entries = entries[1:]
			*e = dlist{d: d, prev: last}
			if last != nil {
				e.index = last.index + 1
			}
			if last != nil {
				last.next = e
			} else {
				first = e
			}
			last = e
		} else if c.HasChildren() {
			processEmphasis(c, a)
		}
	}
	if first == nil {
		return
	}
	remove := func(e *dlist) {
		if e.prev != nil {
			e.prev.next = e.next
		} else {
			first = e.next
		}
		if e.next != nil {
			e.next.prev = e.prev
		}
	}
	// openers_bottom: for each kind of closer (character, whether it can
	// open too, length mod 3; bottomIndex), the index at or below which no
	// opener can match it; -1 when unknown.
	var created []ast.Node // the nodes matches made, in the order made
	var bottoms [3 * 2 * 3]int
	for i := range bottoms {
		bottoms[i] = -1
	}
	for closer := first; closer != nil; {
		c := closer.d
		if !c.CanClose {
			closer = closer.next
			continue
		}
		key := bottomIndex(c.Char, c.CanOpen, c.OriginalLength)
		var opener *dlist
		stop := bottoms[key]
		for o := closer.prev; o != nil && o.index > stop; o = o.prev {
			od := o.d
			if !od.CanOpen || !od.Processor.CanOpenCloser(od, c) {
				continue
			}
			if (od.CanClose || c.CanOpen) && (od.OriginalLength+c.OriginalLength)%3 == 0 && c.OriginalLength%3 != 0 {
				continue // the rule of 3
			}
			opener = o
			break
		}
		if opener == nil {
			bottoms[key] = closer.index - 1
			next := closer.next
			if !c.CanOpen {
				remove(closer)
			}
			closer = next
			continue
		}
		od := opener.d
		consume := 1
		if od.Length >= 2 && c.Length >= 2 {
			consume = 2
		}
		od.ConsumeCharacters(consume)
		c.ConsumeCharacters(consume)
		node := od.Processor.OnMatch(consume)
		node.SetPos(od.Segment.Start)
		created = append(created, node)
		for n := od.NextSibling(); n != nil && n != ast.Node(c); {
			next := n.NextSibling()
			parent.RemoveChild(parent, n)
			node.AppendChild(node, n)
			n = next
		}
		parent.InsertAfter(parent, od, node)
		for e := opener.next; e != closer; e = e.next {
			remove(e)
		}
		if od.Length == 0 {
			remove(opener)
			parent.RemoveChild(parent, od)
		}
		if c.Length == 0 {
			next := closer.next
			remove(closer)
			parent.RemoveChild(parent, c)
			closer = next
		}
	}
	// What is left of the delimiters is text: those of the block and those
	// a match moved into its new node (they lay between its opener and
	// closer).
	textifyDelimiters(parent)
	for _, n := range created {
		textifyDelimiters(n)
	}
}

// textifyDelimiters turns the delimiters among parent's children into text.
// What is left of a run that matched stays apart as literal text: it never
// joins a tag or mention name (no Markdown could write it back inside one).
func textifyDelimiters(parent ast.Node) {
	for n := parent.FirstChild(); n != nil; {
		next := n.NextSibling()
		if d, ok := n.(*parser.Delimiter); ok {
			if d.Length != d.OriginalLength {
				parent.ReplaceChild(parent, d, &literalNode{seg: d.Segment})
			} else {
				ast.MergeOrReplaceTextSegment(parent, d, d.Segment)
			}
		}
		n = next
	}
}

// literalNode is text that takes no part in tags: the rest of a delimiter
// run that matched.
type literalNode struct {
	ast.BaseInline
	seg text.Segment
}

var kindLiteral = ast.NewNodeKind("LiteralText")

func (n *literalNode) Kind() ast.NodeKind { return kindLiteral }

func (n *literalNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, nil, nil)
}

// bracketNode is an unresolved "[" or "![" in the tree.
type bracketNode struct {
	ast.BaseInline
	seg   text.Segment
	image bool
	index int // position in the opener stack
}

var kindBracket = ast.NewNodeKind("Bracket")

func (n *bracketNode) Kind() ast.NodeKind { return kindBracket }

func (n *bracketNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, nil, nil)
}

// linkState is the link parser's state for the block being parsed.
type linkState struct {
	openers       []*bracketNode
	inactiveBelow int // "[" openers below this index are inactive
	gt            scanMemo
	closures      map[[2]byte]*scanMemo
}

// scanMemo remembers one scan: started at from, it ended at end (absolute
// offsets) with result ok. A later scan starting in [from, end] on the same
// terms ends the same way.
type scanMemo struct {
	valid     bool
	from, end int
	ok        bool
	line      int
	after     text.Segment // reader position after the closer
	segs      []text.Segment
}

var linkStateKey = parser.NewContextKey()

func linkStateOf(pc parser.Context) *linkState {
	if v, ok := pc.Get(linkStateKey).(*linkState); ok {
		return v
	}
	st := &linkState{closures: map[[2]byte]*scanMemo{}}
	pc.Set(linkStateKey, st)
	return st
}

type linkParser struct{}

func (linkParser) Trigger() []byte { return []byte{'!', '[', ']'} }

func (p linkParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, segment := block.PeekLine()
	st := linkStateOf(pc)
	switch line[0] {
	case '!':
		if len(line) < 2 || line[1] != '[' {
			return nil
		}
		n := &bracketNode{seg: text.NewSegment(segment.Start, segment.Start+2), image: true, index: len(st.openers)}
		st.openers = append(st.openers, n)
		block.Advance(2)
		return n
	case '[':
		n := &bracketNode{seg: text.NewSegment(segment.Start, segment.Start+1), index: len(st.openers)}
		st.openers = append(st.openers, n)
		block.Advance(1)
		return n
	}
	// ']'
	if len(st.openers) == 0 {
		return nil
	}
	o := st.openers[len(st.openers)-1]
	st.openers = st.openers[:len(st.openers)-1]
	inactive := !o.image && o.index < st.inactiveBelow
	st.inactiveBelow = min(st.inactiveBelow, len(st.openers))
	if inactive {
		bracketToText(o)
		return nil
	}
	block.Advance(1)
	l, pos := block.Position()
	var link *ast.Link
	switch block.Peek() {
	case '(':
		link = p.inlineLink(block, st)
	case '[':
		var found bool
		link, found = p.referenceLink(parent, block, pc, st, o, segment)
		if link == nil && found {
			bracketToText(o)
			return nil
		}
	}
	if link == nil {
		block.SetPosition(l, pos)
		if segment.Start-o.seg.Stop > 999*8 {
			bracketToText(o)
			return nil
		}
		label := blockValue(parent, l, text.NewSegment(o.seg.Stop, segment.Start), block.Source())
		if len(label) > 999 {
			bracketToText(o)
			return nil
		}
		key := util.ToLinkReference(label)
		ref, ok := pc.Reference(key)
		if !ok {
			bracketToText(o)
			return nil
		}
		markUsed(pc, key)
		link = ast.NewLink()
		link.Title = ref.Title()
		link.Destination = ref.Destination()
	}
	for c := o.NextSibling(); c != nil; {
		next := c.NextSibling()
		parent.RemoveChild(parent, c)
		link.AppendChild(link, c)
		c = next
	}
	parent.RemoveChild(parent, o)
	var n ast.Node = link
	if o.image {
		n = ast.NewImage(link)
	} else {
		st.inactiveBelow = len(st.openers)
	}
	n.SetPos(o.seg.Start)
	return n
}

func bracketToText(o *bracketNode) {
	if p := o.Parent(); p != nil {
		ast.MergeOrReplaceTextSegment(p, o, o.seg)
	}
}

// usedRefsKey finds, in the parser context, the labels (normalised) of the
// definitions that some link used: a definition nothing uses is kept as a
// link of its own (converter.definitions).
var usedRefsKey = parser.NewContextKey()

type usedRefs map[string]struct{}

func markUsed(pc parser.Context, key string) {
	used, _ := pc.Get(usedRefsKey).(usedRefs)
	if used == nil {
		used = usedRefs{}
		pc.Set(usedRefsKey, used)
	}
	used[key] = struct{}{}
}

// CloseBlock turns the remaining openers into text.
func (linkParser) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	if st, ok := pc.Get(linkStateKey).(*linkState); ok {
		for _, o := range st.openers {
			bracketToText(o)
		}
		pc.Set(linkStateKey, nil)
	}
}

// blockValue returns the text of seg within the block's lines (without
// container prefixes), looking back from line l only as far as needed.
func blockValue(block ast.Node, l int, seg text.Segment, source []byte) []byte {
	lines := block.Lines()
	if l >= lines.Len() {
		l = lines.Len() - 1
	}
	for l > 0 && lines.At(l).Start > seg.Start {
		l--
	}
	var out []byte
	for ; l < lines.Len(); l++ {
		s := lines.At(l)
		from := max(s.Start, seg.Start)
		to := min(s.Stop, seg.Stop)
		if from < to {
			out = append(out, source[from:to]...)
		}
		if s.Stop >= seg.Stop {
			break
		}
	}
	return out
}

// inlineLink reads "(destination "title")" after "]", as goldmark does.
func (p linkParser) inlineLink(block text.Reader, st *linkState) *ast.Link {
	block.Advance(1) // '('
	block.SkipSpaces()
	var dest, title []byte
	if block.Peek() == ')' {
		block.Advance(1)
	} else {
		var ok bool
		if dest, ok = p.destination(block, st); !ok {
			return nil
		}
		block.SkipSpaces()
		if block.Peek() == ')' {
			block.Advance(1)
		} else {
			opener := block.Peek()
			closer := opener
			switch opener {
			case '"', '\'':
			case '(':
				closer = ')'
			default:
				return nil
			}
			block.Advance(1)
			segs, ok := p.findClosure(block, st, opener, closer, true)
			if !ok {
				return nil
			}
			block.SkipSpaces()
			if block.Peek() != ')' {
				return nil
			}
			block.Advance(1)
			title = segmentsValue(segs, block.Source())
		}
	}
	link := ast.NewLink()
	link.Destination = dest
	link.Title = title
	return link
}

func segmentsValue(segs []text.Segment, source []byte) []byte {
	if len(segs) == 1 {
		return segs[0].Value(source)
	}
	var out []byte
	for i := range segs {
		out = append(out, segs[i].Value(source)...)
	}
	return out
}

const maxDestinationParens = 32

// destination reads a link destination: <...> on one line, or raw text up
// to a space or an unbalanced ')'.
func (linkParser) destination(block text.Reader, st *linkState) ([]byte, bool) {
	line, seg := block.PeekLine()
	if block.Peek() == '<' {
		// Find the first unescaped '>' on the line, remembering the scan.
		from := seg.Start + 1
		m := &st.gt
		if !(m.valid && from >= m.from && from <= m.end && m.line == lineStartOf(seg)) {
			i := 1
			found := -1
			for i < len(line) {
				c := line[i]
				if c == '\\' && i < len(line)-1 && util.IsPunct(line[i+1]) {
					i += 2
					continue
				}
				if c == '>' {
					found = i
					break
				}
				i++
			}
			*m = scanMemo{valid: true, from: from, line: lineStartOf(seg)}
			if found >= 0 {
				m.end, m.ok = seg.Start+found, true
			} else {
				m.end = seg.Start + len(line)
			}
		}
		if !m.ok {
			return nil, false
		}
		end := m.end - seg.Start
		advance(block, end+1)
		return line[1:end], true
	}
	i, ok := rawDestination(line)
	if !ok {
		return nil, false
	}
	advance(block, i)
	return line[:i], i != 0
}

// rawDestination scans a raw link destination at the start of s: up to a
// space or an unbalanced ')', escapes skipped, parentheses nested at most
// maxDestinationParens deep. It returns its length, or the offset of the
// '(' too deep and false. (The linkParser and the fast path share it.)
func rawDestination(s []byte) (int, bool) {
	opened := 0
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '\\' && i < len(s)-1 && util.IsPunct(s[i+1]) {
			i += 2
			continue
		}
		if c == '(' {
			opened++
			if opened > maxDestinationParens {
				return i, false
			}
		} else if c == ')' {
			opened--
			if opened < 0 {
				break
			}
		} else if util.IsSpace(c) {
			break
		}
		i++
	}
	return i, true
}

// advance moves the reader n bytes along the current line. goldmark's
// Advance steps byte by byte when n reaches the end of the line; two steps
// keep it constant-time.
func advance(block text.Reader, n int) {
	if n > 1 {
		block.Advance(n - 1)
		n = 1
	}
	block.Advance(n)
}

// lineStartOf identifies the line of a segment by its stop offset.
func lineStartOf(seg text.Segment) int { return seg.Stop }

// findClosure finds the closer of a title or a reference label like
// goldmark's FindClosure without nesting: it fails at an unescaped opener.
// Scans are remembered per (opener, closer); an attempt starting inside a
// remembered scan ends like it without rescanning.
func (linkParser) findClosure(block text.Reader, st *linkState, opener, closer byte, newline bool) ([]text.Segment, bool) {
	_, seg := block.PeekLine()
	from := seg.Start
	key := [2]byte{opener, closer}
	m := st.closures[key]
	if m != nil && m.valid && from >= m.from && from <= m.end {
		if !m.ok {
			return nil, false
		}
		// Rebuild the segments from this start.
		var segs []text.Segment
		for _, s := range m.segs {
			if s.Stop < from || (s.Stop == from && s.Start < from) {
				continue
			}
			if s.Start < from {
				s = s.WithStart(from)
			}
			segs = append(segs, s)
		}
		block.SetPosition(m.line, m.after)
		return segs, true
	}
	segs, ok := block.FindClosure(opener, closer, text.FindClosureOptions{Newline: newline, Advance: true})
	line, after := block.Position()
	if m == nil {
		m = &scanMemo{}
		st.closures[key] = m
	}
	*m = scanMemo{valid: true, from: from, ok: ok, line: line, after: after}
	if ok {
		m.segs = segs.Sliced(0, segs.Len())
		m.end = after.Start - 1
	} else {
		m.end = after.Start
	}
	return m.segs, ok
}

// referenceLink reads "[label]" or "[]" after "]". found reports that a
// label was there, defined or not (then no shortcut is tried).
func (p linkParser) referenceLink(parent ast.Node, block text.Reader, pc parser.Context, st *linkState, o *bracketNode, closeSeg text.Segment) (*ast.Link, bool) {
	_, orgpos := block.Position()
	block.Advance(1) // '['
	segs, found := p.findClosure(block, st, '[', ']', true)
	if !found {
		return nil, false
	}
	var label []byte
	if len(segs) == 1 {
		label = segs[0].Value(block.Source())
	} else {
		label = segmentsValue(segs, block.Source())
	}
	if util.IsBlank(label) {
		l, _ := block.Position()
		label = blockValue(parent, l, text.NewSegment(o.seg.Stop, orgpos.Start-1), block.Source())
	}
	if len(label) > 999 {
		return nil, true
	}
	key := util.ToLinkReference(label)
	ref, ok := pc.Reference(key)
	if !ok {
		return nil, true
	}
	markUsed(pc, key)
	link := ast.NewLink()
	link.Title = ref.Title()
	link.Destination = ref.Destination()
	return link, true
}
