package markdown

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// SchemaVersion is the version of the stored document shape. Decode rejects
// documents written by a newer version, and reads the older ones: version 2
// added the checked state of task-list items (listItem attrs "checked"),
// which version 1 documents do not have.
const SchemaVersion = 2

// MaxNesting is the deepest nesting of lists and quotes (callouts count as
// quotes) that Parse accepts.
const MaxNesting = 16

// NodeType names a node of the document tree. It is a small number in
// memory (a node is the codec's most numerous allocation) and its name in
// JSON: the names are those of ProseMirror/TipTap so that an editor can load
// the stored JSON as is.
type NodeType uint8

// Node types. The zero value is no type: Decode rejects unknown names.
const (
	TypeParagraph NodeType = iota + 1
	TypeHeading
	TypeBulletList
	TypeOrderedList
	TypeListItem
	TypeBlockquote
	TypeCallout
	TypeCodeBlock
	TypeHorizontalRule
	TypeTable
	TypeTableRow
	TypeTableHeader
	TypeTableCell
	TypeHardBreak
	TypeText
	TypeTag
	TypeMention
)

var nodeTypeNames = [...]string{
	TypeParagraph:      "paragraph",
	TypeHeading:        "heading",
	TypeBulletList:     "bulletList",
	TypeOrderedList:    "orderedList",
	TypeListItem:       "listItem",
	TypeBlockquote:     "blockquote",
	TypeCallout:        "callout",
	TypeCodeBlock:      "codeBlock",
	TypeHorizontalRule: "horizontalRule",
	TypeTable:          "table",
	TypeTableRow:       "tableRow",
	TypeTableHeader:    "tableHeader",
	TypeTableCell:      "tableCell",
	TypeHardBreak:      "hardBreak",
	TypeText:           "text",
	TypeTag:            "tag",
	TypeMention:        "mention",
}

// String is the type's name in JSON.
func (t NodeType) String() string {
	if int(t) < len(nodeTypeNames) && nodeTypeNames[t] != "" {
		return nodeTypeNames[t]
	}
	return fmt.Sprintf("NodeType(%d)", uint8(t))
}

// MarshalText writes the type's name.
func (t NodeType) MarshalText() ([]byte, error) {
	if int(t) < len(nodeTypeNames) && nodeTypeNames[t] != "" {
		return []byte(nodeTypeNames[t]), nil
	}
	return nil, fmt.Errorf("unknown node type %d", uint8(t))
}

// UnmarshalText reads a type's name.
func (t *NodeType) UnmarshalText(text []byte) error {
	for i, name := range nodeTypeNames {
		if name != "" && name == string(text) {
			*t = NodeType(i)
			return nil
		}
	}
	return fmt.Errorf("unknown node type %q", text)
}

// MarkType names a mark on an inline node.
type MarkType string

// Mark types, in schema order: marks on a node are kept in this order.
const (
	MarkBold      MarkType = "bold"
	MarkItalic    MarkType = "italic"
	MarkStrike    MarkType = "strike"
	MarkUnderline MarkType = "underline"
	MarkCode      MarkType = "code"
	MarkLink      MarkType = "link"
)

// CalloutLabel is the kind attribute of a callout, a small number in memory
// and "why" or "decision" in JSON.
type CalloutLabel uint8

// Callout kinds, written `> **Why:** text` and `> **Decision:** text`. The
// zero value is no kind.
const (
	CalloutWhy CalloutLabel = iota + 1
	CalloutDecision
)

// String is the kind's name in JSON ("" for no kind).
func (k CalloutLabel) String() string {
	switch k {
	case CalloutWhy:
		return "why"
	case CalloutDecision:
		return "decision"
	case 0:
		return ""
	}
	return fmt.Sprintf("CalloutLabel(%d)", uint8(k))
}

// calloutLabelOf reads a kind's name; unknown names give an invalid kind,
// which Validate rejects on a callout.
func calloutLabelOf(name string) CalloutLabel {
	switch name {
	case "why":
		return CalloutWhy
	case "decision":
		return CalloutDecision
	case "":
		return 0
	}
	return calloutUnknown
}

