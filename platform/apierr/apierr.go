// Package apierr holds the one error type that crosses the HTTP boundary: an API code, an HTTP
// status and a public message, wrapping the internal cause (which is logged, never shown).
package apierr

import (
	"errors"
	"fmt"
	"net/http"
)

// Error is an error with a stable API code. Two Errors match with errors.Is when their codes match,
// so a module can declare `var ErrNotFound = apierr.NotFound("NOTE_NOT_FOUND", "note not found")`
// and callers can test for it whatever message or cause a particular occurrence carries.
type Error struct {
	Status  int    // HTTP status
	Code    string // API code, e.g. NOTE_NOT_FOUND
	Message string // public, human-readable; names the offending field where there is one
	Header  map[string]string
	// Details, when not nil, is written as the envelope's error.details: what a client needs to act
	// on the error beyond its message (SUGGESTION_CONFLICT's conflicting lines). The code's module
	// describes its shape in the OpenAPI document (x-folio-errors' details).
	Details any
	cause   error
}

// New returns an Error with the given status, code and public message.
func New(status int, code, message string) *Error {
	return &Error{Status: status, Code: code, Message: message}
}

// Error implements error. It includes the cause for logs; the envelope shows only Message.
func (e *Error) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.cause)
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	var t *Error
	if errors.As(target, &t) {
		return t.Code == e.Code
	}
	return false
}

// Wrap returns a copy of e that wraps cause.
func (e *Error) Wrap(cause error) *Error {
	c := *e
	c.cause = cause
	return &c
}

// WithMessage returns a copy of e with another public message.
func (e *Error) WithMessage(format string, args ...any) *Error {
	c := *e
	c.Message = fmt.Sprintf(format, args...)
	return &c
}

// WithDetails returns a copy of e whose envelope carries details as error.details.
func (e *Error) WithDetails(details any) *Error {
	c := *e
	c.Details = details
	return &c
}

// WithHeader returns a copy of e that sets a response header when written.
func (e *Error) WithHeader(key, value string) *Error {
	c := *e
	c.Header = map[string]string{}
	for k, v := range e.Header {
		c.Header[k] = v
	}
	c.Header[key] = value
	return &c
}

// Codes shared by every module. Module-specific codes (NOTE_NOT_FOUND, ...) live in the module's errors.go.
const (
	CodeValidation       = "VALIDATION_ERROR"
	CodeMissingField     = "MISSING_FIELD"
	CodeInvalidMarkdown  = "INVALID_MARKDOWN"
	CodeUnauthenticated  = "UNAUTHENTICATED"
	CodeInsufficient     = "INSUFFICIENT_SCOPE"
	CodeKeyNotebook      = "KEY_NOTEBOOK_MISMATCH"
	CodeKeyWorkspace     = "KEY_WORKSPACE_MISMATCH"
	CodeItemLimit        = "ITEM_LIMIT_REACHED"
	CodeNotMember        = "NOT_WORKSPACE_MEMBER"
	CodeRateLimited      = "RATE_LIMIT_EXCEEDED"
	CodeRouteNotFound    = "ROUTE_NOT_FOUND"
	CodeMethodNotAllowed = "METHOD_NOT_ALLOWED"
	CodeCSRF             = "CSRF_TOKEN_INVALID"
	CodeHeadersTooLarge  = "REQUEST_HEADERS_TOO_LARGE"
	CodeUnavailable      = "SERVICE_UNAVAILABLE"
	CodeInternal         = "INTERNAL_ERROR"
)

// Validation is a 400 VALIDATION_ERROR whose message should name the field or parameter.
func Validation(format string, args ...any) *Error {
	return New(http.StatusBadRequest, CodeValidation, fmt.Sprintf(format, args...))
}

// MissingField is a 400 MISSING_FIELD for a required body field that is absent or null.
func MissingField(field string) *Error {
	return New(http.StatusBadRequest, CodeMissingField, fmt.Sprintf("field %q is required", field))
}

// Forbidden is a 403 with the given code.
func Forbidden(code, message string) *Error { return New(http.StatusForbidden, code, message) }

// NotFound is a 404 with the given code.
func NotFound(code, message string) *Error { return New(http.StatusNotFound, code, message) }

// Conflict is a 409 with the given code.
func Conflict(code, message string) *Error { return New(http.StatusConflict, code, message) }

// Shared errors.
var (
	ErrUnauthenticated = New(http.StatusUnauthorized, CodeUnauthenticated, "a valid API key or session is required")
	ErrInsufficient    = Forbidden(CodeInsufficient, "this key's scope does not allow this request")
	ErrKeyNotebook     = Forbidden(CodeKeyNotebook, "this key is restricted to another notebook")
	ErrKeyWorkspace    = Forbidden(CodeKeyWorkspace, "this key is restricted to another workspace")
	ErrNotMember       = Forbidden(CodeNotMember, "you are not a member of this workspace")
	ErrItemLimit       = Forbidden(CodeItemLimit, "the notebook has reached its item limit")
	ErrRateLimited     = New(http.StatusTooManyRequests, CodeRateLimited, "rate limit exceeded; retry after 60 seconds").WithHeader("Retry-After", "60")
	ErrRouteNotFound   = NotFound(CodeRouteNotFound, "no route matches this path")
	ErrMethodNotAllow  = New(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "this method is not allowed on this path")
	ErrCSRF            = Forbidden(CodeCSRF, "a valid X-CSRF-Token header is required for cookie-authenticated writes")
	ErrInternal        = New(http.StatusInternalServerError, CodeInternal, "internal error")
	ErrUnavailable     = New(http.StatusServiceUnavailable, CodeUnavailable, "the service is temporarily unavailable").WithHeader("Retry-After", RetryAfterUnavailable)
	ErrDatabaseDown    = ErrUnavailable.WithMessage("the database cannot be reached; retry in a few seconds")
)

// From returns the *Error in err's chain; when there is none, 503 SERVICE_UNAVAILABLE wrapping err
// if it says the database cannot be reached (see Unavailable), else 500 INTERNAL_ERROR wrapping
// err. This is the one place where causes that are not *Errors get their status.
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if Unavailable(err) {
		return ErrDatabaseDown.Wrap(err)
	}
	return ErrInternal.Wrap(err)
}
