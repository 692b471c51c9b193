package markdown

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Decode reads the stored JSON form, checking that it is a valid document of
// a known schema version.
//
// It reads the whole tree in one pass. (Decoding through the types'
// UnmarshalJSON methods made encoding/json re-scan each node's subtree once
// per level above it, at some 350 allocations for a 500-byte note: every
// render cache miss paid that.) It accepts exactly what that decoder
// accepted, giving the same Doc, including encoding/json's rules that
// stored documents may rely on: the syntax is checked by encoding/json
// itself; keys match field names case-insensitively (encoding/json's
// folding, so "TYPE" and "\u212aind" match); a repeated key overrides the
// earlier one, except that a repeated "attrs" object adds to the first;
// unknown keys are ignored; null clears a pointer or slice field ("attrs",
// "content", "text", "level"...) and leaves a string or number field
// ("kind", "schemaVersion", a node's "type") as it was; a null node or mark
// is the zero one. codec_diff_test.go checks all this against the former
// decoder.
func Decode(data []byte) (Doc, error) {
	if !json.Valid(data) {
		// encoding/json describes the syntax error.
		var v any
		err := json.Unmarshal(data, &v)
		if err == nil {
			err = fmt.Errorf("invalid JSON")
		}
		return Doc{}, fmt.Errorf("decode markdown document: %w", err)
	}
	dec := docDecoder{src: string(data)}
	d, err := dec.doc()
	if err != nil {
		return Doc{}, fmt.Errorf("decode markdown document: %w", err)
	}
	if err := Validate(d); err != nil {
		return Doc{}, fmt.Errorf("decode markdown document: %w", err)
	}
	return d, nil
}

// decodeValue reads one node or mark (null is the zero one) into v, for
// its UnmarshalJSON.
func decodeValue[T any](data []byte, v *T, read func(*docDecoder) (T, error)) error {
	if !json.Valid(data) {
		return fmt.Errorf("markdown %T: invalid JSON", *v)
	}
	dec := docDecoder{src: string(data)}
	if dec.null() {
		var zero T
		*v = zero
		return nil
	}
	got, err := read(&dec)
	if err != nil {
		return err
	}
	*v = got
	return nil
}

// docDecoder reads a stored document that json.Valid accepted: it relies on
// the syntax being valid to skip and delimit values, and checks every index
// anyway, so that it cannot panic.
type docDecoder struct {
	// src is the whole document; strings without escapes are substrings of
	// it, which saves an allocation per string (the Doc keeps src alive, no
	// more memory than the strings' own copies would take).
	src   string
	pos   int
	slab  nodeSlab
	nodes []Node // the nodes of the content arrays being read, innermost last
	marks []Mark // the same for marks arrays
}

// wireKey is a key the stored form uses; keyOther is any other key.
type wireKey uint8

const (
	keyOther wireKey = iota
	keyType
	keySchemaVersion
	keyContent
	keyAttrs
	keyText
	keyMarks
	keyLevel
	keyStart
	keyTight
	keyKind
	keyLanguage
	keyName
	keyHref
	keyTitle
	keyChecked
)

// wireKeyNames are the keys in upper case: encoding/json's folded form of
// an ASCII name.
var wireKeyNames = [...]string{
	keyType:          "TYPE",
	keySchemaVersion: "SCHEMAVERSION",
	keyContent:       "CONTENT",
	keyAttrs:         "ATTRS",
	keyText:          "TEXT",
	keyMarks:         "MARKS",
	keyLevel:         "LEVEL",
	keyStart:         "START",
	keyTight:         "TIGHT",
	keyKind:          "KIND",
	keyLanguage:      "LANGUAGE",
	keyName:          "NAME",
	keyHref:          "HREF",
	keyTitle:         "TITLE",
	keyChecked:       "CHECKED",
}

// wireAttrs is what an "attrs" object held (the former jsonAttrs): the has*
// fields say whether a pointer field was set and not nulled.
type wireAttrs struct {
	level, start         int32
	hasLevel, hasStart   bool
	tight, hasTight      bool
	checked, hasChecked  bool
	language, href       string
	hasLanguage, hasHref bool
	kind, name, title    string
}