// calloutUnknown is a kind name Decode does not know.
const calloutUnknown CalloutLabel = 255

// Doc is the stored form of Markdown content: the root of a ProseMirror-shaped
// tree, serialised as {"type":"doc","schemaVersion":1,"content":[...]}.
type Doc struct {
	Content []Node
}

// Node is one node of the tree. Only the attributes of its type are used.
type Node struct {
	Type    NodeType
	Attrs   Attrs
	Content []Node
	Text    string // text: the text; codeBlock: the code; tag, mention: the name without # or @
	Marks   []Mark // inline nodes only
}

// Attrs holds the attributes of all node types; each type uses its own.
// (Field sizes and order keep a node at 96 bytes: a document's nodes are
// most of what Parse allocates.)
type Attrs struct {
	Start    int32        // orderedList: number of the first item
	Level    uint8        // heading: 1 to 3
	Tight    bool         // bulletList, orderedList: items not separated by blank lines
	Label    CalloutLabel // callout: Why or Decision (stored as attrs.kind)
	Task     TaskState    // listItem: a task-list item's checkbox
	Language string       // codeBlock: the info string, "" when absent
}

// TaskState is the checkbox of a task-list item (`- [ ] x`, `- [x] x`): no
// checkbox, unchecked or checked; "checked": false or true in JSON.
type TaskState uint8

// Task states. The zero value is a plain list item.
const (
	TaskNone TaskState = iota
	TaskOpen
	TaskDone
)

// Mark is a mark on an inline node. Href and Title are for links only.
type Mark struct {
	Type  MarkType
	Href  string
	Title string
}

// Sigil is the kind of a Tag.
type Sigil string

// Tag kinds.
const (
	SigilTag    Sigil = "TAG"
	SigilPerson Sigil = "PERSON"
)

// Tag is a tag (#name) or a person mention (@name) of a document.
type Tag struct {
	Sigil Sigil // # (TAG) or @ (PERSON): the tag's "kind" on the wire
	Name  string
}

// Tags returns the tags and mentions of d, unique by kind and lower-cased name
// (the first casing seen is kept), ordered by kind (TAG, PERSON) then by
// lower-cased name.
func (d Doc) Tags() []Tag {
	type entry struct {
		tag   Tag
		lower string
	}
	var out []entry
	seen := map[string]bool{}
	walkNodes(d.Content, func(n *Node) {
		var kind Sigil
		switch n.Type {
		case TypeTag:
			kind = SigilTag
		case TypeMention:
			kind = SigilPerson
		default:
			return
		}
		lower := strings.ToLower(n.Text)
		key := string(kind) + "\x00" + lower
		if seen[key] {
			return
		}
		seen[key] = true
		out = append(out, entry{Tag{kind, n.Text}, lower})
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].tag.Sigil != out[j].tag.Sigil {
			return out[i].tag.Sigil == SigilTag
		}
		return out[i].lower < out[j].lower
	})
	tags := make([]Tag, len(out))
	for i, e := range out {
		tags[i] = e.tag
	}
	return tags
}

// HasDecision reports whether d holds at least one Decision callout.
func (d Doc) HasDecision() bool {
	found := false
	walkNodes(d.Content, func(n *Node) {
		if n.Type == TypeCallout && n.Attrs.Label == CalloutDecision {
			found = true
		}
	})
	return found
}

// Text returns the plain text of d: inline text, tags as #name, mentions as
// @name, callouts starting with their label ("Why:"), code as is; blocks are
// separated by newlines. It suits search indexing and snippets.
func (d Doc) Text() string {
	var b strings.Builder
	textOf(&b, d.Content)
	return b.String()
}

// FirstLine is how a document is named where a title is wanted (a note in a list, a calendar
// event, a review row): FirstLineOf its Text.
func (d Doc) FirstLine(max int) string { return FirstLineOf(d.Text(), max) }

