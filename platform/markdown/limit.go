package markdown

import (
	"encoding/binary"
	"fmt"
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

// MaxLength is the most characters (code points) the canonical Markdown of a
// document may have: Render's output without its final newline, which is
// what the API stores and returns (CONTRACT.md section 1: note content and
// task notes at most 100,000 characters). The service's one limit.
const MaxLength = 100_000

// maxStored bounds the characters of a stored document: its text, tag and
// mention names, and link destinations and titles, a link's counted once per
// text node it holds (the stored JSON repeats a link mark on every node,
// while Markdown writes it once). Twice MaxLength: only a long destination
// on a link whose text is cut into many differently formatted pieces gets
// near it.
const maxStored = 2 * MaxLength

// The output of Parse can be much longer than its input: every use of a
// reference link writes the definition's destination and title again, and a
// table row is padded to the header's number of columns. Parse counts, while
// it converts, characters that the canonical Markdown certainly holds (a
// lower bound: text, names, a link's destination and title once per run of
// text it covers, a table's pipes and delimiter row) and the characters of
// the stored document, and stops with a ConstructLength error as soon as
// either passes its limit, before building more. Its cost stays linear in
// the input, whatever the input expands to. Escapes, list markers and
// indentation also lengthen the output, by a bounded factor; ParseCanonical
// then writes the document, giving up as soon as the output passes the
// limit, and counts it exactly.
type budget struct {
	markdown int // characters the canonical Markdown certainly holds
	stored   int // characters of the stored document (see maxStored)
	// overAt is 1 + the source offset of a table that would pass the
	// limit, found while goldmark parses (0: none)
	overAt int
	// cells the table pre-count let goldmark build (checked in tests)
	cells int
	// widened: a table row had more cells than the header (tests)
	widened bool
}

// Reasons of a ConstructLength error found while converting.
const (
	reasonText  = ""
	reasonLink  = "each use of a reference link writes its destination and title again"
	reasonTable = "every table row writes a pipe and spaces around each cell, and rows are padded to the header's number of columns"
)

// over records that a limit is passed, at source offset pos.
func (c *converter) over(pos int, reason string) {
	if c.err != nil {
		return
	}
	b := &c.budget
	var msg string
	if b.stored > maxStored {
		msg = fmt.Sprintf("the stored document would hold more than %s characters (at least %s): a link's destination and title are stored again with each differently formatted piece of its text",
			thousands(maxStored), thousands(b.stored))
	} else {
		msg = fmt.Sprintf("would be more than %s characters once stored as canonical Markdown (at least %s)", thousands(MaxLength), thousands(b.markdown))
		if reason != "" {
			msg += ": " + reason
		}
	}
	c.err = &Error{Construct: ConstructLength, Line: c.lineOf(pos), Detail: msg}
}

// overBudget reports whether a limit is passed with md and st characters
// more than counted.
func (b *budget) overBudget(md, st int) bool {
	return b.markdown+md > MaxLength || b.stored+st > maxStored
}

// countItems adds a block's canonical inline items to the budget; pos is the
// block's source offset, for the error. The work is proportional to what it
// counts, and it stops once a limit is passed, so a reference link used many
// times costs its destination's length only until then.
func (c *converter) countItems(items []item, pos int) {
	if c.err != nil {
		return
	}
	md, st := 0, 0
	// A run of items under one link is written "[text](destination
	// "title")", or "<destination>" when the text is the destination: at
	// least the longer of its text and its destination and title.
	var link *linkAttr
	runText, runLink := 0, 0
	reason := reasonText
	for i := range items {
		it := &items[i]
		if it.kind == itBreak {
			md++ // a backslash (and a line break)
			continue
		}
		if !sameLink(link, it.link) {
			md += max(runText, runLink)
			runText, runLink = 0, 0
			link = it.link
			if link != nil {
				runLink = runeCount(link.href) + runeCount(link.title)
			}
		}
		var n int
		if c.asciiText && it.link == nil && it.marks&mCode == 0 {
			n = len(it.text)
		} else {
			n = runeCount(it.text)
		}
		if it.kind == itTag || it.kind == itMention {
			n++ // the sigil
		}
		st += n
		if link != nil {
			runText += n
			st += runLink
			if runLink > runText {
				reason = reasonLink
			}
		} else {
			md += n
		}
		if c.budget.overBudget(md+max(runText, runLink), st) {
			c.budget.markdown += md + max(runText, runLink)
			c.budget.stored += st
			c.over(pos, reason)
			return
		}
	}
	c.budget.markdown += md + max(runText, runLink)
	c.budget.stored += st
}

// runeCount is utf8.RuneCountInString, taking ASCII eight bytes at a time:
// the length checks count every text of a document and all of its written
// Markdown, which is mostly ASCII. A non-ASCII character is decoded as
// RuneCountInString decodes it (an invalid byte counts one), so the count
// is the same for any string.
func runeCount(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			if binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))&0x8080808080808080 == 0 {
				n += 8
				i += 8
				continue
			}
		}
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		n++
	}
	return n
}

