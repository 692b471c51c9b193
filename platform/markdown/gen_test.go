package markdown

// A generator of random schema-valid documents, driven by a byte string so
// that the fuzzer can steer it. Text is drawn from the characters that need
// escaping, digits, letters, accented letters, spaces and newlines.

var trickyAlphabet = []string{
	"*", "_", "~", "`", "[", "]", "#", "@", "|", "\\", "<", ">", "&", "!", "-", "+", "=", ".", ":", "(", ")",
	"0", "1", "7", "a", "b", "x", "Z", "é", "ü", "Å", "ñ", " ", " ", " ", "\n",
}

var (
	genTagNames     = []string{"tag", "a-b", "x_y", "Proj2", "café", "_u", "a_", "n1", "q"}
	genMentionNames = []string{"bob", "a.b", "j_d", "x-y", "Zoë", "m1"}
	genHrefs        = []string{"http://x.com", "https://e.org/a_(b)", "mailto:a@b.c", "/rel", "#frag", "a b", "",
		"http://x.com/a*b_c", "(", "<x>", "http://a|b", "https://x.com", "a&amp;b", "q\\"}
	genTitles    = []string{"", "", "t", "a \"q\"", "x\\y"}
	genLanguages = []string{"", "go", "a`b", "x y", "&amp;", "\\", "~~~"}
)

type gen struct {
	data  []byte
	pos   int
	depth int
}

func (g *gen) byte() byte {
	if g.pos >= len(g.data) {
		return 0
	}
	b := g.data[g.pos]
	g.pos++
	return b
}

func (g *gen) intn(n int) int { return int(g.byte()) % n }

func (g *gen) pick(list []string) string { return list[g.intn(len(list))] }

func genDoc(data []byte) Doc {
	g := &gen{data: data}
	return Doc{Content: g.blocks(1 + g.intn(5))}
}

func (g *gen) blocks(n int) []Node {
	var out []Node
	for i := 0; i < n; i++ {
		out = append(out, g.block())
	}
	return out
}

func (g *gen) block() Node {
	k := g.intn(12)
	if g.depth >= 4 && k >= 3 && k <= 6 {
		k = 0
	}
	switch k {
	case 1:
		return Node{Type: TypeHeading, Attrs: Attrs{Level: uint8(1 + g.intn(3))}, Content: g.inline()}
	case 2:
		return Node{Type: TypeCodeBlock, Attrs: Attrs{Language: g.pick(genLanguages)}, Text: g.text(12)}
	case 3, 4:
		g.depth++
		defer func() { g.depth-- }()
		l := Node{Type: TypeBulletList, Attrs: Attrs{Tight: g.intn(2) == 0}}
		if k == 4 {
			l.Type = TypeOrderedList
			l.Attrs.Start = []int32{1, 0, 7, 999999999}[g.intn(4)]
		}
		for i := 0; i <= g.intn(3); i++ {
			// A third of the items are task items, checked or not
			// (Canonical drops the box of an item not starting with a
			// paragraph).
			task := TaskNone
			if g.intn(3) == 0 {
				task = TaskState(1 + g.intn(2))
			}
			l.Content = append(l.Content, Node{Type: TypeListItem, Attrs: Attrs{Task: task}, Content: g.blocks(g.intn(3))})
		}
		return l
	case 5:
		g.depth++
		defer func() { g.depth-- }()
		return Node{Type: TypeBlockquote, Content: g.blocks(g.intn(3))}
	case 6:
		g.depth++
		defer func() { g.depth-- }()
		kind := CalloutWhy
		if g.intn(2) == 1 {
			kind = CalloutDecision
		}
		return Node{Type: TypeCallout, Attrs: Attrs{Label: kind}, Content: g.blocks(g.intn(3))}
	case 7:
		return Node{Type: TypeHorizontalRule}
	case 8:
		cols := 1 + g.intn(3)
		t := Node{Type: TypeTable}
		for r := 0; r <= g.intn(3); r++ {
			row := Node{Type: TypeTableRow}
			ct := TypeTableCell
			if r == 0 {
				ct = TypeTableHeader
			}
			for c := 0; c < cols; c++ {
				row.Content = append(row.Content, Node{Type: ct, Content: []Node{{Type: TypeParagraph, Content: g.inline()}}})
			}
			t.Content = append(t.Content, row)
		}
		return t
	}
	return Node{Type: TypeParagraph, Content: g.inline()}
}

func (g *gen) text(max int) string {
	n := 1 + g.intn(max)
	s := ""
	for i := 0; i < n; i++ {
		s += g.pick(trickyAlphabet)
	}
	return s
}

func (g *gen) marks() []Mark {
	bits := g.byte()
	var ms []Mark
	for i, t := range []MarkType{MarkBold, MarkItalic, MarkStrike, MarkUnderline} {
		if bits&(1<<i) != 0 && g.intn(2) == 0 {
			ms = append(ms, Mark{Type: t})
		}
	}
	if bits&0x30 == 0x30 {
		ms = append(ms, Mark{Type: MarkCode})
	}
	if bits&0xC0 == 0xC0 {
		ms = append(ms, Mark{Type: MarkLink, Href: g.pick(genHrefs), Title: g.pick(genTitles)})
	}
	return ms
}

func (g *gen) inline() []Node {
	n := 1 + g.intn(6)
	var out []Node
	for i := 0; i < n; i++ {
		switch g.intn(10) {
		case 1:
			out = append(out, Node{Type: TypeTag, Text: g.pick(genTagNames), Marks: g.marks()})
		case 2:
			out = append(out, Node{Type: TypeMention, Text: g.pick(genMentionNames), Marks: g.marks()})
		case 3:
			out = append(out, Node{Type: TypeHardBreak})
		default:
			out = append(out, Node{Type: TypeText, Text: g.text(8), Marks: g.marks()})
		}
	}
	return out
}