func (d *docDecoder) skipSpace() {
	for d.pos < len(d.src) {
		switch d.src[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the first byte of the next value (0 at the end).
func (d *docDecoder) peek() byte {
	d.skipSpace()
	if d.pos < len(d.src) {
		return d.src[d.pos]
	}
	return 0
}

// null consumes a null if one is next.
func (d *docDecoder) null() bool {
	if d.peek() == 'n' && strings.HasPrefix(d.src[d.pos:], "null") {
		d.pos += len("null")
		return true
	}
	return false
}

// typeError is encoding/json's UnmarshalTypeError, without the offset.
func (d *docDecoder) typeError(want string) error {
	kind := "number"
	switch d.peek() {
	case '"':
		kind = "string"
	case '{':
		kind = "object"
	case '[':
		kind = "array"
	case 't', 'f':
		kind = "bool"
	case 'n':
		kind = "null"
	}
	return fmt.Errorf("cannot unmarshal %s into a %s at offset %d", kind, want, d.pos)
}

// object calls field for each key of the object that starts next, with the
// decoder at the key's value; field must consume the value.
func (d *docDecoder) object(field func(wireKey) error) error {
	d.pos++ // {
	if d.peek() == '}' {
		d.pos++
		return nil
	}
	for {
		d.skipSpace()
		key, err := d.key()
		if err != nil {
			return err
		}
		if d.peek() != ':' {
			return fmt.Errorf("malformed object at offset %d", d.pos)
		}
		d.pos++
		if err := field(key); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return fmt.Errorf("malformed object at offset %d", d.pos)
		}
	}
}

// array calls elem for each element of the array that starts next, with
// the decoder at the element.
func (d *docDecoder) array(elem func() error) error {
	d.pos++ // [
	if d.peek() == ']' {
		d.pos++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return nil
		default:
			return fmt.Errorf("malformed array at offset %d", d.pos)
		}
	}
}

// key reads an object key and says which wire key it matches, as
// encoding/json matches a key to a field: unescaped, then case-folded.
func (d *docDecoder) key() (wireKey, error) {
	start := d.pos
	raw, err := d.rawString()
	if err != nil {
		return keyOther, err
	}
	plain := true
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return matchKey(raw), nil
	}
	s, ok := unquoteJSON(d.src[start:d.pos])
	if !ok {
		return keyOther, fmt.Errorf("malformed key at offset %d", start)
	}
	return matchKey(string(appendFoldedName(nil, []byte(s)))), nil
}

// matchKey finds the wire key whose name equals name up to ASCII case (the
// folding of an ASCII name, or of a folded one).
func matchKey(name string) wireKey {
	for k := keyType; int(k) < len(wireKeyNames); k++ {
		want := wireKeyNames[k]
		if len(name) != len(want) {
			continue
		}
		same := true
		for i := 0; i < len(name); i++ {
			c := name[i]
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			if c != want[i] {
				same = false
				break
			}
		}
		if same {
			return k
		}
	}
	return keyOther
}

// appendFoldedName and foldRune are encoding/json's (fold.go): the folded
// form under which it matches a key to a field name.
func appendFoldedName(out, in []byte) []byte {
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		out = utf8.AppendRune(out, foldRune(r))
		i += n
	}
	return out
}

func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// rawString consumes the string that starts next and returns what is
// between its quotes, escapes unread.
func (d *docDecoder) rawString() (string, error) {
	if d.pos >= len(d.src) || d.src[d.pos] != '"' {
		return "", d.typeError("string")
	}
	start := d.pos + 1
	for i := start; i < len(d.src); i++ {
		switch d.src[i] {
		case '\\':
			i++ // the escaped byte (a \u's digits are plain bytes)
		case '"':
			d.pos = i + 1
			return d.src[start:i], nil
		}
	}
	return "", fmt.Errorf("unterminated string at offset %d", start-1)
}

