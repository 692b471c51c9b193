// Package etag makes the strong ETags of folio's single resources and evaluates the conditional
// request headers against them (CONTRACT.md section 12).
//
// An ETag is derived from a version counter the database holds for the row (a column incremented
// in the same UPDATE that changes the row), never from hashing a response body: a GET or an
// If-Match check costs nothing beyond the row it reads anyway.
package etag

import (
	"net/http"
	"strconv"
	"strings"

	"folio/platform/apierr"
)

// CodePreconditionFailed is the code of a 412: the If-Match ETag is not the resource's current one.
const CodePreconditionFailed = "PRECONDITION_FAILED"

// ErrPreconditionFailed is 412 PRECONDITION_FAILED; nothing was changed.
var ErrPreconditionFailed = apierr.New(http.StatusPreconditionFailed, CodePreconditionFailed,
	"header \"If-Match\" does not match the resource's current ETag: it changed since you read it; GET it again and retry with its new ETag")

// Of is the strong ETag of a row at version: "v<version>" (quoted, as the header carries it).
func Of(version int64) string { return `"v` + strconv.FormatInt(version, 10) + `"` }

// IfMatch is a parsed If-Match header. The zero value means the header was absent: it matches
// everything, so a request without it behaves as SPEC.md says.
type IfMatch struct {
	present bool
	any     bool     // If-Match: *
	tags    []string // the listed entity tags, quotes included
}

// ParseIfMatch reads an If-Match header value ("" when absent): "*" or a comma-separated list of
// entity tags.
func ParseIfMatch(header string) IfMatch {
	header = strings.TrimSpace(header)
	if header == "" {
		return IfMatch{}
	}
	m := IfMatch{present: true}
	if header == "*" {
		m.any = true
		return m
	}
	m.tags = splitTags(header)
	return m
}

// Present reports whether the request carried If-Match.
func (m IfMatch) Present() bool { return m.present }

// Check returns ErrPreconditionFailed unless current, the resource's ETag as it is now (read under
// the row's lock), satisfies the header. Comparison is strong (RFC 9110 section 13.1.1): a weak
// tag W/"..." never matches. "*" matches any existing resource; the caller has already answered
// 404 for one that does not exist.
func (m IfMatch) Check(current string) error {
	if !m.present || m.any {
		return nil
	}
	for _, t := range m.tags {
		if t == current {
			return nil
		}
	}
	return ErrPreconditionFailed
}

// NoneMatch reports whether an If-None-Match header value matches current, so that a GET answers
// 304 Not Modified. Comparison is weak (RFC 9110 section 13.1.2): W/"x" matches "x".
func NoneMatch(header, current string) bool {
	header = strings.TrimSpace(header)
	if header == "" {
		return false
	}
	if header == "*" {
		return true
	}
	current = strings.TrimPrefix(current, "W/")
	for _, t := range splitTags(header) {
		if strings.TrimPrefix(t, "W/") == current {
			return true
		}
	}
	return false
}

// splitTags splits a list of entity tags at commas outside quotes.
func splitTags(s string) []string {
	var out []string
	inQuote, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			inQuote = !inQuote
		case ',':
			if !inQuote {
				if t := strings.TrimSpace(s[start:i]); t != "" {
					out = append(out, t)
				}
				start = i + 1
			}
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}
