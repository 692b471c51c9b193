package suggestions

import (
	"strings"
	"testing"

	"folio/modules/content"
	"folio/modules/document"
	"folio/platform/markdown"
)

// TestApprovedNeverOverwritesWhatItCannotCompare: when the suggestion's original document cannot
// be read (a damaged row), approving fails; it never applies the suggested content in place of
// the current one, which may hold an edit made since.
func TestApprovedNeverOverwritesWhatItCannotCompare(t *testing.T) {
	doc := func(text string) markdown.Doc {
		t.Helper()
		p, err := document.Parse("content", text)
		if err != nil {
			t.Fatal(err)
		}
		return p.Doc
	}
	suggested, err := markdown.Encode(doc("A\n\nb"))
	if err != nil {
		t.Fatal(err)
	}
	item := content.Item{Kind: "note", Content: doc("a\n\nB, by Ann")}
	sg := Suggestion{OriginalContent: []byte("not a stored document"), SuggestedContent: suggested}
	texts := content.Suggestion{OriginalContent: "a\n\nb", SuggestedContent: "A\n\nb"}
	got, _, _, err := approved(item, sg, texts, ApproveRequest{})
	if err == nil {
		t.Fatalf("approving with an unreadable original stored %q", got.Markdown)
	}
}

// TestChooseQuotesLittle: a hunk index that is not one is named in the 400's message, shortened:
// a body of up to 1 MiB is not echoed back whole.
func TestChooseQuotesLittle(t *testing.T) {
	pl := plan("a\n\nb", "a\n\nb", "A\n\nb")
	for _, raw := range []string{"1" + strings.Repeat("0", 100_000), `"` + strings.Repeat("x", 100_000) + `"`} {
		_, err := pl.choose([]string{raw})
		if err == nil {
			t.Fatalf("%.20s… was taken for a hunk index", raw)
		}
		if msg := err.Error(); len(msg) > 400 || !strings.Contains(msg, raw[:20]) {
			t.Fatalf("the message quotes %d bytes: %.300s", len(msg), msg)
		}
	}
}

// TestConflictSaysWhy: a merge refused because the codec would not keep it (here, longer than
// the content's limit) is a conflict whose message says so, not that changes overlap.
func TestConflictSaysWhy(t *testing.T) {
	a, b, more := strings.Repeat("a", 30_000), strings.Repeat("b", 30_000), strings.Repeat(" x", 12_000)
	base := a + "\n\nmid\n\n" + b
	pl := plan(base, a+"\n\nmid\n\n"+b+more, a+more+"\n\nmid\n\n"+b)
	if pl.Mergeable() {
		t.Fatal("a merge over the length limit was mergeable")
	}
	msg := pl.conflictError("note").Error()
	if strings.Contains(msg, "overlap") || !strings.Contains(msg, "at most 100000 characters") {
		t.Fatalf("message %q", msg)
	}
	// Overlapping changes still say so.
	pl = plan("a\n\nb", "a\n\nB", "a\n\nb2")
	if msg := pl.conflictError("note").Error(); !strings.Contains(msg, "overlap") {
		t.Fatalf("message %q", msg)
	}
}