// string reads the string that starts next, unescaped as encoding/json does.
func (d *docDecoder) string() (string, error) {
	start := d.pos
	raw, err := d.rawString()
	if err != nil {
		return "", err
	}
	if plainString(raw) {
		return raw, nil
	}
	s, ok := unquoteJSON(d.src[start:d.pos])
	if !ok {
		return "", fmt.Errorf("malformed string at offset %d", start)
	}
	return s, nil
}

// plainString reports whether encoding/json would take s as it is: no
// escape and valid UTF-8.
func plainString(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\\' || c == '"' || c < ' ' {
			return false
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return false
		}
		i += size
	}
	return true
}

// unquoteJSON is encoding/json's unquote: it decodes the escapes of the
// quoted string s, and replaces invalid UTF-8 and unpaired surrogates with
// U+FFFD.
func unquoteJSON(s string) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	s = s[1 : len(s)-1]
	var b strings.Builder
	b.Grow(len(s))
	for r := 0; r < len(s); {
		switch c := s[r]; {
		case c == '\\':
			r++
			if r >= len(s) {
				return "", false
			}
			switch s[r] {
			default:
				return "", false
			case '"', '\\', '/', '\'':
				b.WriteByte(s[r])
				r++
			case 'b':
				b.WriteByte('\b')
				r++
			case 'f':
				b.WriteByte('\f')
				r++
			case 'n':
				b.WriteByte('\n')
				r++
			case 'r':
				b.WriteByte('\r')
				r++
			case 't':
				b.WriteByte('\t')
				r++
			case 'u':
				r--
				rr := getu4(s[r:])
				if rr < 0 {
					return "", false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						r += 6
						b.WriteRune(dec)
						break
					}
					rr = unicode.ReplacementChar
				}
				b.WriteRune(rr)
			}
		case c == '"', c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			r++
		default:
			rr, size := utf8.DecodeRuneInString(s[r:])
			r += size
			b.WriteRune(rr) // RuneError for an invalid byte: U+FFFD
		}
	}
	return b.String(), true
}

// getu4 decodes \uXXXX from the start of s, or returns -1.
func getu4(s string) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for i := 2; i < 6; i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// number consumes the number that starts next and returns its text.
func (d *docDecoder) number() (string, error) {
	start := d.pos
	for d.pos < len(d.src) {
		c := d.src[d.pos]
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || '0' <= c && c <= '9' {
			d.pos++
			continue
		}
		break
	}
	if d.pos == start {
		return "", d.typeError("number")
	}
	return d.src[start:d.pos], nil
}

// integer reads an integer in [lo, hi], as encoding/json reads an integer
// field: a number without fraction or exponent.
func (d *docDecoder) integer(lo, hi int64) (int64, error) {
	start := d.pos
	text, err := d.number()
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("cannot unmarshal number %s into an integer field at offset %d", text, start)
	}
	return n, nil
}

func (d *docDecoder) int32() (int32, error) {
	n, err := d.integer(-1<<31, 1<<31-1)
	return int32(n), err
}

func (d *docDecoder) bool() (bool, error) {
	switch {
	case d.pos > len(d.src):
	case strings.HasPrefix(d.src[d.pos:], "true"):
		d.pos += len("true")
		return true, nil
	case strings.HasPrefix(d.src[d.pos:], "false"):
		d.pos += len("false")
		return false, nil
	}
	return false, d.typeError("bool")
}

// skip consumes the value that starts next, of any kind.
func (d *docDecoder) skip() error {
	switch d.peek() {
	case '"':
		_, err := d.rawString()
		return err
	case '{':
		return d.object(func(wireKey) error { return d.skip() })
	case '[':
		return d.array(d.skip)
	case 't', 'f':
		_, err := d.bool()
		return err
	case 'n':
		d.null()
		return nil
	}
	_, err := d.number()
	return err
}

