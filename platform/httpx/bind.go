package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"folio/platform/apierr"
)

// Optional is a body field whose absence, explicit null and value must be told apart (PATCH).
// A field of this type accepts null only when its struct tag says `nullable:"true"`.
type Optional[T any] struct {
	Present bool // the field was in the body
	Null    bool // the field was null
	Value   T
}

func (o *Optional[T]) setPresent(null bool) { o.Present, o.Null = true, null }

// UnmarshalJSON reads an Optional outside Bind (an MCP tool's arguments) by the same rule:
// present, null, or a value (encoding/json calls it with null for a value type, and not at all
// for an absent field). Bind itself decodes into valuePtr.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		o.setPresent(true)
		return nil
	}
	o.setPresent(false)
	return json.Unmarshal(b, &o.Value)
}
func (o *Optional[T]) valuePtr() any { return &o.Value }

type optional interface {
	setPresent(null bool)
	valuePtr() any
}

// Echoes marks a request type with the response type a client reads back: embedded in a request
// struct (httpx.Echoes[noteResponse]), it makes Bind answer a field that the response has and the
// request does not ("id", "tags", "createdAt" ...) with "set by the server" rather than "unknown
// field". Each module declares it on its own requests, so no list here names another module's
// fields, and the set can never drift from the response type.
type Echoes[Response any] struct{}

func (Echoes[Response]) responseType() reflect.Type { return reflect.TypeFor[Response]() }

type echoer interface{ responseType() reflect.Type }

var echoerType = reflect.TypeFor[echoer]()

// serverFields returns the json names of the echoed response's fields (nil without Echoes).
func serverFields(t reflect.Type) map[string]bool {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.Anonymous || !sf.Type.Implements(echoerType) {
			continue
		}
		rt := reflect.Zero(sf.Type).Interface().(echoer).responseType()
		out := map[string]bool{}
		for j := 0; j < rt.NumField(); j++ {
			if name, _, _ := strings.Cut(rt.Field(j).Tag.Get("json"), ","); name != "" && name != "-" {
				out[name] = true
			}
		}
		return out
	}
	return nil
}

// Bind decodes the request body into dst, a pointer to a struct whose fields carry `json` tags,
// strictly: the body must be application/json and a JSON object; an unknown or server-derived
// field, a wrong JSON type, a null where none is allowed or a NUL character in a string (except in
// fields tagged `markdown:"true"`, which the codec checks) is 400 VALIDATION_ERROR naming the field; a field tagged `binding:"required"` that is absent or null is 400 MISSING_FIELD.
func Bind(c *gin.Context, dst any) error {
	body, err := readObject(c)
	if err != nil {
		return err
	}
	if bindOnce(body, dst) {
		return nil
	}
	obj, err := decodeObject(body)
	if err != nil {
		return err
	}
	return bindFields(obj, dst)
}

// BindIfAny is Bind for an endpoint whose body is optional (SPEC.md's approve takes none): a body
// that is empty, only white space, or JSON null (what many clients send for "nothing") binds
// nothing and answers false, whatever its Content-Type; any other body is bound as Bind binds it,
// and answers true.
func BindIfAny(c *gin.Context, dst any) (bool, error) {
	body, err := readBody(c)
	if err != nil {
		return false, err
	}
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || string(trimmed) == "null" {
		return false, nil
	}
	c.Request.Body = io.NopCloser(bytes.NewReader(body))
	return true, Bind(c, dst)
}

func readBody(c *gin.Context) ([]byte, error) {
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		var maxErr *http.MaxBytesError
		if errors.As(err, &maxErr) {
			return nil, errBodyTooLarge
		}
		return nil, apierr.Validation("the request body could not be read")
	}
	return body, nil
}

// readObject reads the body of a JSON request and checks what holds before any decoding: the
// Content-Type, the size, UTF-8, no lone surrogate escape, an object's opening brace. It returns
// the body without its surrounding white space.
func readObject(c *gin.Context) ([]byte, error) {
	mt, _, err := mime.ParseMediaType(c.GetHeader("Content-Type"))
	if err != nil || mt != "application/json" {
		return nil, apierr.Validation("Content-Type must be application/json")
	}
	body, err := readBody(c)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(body) {
		return nil, apierr.Validation("the request body is not valid UTF-8")
	}
	if loneSurrogate(body) {
		// encoding/json would store U+FFFD in its place without a word.
		return nil, apierr.Validation("the request body is not valid UTF-8: a \\u escape writes half of a UTF-16 surrogate pair")
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, apierr.Validation("the request body must be a JSON object")
	}
	return trimmed, nil
}

