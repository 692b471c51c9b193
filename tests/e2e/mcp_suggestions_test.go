package e2e

import (
	"net/http"
	"strings"
	"testing"

	"folio/tests/apitest"
)

// TestMCPGetSuggestion: get_suggestion answers GET /suggestions/:id byte for byte, with the hunks
// an assistant needs to propose again against the current text: for a fresh proposal, for one
// the owner's edit has made stale but mergeable, and for one whose change the owner's edit
// overlaps (mergeable false, its hunks leave the overlap out). list_suggestions and the proposal
// report mergeable as the API does.
func TestMCPGetSuggestion(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		c := mcpConnect(t, s, w.bobRW)
		note := createNote(t, s, w.annRW, w.teamNB, agenda)["id"].(string)

		proposed := c.mustCall(t, "propose_note_change", map[string]any{"id": note,
			"content": strings.NewReplacer("first item", "first item (assistant)", "third item", "third item (assistant)").Replace(agenda)})
		if proposed["mergeable"] != true {
			t.Fatalf("propose_note_change %v", proposed)
		}
		id := proposed["id"].(string)
		same := func(what string) map[string]any {
			t.Helper()
			o := c.call(t, "get_suggestion", map[string]any{"id": id})
			api := apitest.Must(t, s.Get(t, w.bobRW, "/suggestions/"+id), http.StatusOK)
			if o.code != "ok" || o.text != string(api.Body) {
				t.Fatalf("%s: get_suggestion %s %s\nthe API's body\n %s", what, o.code, o.text, api.Body)
			}
			return o.out.(map[string]any)
		}
		sg := same("fresh")
		wantHunks(t, sg, "3:-first item|+first item (assistant)", "7:-third item|+third item (assistant)")

		// Ann edits the last paragraph: stale, still mergeable, the same hunks.
		annEdit := strings.Replace(agenda, "fourth item", "fourth item (Ann)", 1)
		apitest.Must(t, patch(t, s, w.annRW, "/notes/"+note, map[string]any{"content": annEdit}), http.StatusOK)
		sg = same("stale")
		if sg["stale"] != true || sg["mergeable"] != true {
			t.Fatalf("stale: %v", sg)
		}
		wantHunks(t, sg, "3:-first item|+first item (assistant)", "7:-third item|+third item (assistant)")

		// Ann rewrites the third paragraph too: its change conflicts and is left out of hunks.
		annEdit = strings.Replace(annEdit, "third item", "third item (Ann)", 1)
		apitest.Must(t, patch(t, s, w.annRW, "/notes/"+note, map[string]any{"content": annEdit}), http.StatusOK)
		sg = same("conflicting")
		if sg["mergeable"] != false {
			t.Fatalf("conflicting: %v", sg)
		}
		wantHunks(t, sg, "3:-first item|+first item (assistant)")
		inbox := c.mustCall(t, "list_suggestions", map[string]any{})
		if data := inbox["data"].([]any); len(data) != 1 || data[0].(map[string]any)["mergeable"] != false {
			t.Fatalf("list_suggestions %v", inbox)
		}
		// Unknown and unreachable suggestions: the API's 404.
		if o := c.call(t, "get_suggestion", map[string]any{"id": "nope"}); o.code != "SUGGESTION_NOT_FOUND" {
			t.Fatalf("get_suggestion of an unknown id: %s %s", o.code, o.text)
		}
		carl := mcpConnect(t, s, w.carlRW)
		if o := carl.call(t, "get_suggestion", map[string]any{"id": id}); o.code != "SUGGESTION_NOT_FOUND" {
			t.Fatalf("get_suggestion of another's item: %s %s", o.code, o.text)
		}
	})
}