// doc reads the root object (the former jsonDoc).
func (d *docDecoder) doc() (Doc, error) {
	var (
		rootType string
		version  int64
		content  []Node
	)
	if d.peek() != '{' {
		if d.null() {
			return Doc{}, fmt.Errorf("root type %q, want doc", "")
		}
		return Doc{}, d.typeError("document object")
	}
	err := d.object(func(k wireKey) (err error) {
		switch k {
		case keyType:
			if !d.null() {
				rootType, err = d.string()
			}
		case keySchemaVersion:
			if !d.null() {
				version, err = d.integer(-1<<(strconv.IntSize-1), 1<<(strconv.IntSize-1)-1)
			}
		case keyContent:
			content, err = d.content()
		default:
			err = d.skip()
		}
		return err
	})
	if err != nil {
		return Doc{}, err
	}
	if rootType != "doc" {
		return Doc{}, fmt.Errorf("root type %q, want doc", rootType)
	}
	if version < 1 || version > SchemaVersion {
		return Doc{}, fmt.Errorf("unsupported schema version %d", version)
	}
	return Doc{Content: content}, nil
}

// content reads a "content" value: null, or an array of nodes.
func (d *docDecoder) content() ([]Node, error) {
	return readList(d, &d.nodes, d.node, func(n int) []Node {
		if n == 0 {
			return []Node{} // [] is an empty slice, not a nil one
		}
		return d.slab.make(n)
	})
}