// decodeObject decodes body, one JSON object, into its members.
func decodeObject(body []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return nil, apierr.Validation("the request body is not valid JSON: %s", jsonProblem(err))
	}
	if dec.More() {
		return nil, apierr.Validation("the request body must hold exactly one JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, apierr.Validation("the request body must hold exactly one JSON object")
	}
	return obj, nil
}

// loneSurrogate reports a JSON string escape \uD800-\uDFFF that is not a high
// surrogate directly followed by the escape of a low one: it stands for no
// character, and encoding/json decodes it as U+FFFD. Outside strings valid
// JSON has no backslash; an invalid body is refused by the decoder anyway.
func loneSurrogate(body []byte) bool {
	if bytes.IndexByte(body, '\\') < 0 {
		return false
	}
	inString := false
	for i := 0; i < len(body); i++ {
		switch ch := body[i]; {
		case ch == '"':
			inString = !inString
		case ch == '\\' && inString:
			if i+1 < len(body) && body[i+1] == 'u' {
				r, ok := hex4(body, i+2)
				switch {
				case !ok:
				case r >= 0xD800 && r <= 0xDBFF:
					low, ok := rune(0), false
					if i+7 < len(body) && body[i+6] == '\\' && body[i+7] == 'u' {
						low, ok = hex4(body, i+8)
					}
					if !ok || low < 0xDC00 || low > 0xDFFF {
						return true
					}
					i += 11 // the pair; the loop adds one
					continue
				case r >= 0xDC00 && r <= 0xDFFF:
					return true
				}
			}
			i++ // the escaped character
		}
	}
	return false
}

