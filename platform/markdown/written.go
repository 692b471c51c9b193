package markdown

// writtenBlocks keeps what Render's canonicalisation wrote for each block
// holding inline content, for the block writer to use, keyed by the block's
// node in the canonical tree.
//
// Canonicalisation visits the blocks in document order, and the block writer
// reads them in that order too, so the written Markdown is kept as a list in
// that order and the writer reads it with a cursor, checking each entry's
// node: no map to build and look up per block. Where the two orders can
// differ (a tree that is not canonical, whose copies move nodes; a block
// written again) the list becomes a map by node, read as before. For the
// cursor to be right, a block written again replaces its entry (rewrite) or
// switches to the map, never adds a second entry. (A node can still have two
// entries when a document built in Go shares one slice between two places:
// each place then has its own entry, in the order the writer reads them.)
type writtenBlocks struct {
	list   []writtenBlock
	byNode map[*Node]string // nil while the list is in order
	next   int              // the writer's cursor in list
	// bytes of Markdown kept (a block written again counts twice: the
	// count only sizes Render's buffer)
	bytes int
	cap   int // bytes past which a capped render gives up (0: none)
}

// add counts bytes of kept Markdown.
func (w *writtenBlocks) add(n int) {
	w.bytes += n
	if w.cap > 0 && w.bytes > w.cap {
		panic(errRenderCap)
	}
}

type writtenBlock struct {
	n   *Node // nil until its place is known (see reserve)
	out string
}

// reserve keeps out at the next place in document order, for a block whose
// node is not known yet (canonBlocks learns whether it copies its list only
// at the end); place tells it.
func (w *writtenBlocks) reserve(out string) int {
	w.add(len(out) + 1)
	w.list = append(w.list, writtenBlock{out: out})
	return len(w.list) - 1
}

// place gives the node of a reserved entry.
func (w *writtenBlocks) place(slot int, n *Node) {
	if w.byNode != nil {
		w.byNode[n] = w.list[slot].out
		return
	}
	w.list[slot].n = n
}

// set keeps out for n, written now, in document order.
func (w *writtenBlocks) set(n *Node, out string) {
	w.add(len(out) + 1)
	if w.byNode != nil {
		w.byNode[n] = out
		return
	}
	w.list = append(w.list, writtenBlock{n: n, out: out})
}

// rewrite replaces the Markdown of n, kept at or after list index from (a
// callout's first paragraph, written again to continue the label's line).
func (w *writtenBlocks) rewrite(from int, n *Node, out string) {
	w.add(len(out) + 1)
	if w.byNode == nil && from < len(w.list) && w.list[from].n == n {
		w.list[from].out = out
		return
	}
	w.unorder()
	w.byNode[n] = out
}

// moved carries the written Markdown of blocks over to their copies.
func (w *writtenBlocks) moved(from, to []Node) {
	w.unorder()
	for i := range from {
		if out, ok := w.byNode[&from[i]]; ok {
			w.byNode[&to[i]] = out
		}
	}
}

// unorder switches to the map.
func (w *writtenBlocks) unorder() {
	if w.byNode != nil {
		return
	}
	w.byNode = make(map[*Node]string, len(w.list))
	for _, e := range w.list {
		if e.n != nil {
			w.byNode[e.n] = e.out
		}
	}
}

// lookup returns the Markdown written for n, reading the list in order
// while its entries are the writer's blocks.
func (w *writtenBlocks) lookup(n *Node) (string, bool) {
	if w.byNode == nil {
		if w.next < len(w.list) && w.list[w.next].n == n {
			w.next++
			return w.list[w.next-1].out, true
		}
		w.unorder()
	}
	out, ok := w.byNode[n]
	return out, ok
}

// duplicate returns a node with two entries in the list. Tests check that
// there is none (their documents share no slices): a second entry for one
// place would leave a stale first one for the cursor to read.
func (w *writtenBlocks) duplicate() *Node {
	seen := make(map[*Node]bool, len(w.list))
	for _, e := range w.list {
		if e.n == nil {
			continue
		}
		if seen[e.n] {
			return e.n
		}
		seen[e.n] = true
	}
	return nil
}