// readList reads null (a nil slice) or an array whose elements are null
// (the zero element) or read by read. The elements wait in pending, shared
// by the arrays being read (innermost last), until the array ends and they
// are copied to a slice of their exact length from makeList.
func readList[T any](d *docDecoder, pending *[]T, read func() (T, error), makeList func(n int) []T) ([]T, error) {
	if d.null() {
		return nil, nil
	}
	if d.peek() != '[' {
		return nil, d.typeError("array")
	}
	base := len(*pending)
	err := d.array(func() error {
		var v T
		if !d.null() {
			var err error
			if v, err = read(); err != nil {
				return err
			}
		}
		*pending = append(*pending, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := makeList(len(*pending) - base)
	copy(out, (*pending)[base:])
	clear((*pending)[base:])
	*pending = (*pending)[:base]
	return out, nil
}

// node reads a node object as the former (*Node).UnmarshalJSON did.
func (d *docDecoder) node() (Node, error) {
	if d.peek() != '{' {
		return Node{}, d.typeError("node")
	}
	var (
		typ      NodeType
		attrs    wireAttrs
		hasAttrs bool
		content  []Node
		text     string
		hasText  bool
		marks    []Mark
	)
	err := d.object(func(k wireKey) (err error) {
		switch k {
		case keyType:
			if d.null() {
				return nil
			}
			var name string
			if name, err = d.string(); err != nil {
				return err
			}
			typ, err = nodeTypeOf(name)
		case keyAttrs:
			if d.null() {
				attrs, hasAttrs = wireAttrs{}, false
				return nil
			}
			hasAttrs = true
			return d.attrs(&attrs)
		case keyContent:
			content, err = d.content()
		case keyText:
			if d.null() {
				text, hasText = "", false
				return nil
			}
			text, err = d.string()
			hasText = true
		case keyMarks:
			marks, err = d.markList()
		default:
			err = d.skip()
		}
		return err
	})
	if err != nil {
		return Node{}, err
	}

	n := Node{Type: typ, Content: content, Marks: marks}
	if hasText && n.Type == TypeText {
		n.Text = text
	}
	if hasAttrs {
		a := &attrs
		if a.hasLevel && n.Type == TypeHeading {
			// Checked before narrowing: 257 must not pass as 1.
			if a.level < 1 || a.level > 3 {
				return Node{}, docErr("heading level %d", a.level)
			}
			n.Attrs.Level = uint8(a.level)
		}
		if a.hasStart {
			n.Attrs.Start = a.start
		}
		if a.hasTight {
			n.Attrs.Tight = a.tight
		}
		n.Attrs.Label = calloutLabelOf(a.kind)
		if n.Type == TypeCallout && a.kind != "" && n.Attrs.Label == calloutUnknown {
			return Node{}, fmt.Errorf("unknown callout kind %q", a.kind)
		}
		if a.hasLanguage {
			n.Attrs.Language = a.language
		}
		if n.Type == TypeTag || n.Type == TypeMention {
			n.Text = a.name
		}
		if a.hasChecked && n.Type == TypeListItem {
			n.Attrs.Task = TaskOpen
			if a.checked {
				n.Attrs.Task = TaskDone
			}
		}
	}
	if n.Type == TypeOrderedList && !(hasAttrs && attrs.hasStart) {
		n.Attrs.Start = 1
	}
	if n.Type == TypeCodeBlock {
		// ProseMirror keeps code as text children.
		code := ""
		for i, c := range n.Content {
			if c.Type != TypeText {
				return Node{}, fmt.Errorf("codeBlock holds a %q node", c.Type)
			}
			if i == 0 {
				code = c.Text
			} else {
				code += c.Text
			}
		}
		n.Text = code
		n.Content = nil
	}
	return n, nil
}

// nodeTypeOf is (*NodeType).UnmarshalText without its allocation.
func nodeTypeOf(name string) (NodeType, error) {
	for i, known := range nodeTypeNames {
		if known != "" && known == name {
			return NodeType(i), nil
		}
	}
	return 0, fmt.Errorf("unknown node type %q", name)
}

// attrs reads an "attrs" object into a, over what an earlier "attrs" key of
// the same object left there (encoding/json decodes a repeated key into the
// same struct).
func (d *docDecoder) attrs(a *wireAttrs) error {
	if d.peek() != '{' {
		return d.typeError("attrs object")
	}
	return d.object(func(k wireKey) (err error) {
		null := d.null()
		switch k {
		case keyLevel:
			err = readClearable(null, &a.hasLevel, &a.level, d.int32)
		case keyStart:
			err = readClearable(null, &a.hasStart, &a.start, d.int32)
		case keyTight:
			err = readClearable(null, &a.hasTight, &a.tight, d.bool)
		case keyChecked:
			err = readClearable(null, &a.hasChecked, &a.checked, d.bool)
		case keyLanguage:
			err = readClearable(null, &a.hasLanguage, &a.language, d.string)
		case keyHref:
			err = readClearable(null, &a.hasHref, &a.href, d.string)
		// Null leaves a string field as it was.
		case keyKind:
			err = readUnlessNull(null, &a.kind, d.string)
		case keyName:
			err = readUnlessNull(null, &a.name, d.string)
		case keyTitle:
			err = readUnlessNull(null, &a.title, d.string)
		default:
			if !null {
				err = d.skip()
			}
		}
		return err
	})
}

// readClearable reads a pointer field of the former decoder's attrs (*int32, *bool, *string):
// null clears it (has false), a value sets it.
func readClearable[T any](null bool, has *bool, v *T, read func() (T, error)) (err error) {
	*has = !null
	if !null {
		*v, err = read()
	}
	return err
}

// readUnlessNull reads a plain field of the former decoder's attrs: null leaves it as it was.
func readUnlessNull[T any](null bool, v *T, read func() (T, error)) (err error) {
	if !null {
		*v, err = read()
	}
	return err
}

// markList reads a "marks" value: null, or an array of marks.
func (d *docDecoder) markList() ([]Mark, error) {
	return readList(d, &d.marks, d.mark, func(n int) []Mark { return make([]Mark, n) })
}

// mark reads a mark object as the former (*Mark).UnmarshalJSON did.
func (d *docDecoder) mark() (Mark, error) {
	if d.peek() != '{' {
		return Mark{}, d.typeError("mark")
	}
	var (
		m        Mark
		attrs    wireAttrs
		hasAttrs bool
	)
	err := d.object(func(k wireKey) (err error) {
		switch k {
		case keyType:
			if !d.null() {
				var name string
				name, err = d.string()
				m.Type = MarkType(name)
			}
		case keyAttrs:
			if d.null() {
				attrs, hasAttrs = wireAttrs{}, false
				return nil
			}
			hasAttrs = true
			err = d.attrs(&attrs)
		default:
			err = d.skip()
		}
		return err
	})
	if err != nil {
		return Mark{}, err
	}
	if hasAttrs {
		if attrs.hasHref {
			m.Href = attrs.href
		}
		m.Title = attrs.title
	}
	return m, nil
}
