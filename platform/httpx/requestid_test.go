package httpx

import (
	"testing"

	"github.com/google/uuid"
)

// TestNewRequestID: a request id made by folio is a random UUIDv4 in uuid's text form, as
// uuid.NewString made it.
func TestNewRequestID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := newRequestID()
		u, err := uuid.Parse(id)
		if err != nil || len(id) != 36 || u.String() != id || u.Version() != 4 || u.Variant() != uuid.RFC4122 {
			t.Fatalf("%q: %v, version %d, variant %v", id, err, u.Version(), u.Variant())
		}
		if seen[id] {
			t.Fatalf("%q twice", id)
		}
		seen[id] = true
	}
}
