package e2e

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"folio/modules/versions"
	"folio/tests/apitest"
)

// createNote posts a note and returns its body.
func createNote(t *testing.T, s *apitest.Server, key, notebookID, content string) map[string]any {
	t.Helper()
	return apitest.Must(t, s.Post(t, key, "/notes", map[string]any{"content": content, "notebookId": notebookID}), http.StatusCreated).JSON(t)
}

func patch(t *testing.T, s *apitest.Server, key, path string, body any) apitest.Response {
	t.Helper()
	return s.Do(t, apitest.Request{Method: http.MethodPatch, Path: path, Key: key, Body: body})
}

func tagNames(t *testing.T, note map[string]any) []string {
	t.Helper()
	var out []string
	for _, raw := range note["tags"].([]any) {
		tag := raw.(map[string]any)
		out = append(out, tag["kind"].(string)+":"+tag["name"].(string))
	}
	return out
}

func TestNoteLifecycle(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		note := createNote(t, s, w.annRW, w.teamNB, "Sync with @Bob about #Hiring and #budget\n\n> **Decision:** hire two engineers")
		if got := fieldNames(note); !slices.Equal(got, []string{"archived", "content", "createdAt", "followUpAt", "hasDecision", "id", "notebookId", "tags", "targetAt", "updatedAt"}) {
			t.Fatalf("note fields %v", got)
		}
		if note["hasDecision"] != true || note["archived"] != false || note["notebookId"] != w.teamNB || note["targetAt"] != nil {
			t.Fatalf("unexpected note %v", note)
		}
		if !wireTimeRE.MatchString(note["createdAt"].(string)) {
			t.Fatalf("createdAt %v", note["createdAt"])
		}
		if got := tagNames(t, note); !slices.Equal(got, []string{"TAG:budget", "TAG:Hiring", "PERSON:Bob"}) {
			t.Fatalf("tags %v, want TAGs by name then PERSONs", got)
		}
		id := note["id"].(string)

		got := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+id), http.StatusOK).JSON(t)
		if _, ok := got["pendingSuggestion"]; !ok || got["pendingSuggestion"] != nil {
			t.Fatalf("GET /notes/:id must carry pendingSuggestion: null, got %v", got["pendingSuggestion"])
		}
		if got["content"] != note["content"] {
			t.Fatalf("content changed between create and get: %q vs %q", got["content"], note["content"])
		}

		// Bob (a member) sees the note and the same tag ids: tags live in the workspace's space.
		bobView := apitest.Must(t, s.Get(t, w.bobRW, "/notes/"+id), http.StatusOK).JSON(t)
		if len(bobView["tags"].([]any)) != 3 {
			t.Fatalf("member sees tags %v", bobView["tags"])
		}

		// PATCH content: tags and hasDecision follow, a snapshot keeps the old content.
		time.Sleep(2 * time.Millisecond) // timestamps have millisecond precision
		upd := apitest.Must(t, patch(t, s, w.annRW, "/notes/"+id, map[string]any{"content": "Only #budget now", "targetAt": "2026-12-01"}), http.StatusOK).JSON(t)
		if upd["hasDecision"] != false || upd["targetAt"] != "2026-12-01T00:00:00.000Z" || !slices.Equal(tagNames(t, upd), []string{"TAG:budget"}) {
			t.Fatalf("after patch: %v", upd)
		}
		if !wireTimeRE.MatchString(upd["updatedAt"].(string)) || upd["updatedAt"].(string) <= note["updatedAt"].(string) {
			t.Fatalf("updatedAt %v did not move past %v", upd["updatedAt"], note["updatedAt"])
		}
		snaps, err := versions.NewStore(nil, nil).List(context.Background(), s.DB, "note", id)
		if err != nil || len(snaps) != 1 {
			t.Fatalf("snapshots after one content change: %d, %v", len(snaps), err)
		}
		// A PATCH without content saves no snapshot; clearing a date with null works.
		upd = apitest.Must(t, patch(t, s, w.annRW, "/notes/"+id, map[string]any{"targetAt": nil, "archived": true}), http.StatusOK).JSON(t)
		if upd["targetAt"] != nil || upd["archived"] != true {
			t.Fatalf("after clearing: %v", upd)
		}
		if snaps, _ := versions.NewStore(nil, nil).List(context.Background(), s.DB, "note", id); len(snaps) != 1 {
			t.Fatalf("a PATCH without content saved a snapshot")
		}

		// Archived notes leave the default list and appear with archived=true.
		listed := func(query string) []string {
			var out []string
			for _, n := range apitest.Must(t, s.Get(t, w.annRW, "/notes"+query), http.StatusOK).Data(t) {
				out = append(out, n["id"].(string))
			}
			return out
		}
		if slices.Contains(listed(""), id) || !slices.Contains(listed("?archived=true"), id) {
			t.Fatal("archived filter")
		}

		// DELETE answers {ok: true}; the note vanishes from every read at once.
		r := apitest.Must(t, s.Delete(t, w.annRW, "/notes/"+id), http.StatusOK)
		if string(r.Body) != `{"ok":true}` {
			t.Fatalf("delete body %s", r.Body)
		}
		wantErr(t, s.Get(t, w.annRW, "/notes/"+id), http.StatusNotFound, "NOTE_NOT_FOUND")
		wantErr(t, patch(t, s, w.annRW, "/notes/"+id, map[string]any{"archived": false}), http.StatusNotFound, "NOTE_NOT_FOUND")
		wantErr(t, s.Delete(t, w.annRW, "/notes/"+id), http.StatusNotFound, "NOTE_NOT_FOUND")
		if slices.Contains(listed("?archived=true"), id) {
			t.Fatal("deleted note still listed")
		}
	})
}