// countText adds text written as it is (a code block's code).
func (c *converter) countText(s string, pos int) {
	if c.err != nil {
		return
	}
	n := runeCount(s)
	c.budget.markdown += n
	c.budget.stored += n
	if c.budget.overBudget(0, 0) {
		c.over(pos, reasonText)
	}
}

// budgetKey finds the budget in goldmark's parser context.
var budgetKey = parser.NewContextKey()

// tableTransformer is goldmark's table paragraph transformer, preceded by a
// count of the cells the table will have: goldmark pads every row to the
// header's number of columns, so that a wide header and many one-character
// rows would build columns × rows cells. Each cell writes at least " x |",
// so the count goes to the budget first, and a table that would pass the
// limit is not built (the paragraph stays; Parse fails once goldmark is
// done).
type tableTransformer struct {
	own bool // build the table with buildTable (fastblock.go) instead of goldmark's transformer
}

var goldmarkTables = extension.NewTableParagraphTransformer()

func (t tableTransformer) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	b, _ := pc.Get(budgetKey).(*budget)
	if b != nil && b.overAt != 0 {
		return
	}
	lines := node.Lines()
	cols, width, rows, delim := tableShape(lines, reader.Source())
	if cols == 0 {
		return // no table: goldmark's transformer would not make one either
	}
	if b != nil {
		// "|" and " x |" per cell on each row, and the delimiter row "| --- |".
		md := rows*(1+3*width) + 1 + 6*width
		if b.markdown+md > MaxLength {
			b.markdown += md
			b.overAt = 1
			if lines.Len() > 0 {
				b.overAt = lines.At(0).Start + 1
			}
			return
		}
		b.markdown += md
		b.cells += rows * width
		b.widened = b.widened || width > cols
	}
	var rowLines []text.Segment
	if width > cols {
		// goldmark drops the cells past the header's width: their lines
		// are kept to add them back.
		rowLines = append(rowLines, lines.Sliced(delim+1, lines.Len())...)
	}
	parent, prev := node.Parent(), node.PreviousSibling()
	if t.own {
		buildTable(node, reader.Source())
	} else {
		goldmarkTables.Transform(node, reader, pc)
	}
	if width == cols {
		return
	}
	var table ast.Node
	switch {
	case node.Parent() != nil:
		table = node.NextSibling()
	case prev != nil:
		table = prev.NextSibling()
	default:
		table = parent.FirstChild()
	}
	if t, ok := table.(*east.Table); ok {
		widenTable(t, rowLines, reader.Source(), width)
	}
}

// widenTable adds back the cells goldmark dropped past the header's width
// (a ragged row: `| @bob | done | shipped #launch |` under two columns) and
// pads every row, the header too, to width cells. rowLines are the body
// rows' lines. The cells past the header's width are told apart by their
// index (len(t.Alignments)): goldmark's AST transformer does not see them,
// and the converter removes the backslash of `\|` in their code itself.
func widenTable(t *east.Table, rowLines []text.Segment, source []byte, width int) {
	k := -1 // body row index; the header comes first
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		if k >= 0 && k < len(rowLines) {
			have := row.ChildCount()
			forCells(rowLines[k], source, func(i int, cell text.Segment) {
				if i >= have {
					c := east.NewTableCell()
					cell = cell.TrimLeftSpace(source)
					c.Lines().Append(cell.TrimRightSpace(source))
					row.AppendChild(row, c)
				}
			})
		}
		for n := row.ChildCount(); n < width; n++ {
			row.AppendChild(row, east.NewTableCell())
		}
		k++
	}
}

