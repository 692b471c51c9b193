package buildinfo

import (
	"strings"
	"testing"
)

// TestLinkedRevision: a revision and time set at link time (the image builds) show in the version
// line when Go stamped none (tests run with -buildvcs=false here, as the image builds do).
func TestLinkedRevision(t *testing.T) {
	defer func(r, c string) { revision, commitTime = r, c }(revision, commitTime)
	revision, commitTime = "0123456789abcdef", "2026-11-26T05:00:00Z"
	got := Read()
	if got.Revision != "0123456789abcdef" || got.Time != "2026-11-26T05:00:00Z" {
		t.Fatalf("Read() = %+v", got)
	}
	if line := got.String(); !strings.Contains(line, "commit 0123456789abcdef (2026-11-26T05:00:00Z)") || !strings.HasPrefix(line, "folio ") {
		t.Fatalf("version line %q", line)
	}
}
