package suggestions

import (
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
