package etag_test

import (
	"errors"
	"testing"

	"folio/platform/etag"
)

func TestIfMatch(t *testing.T) {
	cur := etag.Of(3)
	if cur != `"v3"` {
		t.Fatalf("Of(3) = %s", cur)
	}
	for _, tc := range []struct {
		header string
		ok     bool
	}{
		{"", true},              // absent: matches everything
		{"*", true},             // any existing resource
		{`"v3"`, true},          // the current one
		{` "v1" , "v3"`, true},  // one of a list
		{`"v2"`, false},         // stale
		{`W/"v3"`, false},       // weak tags never match strongly
		{`v3`, false},           // not an entity tag
		{`"v3,x", "v4"`, false}, // a comma inside quotes does not split
		{`"a,b", "v3"`, true},   // ... and the next tag still counts
		{`"v33"`, false},        // no prefix matching
		{`"v3" garbage`, false}, // not exactly the tag
		{`*, "v1"`, false},      // "*" only alone
		{`"V3"`, false},         // case matters
		{`""`, false},           // the empty tag
		{`W/"v2", "v3"`, true},  // a weak one beside the strong current one
		{`"v2", W/"v3"`, false}, // the current one only weak
		{`"v3" "v3"`, false},    // no comma
		{`"v3" ,"v4"`, true},    // spaces around comma
		{`"*"`, false},          // a tag whose value is *
		{`" v3"`, false},        // space inside
		{`"v3"; q=1`, false},    // parameters
	} {
		err := etag.ParseIfMatch(tc.header).Check(cur)
		if (err == nil) != tc.ok {
			t.Errorf("If-Match %q against %s: %v, want ok=%v", tc.header, cur, err, tc.ok)
		}
		if err != nil && !errors.Is(err, etag.ErrPreconditionFailed) {
			t.Errorf("If-Match %q: %v is not PRECONDITION_FAILED", tc.header, err)
		}
	}
	if etag.ParseIfMatch("").Present() || !etag.ParseIfMatch("*").Present() {
		t.Error("Present")
	}
}

func TestNoneMatch(t *testing.T) {
	cur := etag.Of(7)
	for _, tc := range []struct {
		header string
		match  bool
	}{
		{"", false},
		{"*", true},
		{`"v7"`, true},
		{`W/"v7"`, true}, // weak comparison
		{`"v1", W/"v7"`, true},
		{`"v1"`, false},
		{`v7`, false},
	} {
		if got := etag.NoneMatch(tc.header, cur); got != tc.match {
			t.Errorf("If-None-Match %q against %s: %v, want %v", tc.header, cur, got, tc.match)
		}
	}
}
