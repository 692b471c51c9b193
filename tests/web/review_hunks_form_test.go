package web

import (
	"net/http"
	"net/url"
	"testing"

	"folio/tests/apitest"
)

// TestReviewHunkChoices: the review page's approve form posts the ticked hunks (no JavaScript);
// a choice the suggestion refuses (none ticked, an index it does not have, one that is no
// number, one twice) is a 400 page and changes nothing; a partial choice applies only those
// hunks and says so.
func TestReviewHunkChoices(t *testing.T) {
	apitest.EachDB(t, func(t *testing.T, kind string) {
		f := newReviewFixture(t, kind)
		s, b := f.s, f.b
		// Two hunks: the first and last paragraphs.
		sug := f.suggest(t, "note", f.note, "Q4 plan, revised\n\nShip the importer in #october.\n\nOwner: @mia", "")
		p := b.get("/review/suggestions/" + sug)
		want(t, p, http.StatusOK, "Change 1, at line 1", "Change 2, at line 5")
		etag := itemETag(t, p)
		choose := func(hunks ...string) url.Values {
			return url.Values{"item_etag": {etag}, "choose_hunks": {"1"}, "hunk": hunks}
		}
		want(t, b.submit("/review/suggestions/"+sug+"/approve", choose()), http.StatusBadRequest, "Nothing was changed")
		for _, bad := range [][]string{{"2"}, {"-1"}, {"one"}, {"0", "0"}, {""}} {
			want(t, b.submit("/review/suggestions/"+sug+"/approve", choose(bad...)), http.StatusBadRequest, "Nothing was changed")
		}
		if got := apitest.Must(t, s.Get(t, f.key, "/suggestions/"+sug), 200).Str(t, "status"); got != "PENDING" {
			t.Fatalf("a refused choice resolved the suggestion: %s", got)
		}
		if got := apitest.Must(t, s.Get(t, f.key, "/notes/"+f.note), 200).Str(t, "content"); got != f.noteText {
			t.Fatalf("a refused choice changed the note: %q", got)
		}
		wantRedirect(t, b.submit("/review/suggestions/"+sug+"/approve", choose("1")), "/review?done=approved-part")
		want(t, b.get("/review?done=approved-part"), http.StatusOK, "Approved in part.")
		if got := apitest.Must(t, s.Get(t, f.key, "/notes/"+f.note), 200).Str(t, "content"); got != "Q4 plan\n\nShip the importer in #october.\n\nOwner: @mia" {
			t.Fatalf("after approving change 2 alone the note says %q", got)
		}
	})
}