// FirstLineOf is the first line of text that is not blank, trimmed, cut to at most max characters
// (the last one an ellipsis); "" when every line is blank or max is below 1.
func FirstLineOf(text string, max int) string {
	if max < 1 {
		return ""
	}
	for line := range strings.Lines(text) {
		if line = strings.TrimSpace(line); line != "" {
			if r := []rune(line); len(r) > max {
				return string(r[:max-1]) + "…"
			}
			return line
		}
	}
	return ""
}

func textOf(b *strings.Builder, nodes []Node) {
	for i := range nodes {
		n := &nodes[i]
		switch n.Type {
		case TypeText:
			b.WriteString(n.Text)
		case TypeTag:
			b.WriteString("#" + n.Text)
		case TypeMention:
			b.WriteString("@" + n.Text)
		case TypeHardBreak:
			b.WriteByte('\n')
		case TypeCodeBlock:
			b.WriteString(n.Text)
		case TypeCallout:
			b.WriteString(calloutText(n.Attrs.Label))
			b.WriteByte(' ')
			textOf(b, n.Content)
		default:
			textOf(b, n.Content)
		}
		if isBlockType(n.Type) && b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
	}
}

func calloutText(k CalloutLabel) string {
	if k == CalloutDecision {
		return "Decision:"
	}
	return "Why:"
}

func walkNodes(nodes []Node, fn func(*Node)) {
	for i := range nodes {
		fn(&nodes[i])
		walkNodes(nodes[i].Content, fn)
	}
}

func isBlockType(t NodeType) bool {
	switch t {
	case TypeParagraph, TypeHeading, TypeBulletList, TypeOrderedList, TypeListItem,
		TypeBlockquote, TypeCallout, TypeCodeBlock, TypeHorizontalRule, TypeTable,
		TypeTableRow, TypeTableHeader, TypeTableCell:
		return true
	}
	return false
}

// MarshalJSON writes {"type":"doc","schemaVersion":2,"content":[...]}, as
// Encode does.
func (d Doc) MarshalJSON() ([]byte, error) { return Encode(d) }

// UnmarshalJSON reads the form written by MarshalJSON, as Decode does
// without Validate.
func (d *Doc) UnmarshalJSON(data []byte) error {
	if !json.Valid(data) {
		return errors.New("markdown document: invalid JSON")
	}
	dec := docDecoder{src: string(data)}
	doc, err := dec.doc()
	if err != nil {
		return err
	}
	d.Content = doc.Content
	return nil
}

// MarshalJSON writes the ProseMirror shape, with only the attributes of the
// node's type.
func (n Node) MarshalJSON() ([]byte, error) {
	var e docEncoder
	if err := e.node(&n); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// UnmarshalJSON reads the shape written by MarshalJSON (null is the zero
// node).
func (n *Node) UnmarshalJSON(data []byte) error {
	return decodeValue(data, n, (*docDecoder).node)
}

// MarshalJSON writes {"type":"link","attrs":{"href":...}} and {"type":"bold"}.
func (m Mark) MarshalJSON() ([]byte, error) { return appendMark(nil, &m), nil }

// UnmarshalJSON reads the shape written by MarshalJSON (null is the zero
// mark).
func (m *Mark) UnmarshalJSON(data []byte) error {
	return decodeValue(data, m, (*docDecoder).mark)
}

var errInvalidDoc = errors.New("invalid document")

// Validate checks that d is schema-valid: known node and mark types in their
// places, attributes in range, valid tag names, rectangular tables, and no
// nesting of lists and quotes deeper than MaxNesting.
func Validate(d Doc) error {
	return validateBlocks(d.Content, 0, "doc")
}

func docErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errInvalidDoc, fmt.Sprintf(format, args...))
}

