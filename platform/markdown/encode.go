package markdown

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Encode returns the stored JSON form of d.
//
// It writes the tree in one pass, byte for byte what json.Marshal wrote
// through the types' MarshalJSON methods (which marshalled each node's
// subtree, then had encoding/json re-scan it once per level above it):
// keys in the same order, the same attributes omitted, strings escaped as
// encoding/json escapes them (HTML characters and U+2028/U+2029 included).
// codec_diff_test.go checks it against the former encoder.
func Encode(d Doc) ([]byte, error) {
	// The buffer is sized once: growing it by doubling from a small one
	// copied and cleared about twice the output (most of Encode's time on
	// a long note) and left up to half of it unused in the stored bytes.
	size := encodedSize(d.Content) + len(`{"type":"doc","schemaVersion":,"content":}`) + 4
	e := docEncoder{buf: make([]byte, 0, size+size/32)}
	if err := e.doc(d); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// docEncoder appends the stored form to buf.
type docEncoder struct {
	buf []byte
}

func (e *docEncoder) doc(d Doc) error {
	e.buf = append(e.buf, `{"type":"doc","schemaVersion":`...)
	e.buf = strconv.AppendInt(e.buf, SchemaVersion, 10)
	e.buf = append(e.buf, `,"content":`...)
	if err := e.nodes(d.Content); err != nil {
		return err
	}
	e.buf = append(e.buf, '}')
	return nil
}

// nodes writes an array of nodes ([] for none).
func (e *docEncoder) nodes(nodes []Node) error {
	e.buf = append(e.buf, '[')
	for i := range nodes {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.node(&nodes[i]); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, ']')
	return nil
}

// node writes {"type":…,"attrs":{…},"content":[…],"text":…,"marks":[…]},
// with only the attributes of the node's type, and no empty content or
// marks.
func (e *docEncoder) node(n *Node) error {
	if int(n.Type) >= len(nodeTypeNames) || nodeTypeNames[n.Type] == "" {
		return fmt.Errorf("unknown node type %d", uint8(n.Type))
	}
	e.buf = append(e.buf, `{"type":"`...)
	e.buf = append(e.buf, nodeTypeNames[n.Type]...) // plain ASCII names
	e.buf = append(e.buf, '"')
	switch n.Type {
	case TypeHeading:
		e.buf = append(e.buf, `,"attrs":{"level":`...)
		e.buf = strconv.AppendInt(e.buf, int64(n.Attrs.Level), 10)
		e.buf = append(e.buf, '}')
	case TypeOrderedList:
		e.buf = append(e.buf, `,"attrs":{"start":`...)
		e.buf = strconv.AppendInt(e.buf, int64(n.Attrs.Start), 10)
		e.buf = append(e.buf, `,"tight":`...)
		e.buf = strconv.AppendBool(e.buf, n.Attrs.Tight)
		e.buf = append(e.buf, '}')
	case TypeBulletList:
		e.buf = append(e.buf, `,"attrs":{"tight":`...)
		e.buf = strconv.AppendBool(e.buf, n.Attrs.Tight)
		e.buf = append(e.buf, '}')
	case TypeCallout:
		e.buf = appendOptionalAttr(e.buf, "kind", n.Attrs.Label.String())
	case TypeCodeBlock:
		e.buf = append(e.buf, `,"attrs":{"language":`...)
		e.buf = appendJSONString(e.buf, n.Attrs.Language)
		e.buf = append(e.buf, '}')
	case TypeTag, TypeMention:
		e.buf = appendOptionalAttr(e.buf, "name", n.Text)
	case TypeListItem:
		if n.Attrs.Task != TaskNone {
			e.buf = append(e.buf, `,"attrs":{"checked":`...)
			e.buf = strconv.AppendBool(e.buf, n.Attrs.Task == TaskDone)
			e.buf = append(e.buf, '}')
		}
	}
	switch {
	case n.Type == TypeCodeBlock && n.Text != "":
		// ProseMirror keeps code as a text child.
		e.buf = append(e.buf, `,"content":[{"type":"text","text":`...)
		e.buf = appendJSONString(e.buf, n.Text)
		e.buf = append(e.buf, `}]`...)
	case len(n.Content) > 0:
		e.buf = append(e.buf, `,"content":`...)
		if err := e.nodes(n.Content); err != nil {
			return err
		}
	}
	if n.Type == TypeText {
		e.buf = append(e.buf, `,"text":`...)
		e.buf = appendJSONString(e.buf, n.Text)
	}
	if len(n.Marks) > 0 {
		e.buf = append(e.buf, `,"marks":[`...)
		for i := range n.Marks {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.buf = appendMark(e.buf, &n.Marks[i])
		}
		e.buf = append(e.buf, ']')
	}
	e.buf = append(e.buf, '}')
	return nil
}

// appendOptionalAttr writes "attrs" with one string attribute, left out
// when empty (an empty "attrs" object stays).
func appendOptionalAttr(buf []byte, key, value string) []byte {
	buf = append(buf, `,"attrs":{`...)
	if value != "" {
		buf = append(buf, '"')
		buf = append(buf, key...)
		buf = append(buf, `":`...)
		buf = appendJSONString(buf, value)
	}
	return append(buf, '}')
}

// appendMark writes {"type":"link","attrs":{"href":…,"title":…}} (no empty
// title) and {"type":"bold"}.
func appendMark(buf []byte, m *Mark) []byte {
	buf = append(buf, `{"type":`...)
	buf = appendJSONString(buf, string(m.Type))
	if m.Type == MarkLink {
		buf = append(buf, `,"attrs":{"href":`...)
		buf = appendJSONString(buf, m.Href)
		if m.Title != "" {
			buf = append(buf, `,"title":`...)
			buf = appendJSONString(buf, m.Title)
		}
		buf = append(buf, '}')
	}
	return append(buf, '}')
}

// appendJSONString is encoding/json's string encoding with HTML escaping,
// as json.Marshal writes it (AppendJSONString with escapeHTML).
func appendJSONString(buf []byte, s string) []byte { return AppendJSONString(buf, s, true) }

// AppendJSONString appends s as a JSON string the way encoding/json writes it:
// \" \\ \b \f \n \r \t, \u00XX for the other control characters (and for
// < > & when escapeHTML, as json.Marshal; not, as an Encoder with
// SetEscapeHTML(false)), \ufffd for each invalid UTF-8 byte and \u2028, \u2029
// for those separators. The codec writes its stored form with it; the events
// feed writes its pages with it.
func AppendJSONString(buf []byte, s string, escapeHTML bool) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' && (!escapeHTML || (b != '<' && b != '>' && b != '&')) {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch b {
			case '\\', '"':
				buf = append(buf, '\\', b)
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// encodedSize is about the length of the nodes' stored form: exact but for
// what appendJSONString escapes (which the caller's slack covers, or one
// growth of the buffer), and for an unknown node type (Encode's error).
func encodedSize(nodes []Node) int {
	n := len("[]")
	if len(nodes) > 1 {
		n += len(nodes) - 1 // commas
	}
	for i := range nodes {
		nd := &nodes[i]
		n += len(`{"type":""}`)
		if int(nd.Type) < len(nodeTypeNames) {
			n += len(nodeTypeNames[nd.Type])
		}
		switch nd.Type {
		case TypeHeading:
			n += len(`,"attrs":{"level":}`) + 3
		case TypeOrderedList:
			n += len(`,"attrs":{"start":,"tight":false}`) + 10
		case TypeBulletList:
			n += len(`,"attrs":{"tight":false}`)
		case TypeCallout:
			n += len(`,"attrs":{"kind":""}`) + len("decision")
		case TypeCodeBlock:
			n += len(`,"attrs":{"language":""}`) + len(nd.Attrs.Language)
		case TypeTag, TypeMention:
			n += len(`,"attrs":{"name":""}`) + len(nd.Text)
		case TypeListItem:
			if nd.Attrs.Task != TaskNone {
				n += len(`,"attrs":{"checked":false}`)
			}
		}
		switch {
		case nd.Type == TypeCodeBlock && nd.Text != "":
			n += len(`,"content":[{"type":"text","text":""}]`) + len(nd.Text)
		case len(nd.Content) > 0:
			n += len(`,"content":`) + encodedSize(nd.Content)
		}
		if nd.Type == TypeText {
			n += len(`,"text":""`) + len(nd.Text)
		}
		if len(nd.Marks) > 0 {
			n += len(`,"marks":[]`) + len(nd.Marks) - 1
			for j := range nd.Marks {
				m := &nd.Marks[j]
				n += len(`{"type":""}`) + len(m.Type)
				if m.Type == MarkLink {
					n += len(`,"attrs":{"href":""}`) + len(m.Href)
					if m.Title != "" {
						n += len(`,"title":""`) + len(m.Title)
					}
				}
			}
		}
	}
	return n
}
