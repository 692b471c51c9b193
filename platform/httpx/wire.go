package httpx

import (
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"folio/platform/apierr"
)

// TimeFormat is the wire format of every timestamp: UTC with milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Time formats t for the wire.
func Time(t time.Time) string { return t.UTC().Format(TimeFormat) }

// TimePtr formats t, or returns nil (JSON null) when t is nil.
func TimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := Time(*t)
	return &s
}

// ParseDate accepts an RFC 3339 date-time with any offset (converted to UTC) or a plain
// YYYY-MM-DD date (00:00 UTC). Precision beyond milliseconds is dropped, as the wire shows only ms.
// RFC 3339 allows a lower-case t and z (Go's parser does not); its offsets stop at 23:59 (Go's
// parser also takes 24:00); and the instant in UTC must keep a four-digit year:
// 9999-12-31T23:00:00-02:00 is in the year 10000, which the wire format cannot show and
// PostgreSQL cannot read back into Go.
func ParseDate(field, s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s)); err == nil {
		_, offset := t.Zone()
		if u := t.UTC(); offset > -86400 && offset < 86400 && u.Year() >= 0 && u.Year() <= 9999 {
			return u.Truncate(time.Millisecond), nil
		}
	} else if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, apierr.Validation("field %q must be an ISO 8601 date (YYYY-MM-DD) or an RFC 3339 date-time between years 0000 and 9999 UTC", field)
}

// QueryBool reads a boolean query parameter: absent gives def; "true" and "false" only.
func QueryBool(c *gin.Context, name string, def bool) (bool, error) {
	return ParseBool(name, QueryValue(c, name), def)
}

// ParseBool reads the value of the boolean query parameter name: nil (absent) gives def; "true"
// and "false" only.
func ParseBool(name string, v *string, def bool) (bool, error) {
	if v == nil {
		return def, nil
	}
	switch *v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, apierr.Validation("query parameter %q must be true or false", name)
}

// QueryValue returns a query parameter's value, nil when it is absent (present but empty is "").
func QueryValue(c *gin.Context, name string) *string {
	if v, ok := c.GetQuery(name); ok {
		return &v
	}
	return nil
}

// QueryString reads an optional string query parameter; present but empty counts as absent.
func QueryString(c *gin.Context, name string) (string, bool) {
	v, ok := c.GetQuery(name)
	return v, ok && v != ""
}

// QueryInt reads an optional integer query parameter.
func QueryInt(c *gin.Context, name string) (int, bool, error) {
	v, ok := c.GetQuery(name)
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, true, apierr.Validation("query parameter %q must be an integer", name)
	}
	return n, true, nil
}

// OK is the body of the responses that only confirm: {"ok": true}.
var OK = gin.H{"ok": true}

// OptionalDate parses an optional, nullable date field: absent gives nil, null a pointer to nil
// (clear the date), a value a pointer to the parsed time.
func OptionalDate(field string, o Optional[string]) (**time.Time, error) {
	if !o.Present {
		return nil, nil
	}
	var t *time.Time
	if !o.Null {
		parsed, err := ParseDate(field, o.Value)
		if err != nil {
			return nil, err
		}
		t = &parsed
	}
	return &t, nil
}

// DateOrNil parses an optional, nullable date field where null and absent mean the same, no
// date (a create's): nil, or the parsed time.
func DateOrNil(field string, o Optional[string]) (*time.Time, error) {
	t, err := OptionalDate(field, o)
	if t == nil || err != nil {
		return nil, err
	}
	return *t, nil
}
