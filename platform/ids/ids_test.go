package ids_test

import (
	"testing"

	"folio/platform/ids"
)

func TestNewIsValidAndUnique(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 10000; i++ {
		id := ids.New()
		if !ids.Valid(id) {
			t.Fatalf("New() = %q is not valid", id)
		}
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		seen[id] = true
	}
}

func TestValid(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"a23456789012345678901234", true},
		{"123456789012345678901234", false},
		{"A23456789012345678901234", false},
		{"a2345678901234567890123", false},
		{"a234567890123456789012345", false},
		{"a2345678901234567890123-", false},
		{"", false},
		{"a2345678901234567890123\u00e9", false},
	} {
		if got := ids.Valid(tc.in); got != tc.want {
			t.Errorf("Valid(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