func TestNoteValidation(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		id := createNote(t, s, w.annRW, w.annNB, "hello")["id"].(string)
		for _, tc := range []struct {
			name         string
			method, path string
			body         any
			status       int
			code         string
			mentions     string
		}{
			{"content missing", "POST", "/notes", map[string]any{"notebookId": w.annNB}, 400, "MISSING_FIELD", "content"},
			{"notebookId missing", "POST", "/notes", map[string]any{"content": "x"}, 400, "MISSING_FIELD", "notebookId"},
			{"content null", "POST", "/notes", map[string]any{"content": nil, "notebookId": w.annNB}, 400, "MISSING_FIELD", "content"},
			{"content not a string", "POST", "/notes", map[string]any{"content": 5, "notebookId": w.annNB}, 400, "VALIDATION_ERROR", "content"},
			{"hasDecision sent", "POST", "/notes", map[string]any{"content": "x", "notebookId": w.annNB, "hasDecision": true}, 400, "VALIDATION_ERROR", "hasDecision"},
			{"tags sent", "POST", "/notes", map[string]any{"content": "x", "notebookId": w.annNB, "tags": []string{}}, 400, "VALIDATION_ERROR", "tags"},
			{"bad date", "POST", "/notes", map[string]any{"content": "x", "notebookId": w.annNB, "targetAt": "tomorrow"}, 400, "VALIDATION_ERROR", "targetAt"},
			{"image", "POST", "/notes", map[string]any{"content": "![x](http://e.x/a.png)", "notebookId": w.annNB}, 400, "INVALID_MARKDOWN", "content"},
			{"too long", "POST", "/notes", map[string]any{"content": strings.Repeat("a", 100_001), "notebookId": w.annNB}, 400, "VALIDATION_ERROR", "content"},
			{"unknown notebook", "POST", "/notes", map[string]any{"content": "x", "notebookId": "zzzzzzzzzzzzzzzzzzzzzzzz"}, 404, "NOTEBOOK_NOT_FOUND", ""},
			{"someone else's notebook", "POST", "/notes", map[string]any{"content": "x", "notebookId": w.carlNB}, 404, "NOTEBOOK_NOT_FOUND", ""},
			{"patch content null", "PATCH", "/notes/" + id, map[string]any{"content": nil}, 400, "VALIDATION_ERROR", "content"},
			{"patch archived null", "PATCH", "/notes/" + id, map[string]any{"archived": nil}, 400, "VALIDATION_ERROR", "archived"},
			{"patch archived string", "PATCH", "/notes/" + id, map[string]any{"archived": "yes"}, 400, "VALIDATION_ERROR", "archived"},
			{"patch unknown field", "PATCH", "/notes/" + id, map[string]any{"title": "x"}, 400, "VALIDATION_ERROR", "title"},
			{"patch malformed id", "PATCH", "/notes/not-an-id", map[string]any{"archived": true}, 404, "NOTE_NOT_FOUND", ""},
			{"get malformed id", "GET", "/notes/NOT-AN-ID", nil, 404, "NOTE_NOT_FOUND", ""},
			{"list bad archived", "GET", "/notes?archived=yes", nil, 400, "VALIDATION_ERROR", "archived"},
			{"list other notebook", "GET", "/notes?notebookId=" + w.carlNB, nil, 404, "NOTEBOOK_NOT_FOUND", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				// An empty mentions is in every message: the row checks the status and code only.
				wantErr(t, s.Do(t, apitest.Request{Method: tc.method, Path: tc.path, Key: w.annRW, Body: tc.body}), tc.status, tc.code, tc.mentions)
			})
		}
	})
}
