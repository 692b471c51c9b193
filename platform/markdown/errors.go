package markdown

import (
	"errors"
	"fmt"
)

// ErrInvalid is the sentinel behind every rejection: errors.Is(err, ErrInvalid)
// is true for each *Error that Parse returns. The HTTP layer maps it to
// 400 INVALID_MARKDOWN.
var ErrInvalid = errors.New("invalid markdown")

// Constructs named by Error.Construct.
const (
	ConstructImage   = "image"
	ConstructUTF8    = "invalid UTF-8"
	ConstructNUL     = "NUL byte"
	ConstructScheme  = "link scheme"
	ConstructNesting = "nesting"
	ConstructLength  = "length"
)

// Error reports Markdown that cannot be stored without losing content. Its
// message names the construct and the 1-based line where it starts.
type Error struct {
	// Construct is one of the Construct* constants.
	Construct string
	// Line is the 1-based line of the input where the construct starts.
	Line int
	// Detail is an optional precision, such as the rejected scheme. For
	// ConstructLength it is the whole explanation.
	Detail string
	// Hint, when not empty, says how to write what was meant (a link to
	// localhost:3000 is written http://localhost:3000).
	Hint string
}

func (e *Error) Error() string {
	switch e.Construct {
	case ConstructImage:
		return fmt.Sprintf("images are not supported (line %d)", e.Line)
	case ConstructUTF8:
		return fmt.Sprintf("invalid UTF-8 (line %d)", e.Line)
	case ConstructNUL:
		return fmt.Sprintf("NUL bytes are not allowed (line %d)", e.Line)
	case ConstructScheme:
		if e.Hint != "" {
			return fmt.Sprintf("link scheme %q is not allowed, only http, https and mailto (line %d): %s", e.Detail, e.Line, e.Hint)
		}
		return fmt.Sprintf("link scheme %q is not allowed, only http, https and mailto (line %d)", e.Detail, e.Line)
	case ConstructNesting:
		return fmt.Sprintf("lists and quotes nested deeper than %d levels are not supported (line %d)", MaxNesting, e.Line)
	case ConstructLength:
		// Line 0: found on the whole document (the exact check).
		if e.Line == 0 {
			return e.Detail
		}
		return fmt.Sprintf("%s (passed at line %d)", e.Detail, e.Line)
	}
	return fmt.Sprintf("%s is not supported (line %d)", e.Construct, e.Line)
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *Error) Unwrap() error { return ErrInvalid }

func invalid(construct string, line int, detail string) *Error {
	return &Error{Construct: construct, Line: line, Detail: detail}
}