// tableShape finds the table goldmark's transformer makes of a paragraph's
// lines, by its rules: the first line (after the first) that is a delimiter
// row makes a table if the line before it has at most as many cells as it
// has columns; the table then holds that header and every later line. It
// returns the number of columns (cols), the width the table gets once its
// longest row is kept (width >= cols), the number of rows (the header's
// included) and the index of the delimiter line, or 0 columns.
func tableShape(lines *text.Segments, source []byte) (cols, width, rows, delim int) {
	for i := 1; i < lines.Len(); i++ {
		seg := lines.At(i)
		n := delimiterColumns(seg.Value(source))
		if n == 0 {
			continue
		}
		// goldmark pads a short header row too; a longer one is no table.
		if rowCells(lines.At(i-1), source) > n {
			return 0, 0, 0, 0
		}
		width = n
		for j := i + 1; j < lines.Len(); j++ {
			width = max(width, rowCells(lines.At(j), source))
		}
		return n, width, lines.Len() - i, i
	}
	return 0, 0, 0, 0
}

// delimiterColumns counts the columns of a table delimiter row ("| --- | :-: |"),
// or returns 0 for a line that is not one.
func delimiterColumns(line []byte) int {
	if w, _ := util.IndentWidth(line, 0); w > 3 {
		return 0
	}
	dashOnly := true
	for _, ch := range line {
		if ch != '-' {
			dashOnly = false
		}
		if !util.IsSpace(ch) && ch != '-' && ch != '|' && ch != ':' {
			return 0
		}
	}
	if dashOnly {
		return 0
	}
	cols := strings.Split(string(line), "|")
	if isBlankStr(cols[0]) {
		cols = cols[1:]
	}
	if len(cols) > 0 && isBlankStr(cols[len(cols)-1]) {
		cols = cols[:len(cols)-1]
	}
	for _, col := range cols {
		// \s*:?-+:?\s* with \s the regular expression's (no \v)
		col = strings.Trim(col, " \t\n\f\r")
		col = strings.TrimPrefix(col, ":")
		col = strings.TrimSuffix(col, ":")
		if col == "" || strings.Trim(col, "-") != "" {
			return 0
		}
	}
	return len(cols)
}

// rowCells counts the cells of a table row (see forCells).
func rowCells(seg text.Segment, source []byte) int {
	n := 0
	forCells(seg, source, func(int, text.Segment) { n++ })
	return n
}

// forCells calls fn with each cell of a table row, as goldmark splits it:
// after the spaces at its ends and an outer "|" on each side, pipes not
// after a backslash separate the cells. The cells' segments are untrimmed.
func forCells(seg text.Segment, source []byte, fn func(i int, cell text.Segment)) {
	seg = seg.TrimLeftSpace(source)
	seg = seg.TrimRightSpace(source)
	line := seg.Value(source)
	pos, limit := 0, len(line)
	if limit > 0 && line[0] == '|' {
		pos++
	}
	if limit > 0 && line[limit-1] == '|' {
		limit--
	}
	for i := 0; pos < limit; i++ {
		closure := pos
		for ; closure < limit; closure++ {
			if line[closure] == '|' && (closure == 0 || line[closure-1] != '\\') {
				break
			}
		}
		fn(i, text.NewSegment(seg.Start+pos, seg.Start+closure))
		pos = closure + 1
	}
}

// checkTableShapes makes Parse check that goldmark built exactly the cells
// the pre-count expected (tests).
var checkTableShapes = false

// ParseCanonical is Parse followed by the exact check of the length: it
// writes the document (giving up as soon as the output passes the limit)
// and rejects, with a ConstructLength error, a document whose canonical
// Markdown, without its final newline, has more than MaxLength characters.
// It returns that Markdown too. Every document it accepts reads back within
// the limit, and that Markdown is accepted again as it is (Render∘Parse is
// a fixed point).
func ParseCanonical(markdown string) (Doc, string, error) {
	d, err := Parse(markdown)
	if err != nil {
		return Doc{}, "", err
	}
	// A character is at most 4 bytes: past 4 × MaxLength bytes (and the
	// final newline), the output certainly has more characters than
	// allowed.
	out, ok := renderCapped(d, 4*MaxLength+1, true)
	out = strings.TrimSuffix(out, "\n")
	if !ok {
		return Doc{}, "", &Error{Construct: ConstructLength, Detail: fmt.Sprintf(
			"would be more than %s characters once stored as canonical Markdown: %s", thousands(MaxLength), reasonRender)}
	}
	if n := runeCount(out); n > MaxLength {
		return Doc{}, "", &Error{Construct: ConstructLength, Detail: fmt.Sprintf(
			"would be %s characters once stored as canonical Markdown (limit %s): %s", thousands(n), thousands(MaxLength), reasonRender)}
	}
	return d, out, nil
}

const reasonRender = "special characters are escaped, reference links written in full, tables padded and list and quote lines indented"

// thousands writes n with comma separators: 100,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