func validateBlocks(nodes []Node, depth int, parent string) error {
	for i := range nodes {
		n := &nodes[i]
		switch n.Type {
		case TypeParagraph:
			if err := validateInline(n.Content); err != nil {
				return err
			}
		case TypeHeading:
			if n.Attrs.Level < 1 || n.Attrs.Level > 3 {
				return docErr("heading level %d", n.Attrs.Level)
			}
			if err := validateInline(n.Content); err != nil {
				return err
			}
		case TypeBulletList, TypeOrderedList:
			if depth+1 > MaxNesting {
				return docErr("nesting deeper than %d", MaxNesting)
			}
			if n.Type == TypeOrderedList && (n.Attrs.Start < 0 || n.Attrs.Start > maxListStart) {
				return docErr("ordered list start %d", n.Attrs.Start)
			}
			if len(n.Content) == 0 {
				return docErr("empty list")
			}
			for j := range n.Content {
				it := &n.Content[j]
				if it.Type != TypeListItem {
					return docErr("%s inside a list", it.Type)
				}
				if it.Attrs.Task > TaskDone {
					return docErr("task state %d", it.Attrs.Task)
				}
				if err := validateBlocks(it.Content, depth+1, "listItem"); err != nil {
					return err
				}
			}
		case TypeBlockquote, TypeCallout:
			if depth+1 > MaxNesting {
				return docErr("nesting deeper than %d", MaxNesting)
			}
			if n.Type == TypeCallout && n.Attrs.Label != CalloutWhy && n.Attrs.Label != CalloutDecision {
				return docErr("callout kind %q", n.Attrs.Label)
			}
			if err := validateBlocks(n.Content, depth+1, n.Type.String()); err != nil {
				return err
			}
		case TypeCodeBlock:
			if len(n.Content) != 0 {
				return docErr("codeBlock with children")
			}
		case TypeHorizontalRule:
			if len(n.Content) != 0 {
				return docErr("horizontalRule with children")
			}
		case TypeTable:
			if err := validateTable(n); err != nil {
				return err
			}
		default:
			return docErr("%q node inside %s", n.Type, parent)
		}
	}
	return nil
}

func validateTable(t *Node) error {
	if len(t.Content) == 0 {
		return docErr("empty table")
	}
	width := len(t.Content[0].Content)
	if width == 0 {
		return docErr("table without columns")
	}
	for r := range t.Content {
		row := &t.Content[r]
		if row.Type != TypeTableRow {
			return docErr("%s inside a table", row.Type)
		}
		if len(row.Content) != width {
			return docErr("table row %d has %d cells, want %d", r, len(row.Content), width)
		}
		want := TypeTableCell
		if r == 0 {
			want = TypeTableHeader
		}
		for c := range row.Content {
			cell := &row.Content[c]
			if cell.Type != want {
				return docErr("%s in table row %d, want %s", cell.Type, r, want)
			}
			if len(cell.Content) != 1 || cell.Content[0].Type != TypeParagraph {
				return docErr("table cell must hold one paragraph")
			}
			if err := validateInline(cell.Content[0].Content); err != nil {
				return err
			}
		}
	}
	return nil
}

func validateInline(nodes []Node) error {
	for i := range nodes {
		n := &nodes[i]
		switch n.Type {
		case TypeText:
			if n.Text == "" {
				return docErr("empty text node")
			}
			if strings.IndexByte(n.Text, 0) >= 0 {
				return docErr("NUL in text")
			}
		case TypeHardBreak:
		case TypeTag:
			if !validTagName(n.Text) {
				return docErr("tag name %q", n.Text)
			}
		case TypeMention:
			if !validMentionName(n.Text) {
				return docErr("mention name %q", n.Text)
			}
		default:
			return docErr("%q node in inline content", n.Type)
		}
		if len(n.Content) != 0 {
			return docErr("%s with children", n.Type)
		}
		seen := map[MarkType]bool{}
		for _, m := range n.Marks {
			switch m.Type {
			case MarkBold, MarkItalic, MarkStrike, MarkUnderline, MarkCode, MarkLink:
			default:
				return docErr("mark %q", m.Type)
			}
			if seen[m.Type] {
				return docErr("mark %q twice", m.Type)
			}
			seen[m.Type] = true
			if m.Type == MarkLink {
				if _, bad := unsafeScheme(m.Href); bad {
					return docErr("link scheme of %q", m.Href)
				}
			}
		}
	}
	return nil
}