// hex4 reads four hexadecimal digits at body[i:].
func hex4(body []byte, i int) (rune, bool) {
	if i+4 > len(body) {
		return 0, false
	}
	var r rune
	for _, ch := range body[i : i+4] {
		switch {
		case ch >= '0' && ch <= '9':
			r = r<<4 | rune(ch-'0')
		case ch|0x20 >= 'a' && ch|0x20 <= 'f':
			r = r<<4 | rune(ch|0x20-'a'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func jsonProblem(err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return syn.Error()
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return "malformed"
}

// bindField is one field Bind fills: its JSON name, where it is in the struct and what its tags
// say.
type bindField struct {
	name     string
	index    []int
	required bool // binding:"required": absent or null is MISSING_FIELD
	nullable bool // nullable:"true" (an Optional only)
	markdown bool // markdown:"true": a NUL is the codec's to refuse
	text     bool // a plain string: the one-pass path reads it as a token
}

// bindPlan is a request type's fields in their declared order (the fields of an embedded struct,
// a set two requests share, count as the type's own, in their place, as encoding/json sees them),
// built once per type.
type bindPlan struct {
	fields []bindField
	byName map[string]int
	server map[string]bool // the echoed response's fields (Echoes)
	// onePass: bindOnce may read the type: no two fields share a JSON name (the reference reading
	// fills both) and the fields fit its 64-bit record of the members seen.
	onePass bool
}

var bindPlans sync.Map // reflect.Type → *bindPlan

func planOf(t reflect.Type) *bindPlan {
	if p, ok := bindPlans.Load(t); ok {
		return p.(*bindPlan)
	}
	p := &bindPlan{byName: map[string]int{}, server: serverFields(t), onePass: true}
	for _, sf := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if sf.Anonymous || name == "" || name == "-" {
			continue
		}
		if _, twice := p.byName[name]; twice {
			p.onePass = false
		}
		p.byName[name] = len(p.fields)
		p.fields = append(p.fields, bindField{name: name, index: sf.Index, required: sf.Tag.Get("binding") == "required",
			nullable: sf.Tag.Get("nullable") == "true", markdown: sf.Tag.Get("markdown") == "true", text: sf.Type == reflect.TypeFor[string]()})
	}
	p.onePass = p.onePass && len(p.fields) <= 64
	bindPlans.Store(t, p)
	return p
}

// bindFields fills dst's fields in their declared order from the body's members: the reference
// reading, whose first error is the one a request gets.
func bindFields(obj map[string]json.RawMessage, dst any) error {
	v := reflect.ValueOf(dst).Elem()
	plan := planOf(v.Type())
	// Unknown fields first, in a stable order, so the message does not depend on map order.
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		if _, known := plan.byName[name]; !known {
			if plan.server[name] {
				return apierr.Validation("field %q is set by the server and cannot be sent", name)
			}
			return apierr.Validation("unknown field %q", name)
		}
	}
	for _, f := range plan.fields {
		raw, present := obj[f.name]
		if !present {
			if f.required {
				return apierr.MissingField(f.name)
			}
			continue
		}
		if err := f.set(v.FieldByIndex(f.index), raw); err != nil {
			return err
		}
	}
	return nil
}

// set decodes raw, the field's JSON value, into fv.
func (f *bindField) set(fv reflect.Value, raw json.RawMessage) error {
	isNull := string(bytes.TrimSpace(raw)) == "null"
	if isNull && f.required {
		return apierr.MissingField(f.name)
	}
	target := fv.Addr().Interface()
	if opt, ok := target.(optional); ok {
		if isNull {
			if !f.nullable {
				return apierr.Validation("field %q may not be null", f.name)
			}
			opt.setPresent(true)
			return nil
		}
		opt.setPresent(false)
		target = opt.valuePtr()
	} else if isNull {
		return apierr.Validation("field %q may not be null", f.name)
	}
	if err := json.Unmarshal(raw, target); err != nil {
		return apierr.Validation("field %q must be %s", f.name, jsonTypeName(reflect.TypeOf(target).Elem()))
	}
	// PostgreSQL text cannot hold NUL, and no plain-text field needs it. Markdown fields are
	// left to the codec, which rejects NUL as INVALID_MARKDOWN naming the line.
	if str, ok := target.(*string); ok && f.refusesNUL(*str) {
		return apierr.Validation("field %q must not contain NUL characters", f.name)
	}
	return nil
}

// refusesNUL reports a NUL in str where the field may not hold one (any but Markdown).
func (f *bindField) refusesNUL(str string) bool {
	return !f.markdown && strings.IndexByte(str, 0) >= 0
}

// bindOnce is bindFields' reading in one pass over the body (issue 35: a create's body, 2 KB of
// Markdown, was scanned four times), for a body bindFields would accept: each member is decoded
// once, straight into its field, a plain string as a token. At anything else (a syntax error, an
// unknown, repeated or missing member, a null, a wrong type, a NUL), it zeroes dst again and
// answers false, and Bind reads the body the reference way, whose error the request gets. So both
// readings fill the same fields alike, and only the reference one decides errors
// (TestBindOnceAgrees). It reads into a zero dst only (every request's `var req`), which it can
// put back exactly.
func bindOnce(body []byte, dst any) (ok bool) {
	v := reflect.ValueOf(dst).Elem()
	plan := planOf(v.Type())
	if !plan.onePass || !v.IsZero() {
		return false
	}
	defer func() {
		if !ok {
			v.SetZero()
		}
	}()
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	var seen uint64 // bit i: plan.fields[i]'s member was read
	for dec.More() {
		tok, err := dec.Token()
		name, isName := tok.(string)
		if err != nil || !isName {
			return false
		}
		i, known := plan.byName[name]
		if !known || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		f := &plan.fields[i]
		fv := v.FieldByIndex(f.index)
		if f.text {
			tok, err := dec.Token()
			str, isString := tok.(string)
			if err != nil || !isString || f.refusesNUL(str) {
				return false
			}
			fv.SetString(str)
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil || f.set(fv, raw) != nil {
			return false
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		return false
	}
	for i, f := range plan.fields {
		if f.required && seen&(1<<i) == 0 {
			return false
		}
	}
	return true
}

func jsonTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Pointer:
		return jsonTypeName(t.Elem())
	default:
		return "an object"
	}
}
