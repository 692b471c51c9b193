package markdown

import "unsafe"

// nodeSlab hands out node slices carved from larger blocks. A document's
// nodes are made together and live together, so one allocation for many
// slices costs less (fewer allocations for the collector to track) than one
// per paragraph, list or row. A nil slab allocates each slice on its own.
//
// Without a size (Decode, Canonical), blocks start small, so that a short
// note does not pay for a large block, and double up to maxSlab nodes. Parse
// sizes its blocks from the input instead (sized): the doubling left most
// of the last block unused on a short note (a 5 KB note used 401 of the 544
// nodes allocated, 14 KB unused of 131 KB allocated per write). A block
// there is the nodes the rest of the input will need at the density of
// nodes per source byte so far (at the start, a guess from the input's
// length), so that the last block ends close to the document's end.
type nodeSlab struct {
	free []Node
	next int // size of the next block (unsized)

	size int // the source's length, 0 when unsized
	at   int // how far into the source the conversion is (see sized)
	used int // nodes handed out from blocks
}

const (
	minSlab = 16
	maxSlab = 320
	// A sized block holds at most maxSized nodes (96 KB), so that a wrong
	// estimate cannot leave much more unused than an unsized block does.
	maxSized = 1024
	// The first sized block, before any density is known: a node per
	// firstDensity bytes of the source. Realistic notes (lists, tables,
	// tags, marks) make a node per 12 to 13 bytes, prose far fewer; a low
	// first guess costs one more block, a high one unused room.
	firstDensity = 24
)

// sized sizes the slab's blocks from a source of size bytes (Parse).
func (s *nodeSlab) sized(size int) { s.size = size }

// make returns n zero nodes whose capacity is exactly n, so that an append to
// the slice never writes into a neighbour's nodes.
func (s *nodeSlab) make(n int) []Node {
	if s == nil || n > maxSlab/4 {
		return make([]Node, n)
	}
	if n > len(s.free) {
		if len(s.free) >= 2*minSlab {
			// Keep a block's good remainder for the smaller requests
			// that follow, rather than leave it unused.
			return make([]Node, n)
		}
		s.free = make([]Node, max(s.block(), n))
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	s.used += n
	return out
}

// block is the size of the next block.
func (s *nodeSlab) block() int {
	if s.size == 0 {
		s.next = min(max(s.next*2, minSlab), maxSlab)
		return s.next
	}
	var need int
	if s.at <= 0 || s.used == 0 {
		need = s.size / firstDensity
	} else {
		// The nodes used so far per byte converted, over the rest of
		// the source (too few costs one more small block).
		need = s.used * (s.size - s.at) / s.at
	}
	return min(max(need, minSlab), maxSized)
}

// nodesFromItems builds inline nodes from canonical items.
func (s *nodeSlab) nodesFromItems(items []item) []Node {
	if len(items) == 0 {
		return nil
	}
	nodes := s.make(len(items))
	for i := range items {
		// The nodes are zero: only the fields in use are written (writing
		// whole nodes costs the collector's write barrier on every field).
		it := &items[i]
		n := &nodes[i]
		switch it.kind {
		case itText:
			n.Type = TypeText
		case itTag:
			n.Type = TypeTag
		case itMention:
			n.Type = TypeMention
		case itBreak:
			n.Type = TypeHardBreak
			continue
		}
		n.Text = it.text
		if it.marks != 0 || it.link != nil {
			n.Marks = marksOf(it)
		}
	}
	return nodes
}

// textArena hands out strings carved from larger byte blocks, for the many
// short texts of one document (Parse's text nodes that are not pieces of the
// input, Render's written blocks): one allocation for many strings, and no
// pointers for the collector to scan. Blocks start small and double up to
// maxText bytes; a string is never written again once handed out, and a
// block stays alive as long as one of its strings does (the document's, or
// the render's). A nil arena allocates each string on its own.
type textArena struct {
	free []byte // the current block's unused bytes (len 0)
	next int    // size of the next block
}

const (
	minText = 1 << 10
	maxText = 1 << 15
)

// take returns an empty slice with room for n bytes, to append them to and
// pass to done.
func (a *textArena) take(n int) []byte {
	if a == nil || n > maxText/4 {
		return make([]byte, 0, n)
	}
	if n > cap(a.free) {
		a.next = min(max(a.next*2, minText), maxText)
		a.free = make([]byte, 0, max(a.next, n))
	}
	return a.free[:0:n]
}

// done makes the bytes written into take's slice a string, and moves the
// arena past them.
func (a *textArena) done(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if a != nil && cap(a.free) > 0 && unsafe.SliceData(b) == unsafe.SliceData(a.free) {
		a.free = a.free[len(b):len(b)]
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// copy returns b as a string of the arena.
func (a *textArena) copy(b []byte) string {
	return a.done(append(a.take(len(b)), b...))
}

// concat returns the parts joined, as a string of the arena.
func (a *textArena) concat(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	b := a.take(n)
	for _, p := range parts {
		b = append(b, p...)
	}
	return a.done(b)
}
