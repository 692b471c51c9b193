package markdown

// nodeSlab hands out node slices carved from larger blocks. A document's
// nodes are made together and live together, so one allocation for many
// slices costs less (fewer allocations for the collector to track) than one
// per paragraph, list or row. Blocks start small, so that a short note does
// not pay for a large block, and double up to maxSlab nodes. A nil slab
// allocates each slice on its own.
type nodeSlab struct {
	free []Node
	next int // size of the next block
}

const (
	minSlab = 16
	maxSlab = 512
)

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
		s.next = min(max(s.next*2, minSlab), maxSlab)
		s.free = make([]Node, max(s.next, n))
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
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
