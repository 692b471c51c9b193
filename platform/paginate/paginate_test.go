package paginate_test

import (
	"errors"
	"strings"
	"testing"

	"folio/platform/apierr"
	"folio/platform/ids"
	"folio/platform/paginate"
)

func TestParse(t *testing.T) {
	id := ids.New()
	for _, tc := range []struct {
		name          string
		limit         string
		limitPresent  bool
		cursor        string
		numeric       bool
		want          paginate.Params
		wantErrNaming string // "" means no error; otherwise the parameter the message must name
	}{
		{name: "defaults", want: paginate.Params{Limit: 20}},
		{name: "limit 1", limit: "1", limitPresent: true, want: paginate.Params{Limit: 1}},
		{name: "limit 100", limit: "100", limitPresent: true, want: paginate.Params{Limit: 100}},
		{name: "limit 101 is clamped", limit: "101", limitPresent: true, want: paginate.Params{Limit: 100}},
		{name: "limit 1000 is clamped", limit: "1000", limitPresent: true, want: paginate.Params{Limit: 100}},
		{name: "huge limit is clamped", limit: "9223372036854775807", limitPresent: true, want: paginate.Params{Limit: 100}},
		{name: "limit 0", limit: "0", limitPresent: true, wantErrNaming: "limit"},
		{name: "limit -1", limit: "-1", limitPresent: true, wantErrNaming: "limit"},
		{name: "limit abc", limit: "abc", limitPresent: true, wantErrNaming: "limit"},
		{name: "limit 1.5", limit: "1.5", limitPresent: true, wantErrNaming: "limit"},
		{name: "limit with spaces", limit: " 5", limitPresent: true, wantErrNaming: "limit"},
		{name: "limit present but empty", limit: "", limitPresent: true, wantErrNaming: "limit"},
		{name: "limit overflowing int64 is clamped", limit: "99999999999999999999", limitPresent: true, want: paginate.Params{Limit: 100}},
		{name: "negative limit overflowing int64", limit: "-99999999999999999999", limitPresent: true, wantErrNaming: "limit"},
		{name: "id cursor", cursor: id, want: paginate.Params{Limit: 20, Cursor: id}},
		{name: "id cursor with limit", limit: "5", limitPresent: true, cursor: id, want: paginate.Params{Limit: 5, Cursor: id}},
		{name: "malformed id cursor", cursor: "not-an-id", wantErrNaming: "cursor"},
		{name: "upper-case id cursor", cursor: strings.ToUpper(id), wantErrNaming: "cursor"},
		{name: "numeric cursor where an id is expected", cursor: "42", wantErrNaming: "cursor"},
		{name: "numeric cursor", cursor: "42", numeric: true, want: paginate.Params{Limit: 20, Cursor: "42"}},
		{name: "numeric cursor 0", cursor: "0", numeric: true, wantErrNaming: "cursor"},
		{name: "numeric cursor negative", cursor: "-3", numeric: true, wantErrNaming: "cursor"},
		{name: "numeric cursor not a number", cursor: "abc", numeric: true, wantErrNaming: "cursor"},
		{name: "id cursor where a number is expected", cursor: id, numeric: true, wantErrNaming: "cursor"},
		{name: "bad limit is reported before a bad cursor", limit: "0", limitPresent: true, cursor: "x", wantErrNaming: "limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := paginate.Parse(tc.limit, tc.limitPresent, tc.cursor, tc.numeric)
			if tc.wantErrNaming == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if got != tc.want {
					t.Fatalf("got %+v, want %+v", got, tc.want)
				}
				return
			}
			var ae *apierr.Error
			if !errors.As(err, &ae) {
				t.Fatalf("got %+v, %v; want a VALIDATION_ERROR", got, err)
			}
			if ae.Status != 400 || ae.Code != apierr.CodeValidation {
				t.Fatalf("got %d %s, want 400 VALIDATION_ERROR", ae.Status, ae.Code)
			}
			if !strings.Contains(ae.Message, `"`+tc.wantErrNaming+`"`) {
				t.Fatalf("message %q does not name %q", ae.Message, tc.wantErrNaming)
			}
			if tc.wantErrNaming == "cursor" && !paginate.IsUnknownCursor(err) {
				t.Fatalf("a bad cursor should be the unknown-cursor error: %v", err)
			}
		})
	}
}
