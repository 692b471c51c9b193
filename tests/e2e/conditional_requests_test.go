package e2e

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"folio/tests/apitest"
)

// Conditional requests (CONTRACT.md section 12): ETags, If-None-Match, If-Match.

// conditional sends a request with one conditional header (none when value is "").
func conditional(t *testing.T, s *apitest.Server, key, method, path, header, value string, body any) apitest.Response {
	t.Helper()
	r := apitest.Request{Method: method, Path: path, Key: key, Body: body}
	if value != "" {
		r.Header = map[string]string{header: value}
	}
	return s.Do(t, r)
}

// wantETag returns the response's ETag after checking that it is a strong, quoted one.
func wantETag(t *testing.T, r apitest.Response) string {
	t.Helper()
	tag := r.Header.Get("ETag")
	if len(tag) < 3 || tag[0] != '"' || tag[len(tag)-1] != '"' {
		t.Fatalf("ETag %q is not a strong entity tag (%d %s)", tag, r.Status, r.Body)
	}
	return tag
}

// TestItemETags: notes and tasks carry an ETag on GET, create and PATCH; If-None-Match gives 304
// without a body; a stale If-Match on PATCH or DELETE is 412 and changes nothing; "*" matches.
func TestItemETags(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key, nb := ownWorld(t, s)
		for _, kind := range []string{"note", "task"} {
			t.Run(kind, func(t *testing.T) {
				field := textField(kind)
				created := apitest.Must(t, s.Post(t, key, "/"+kind+"s", contentBody(kind, nb, "first")), http.StatusCreated)
				path := "/" + kind + "s/" + created.Str(t, "id")
				v1 := wantETag(t, created)
				got := apitest.Must(t, s.Get(t, key, path), http.StatusOK)
				if wantETag(t, got) != v1 {
					t.Fatalf("GET ETag %q, create said %q", got.Header.Get("ETag"), v1)
				}
				// If-None-Match: the current ETag (alone, in a list, weak, or *) is 304 without a
				// body; any other is 200.
				for _, inm := range []string{v1, `"x", ` + v1, "W/" + v1, "*"} {
					r := conditional(t, s, key, http.MethodGet, path, "If-None-Match", inm, nil)
					if r.Status != http.StatusNotModified || len(r.Body) != 0 || r.Header.Get("ETag") != v1 {
						t.Fatalf("If-None-Match %s: %d %q ETag %q", inm, r.Status, r.Body, r.Header.Get("ETag"))
					}
				}
				apitest.Must(t, conditional(t, s, key, http.MethodGet, path, "If-None-Match", `"other"`, nil), http.StatusOK)

				// PATCH with the current ETag: 200 and a new ETag, the one GET then shows.
				r := apitest.Must(t, conditional(t, s, key, http.MethodPatch, path, "If-Match", v1, map[string]any{field: "second"}), http.StatusOK)
				v2 := wantETag(t, r)
				if v2 == v1 || wantETag(t, apitest.Must(t, s.Get(t, key, path), http.StatusOK)) != v2 {
					t.Fatalf("ETag after PATCH %q (before %q)", v2, v1)
				}
				apitest.Must(t, conditional(t, s, key, http.MethodGet, path, "If-None-Match", v1, nil), http.StatusOK)
				// A stale If-Match: 412, nothing changes (not even with an empty PATCH).
				before := string(s.Get(t, key, path).Body)
				for _, im := range []string{v1, "W/" + v2, `"nope"`, "garbage"} {
					apitest.CheckEnvelope(t, conditional(t, s, key, http.MethodPatch, path, "If-Match", im, map[string]any{field: "lost"}), http.StatusPreconditionFailed, "PRECONDITION_FAILED")
					apitest.CheckEnvelope(t, conditional(t, s, key, http.MethodPatch, path, "If-Match", im, map[string]any{}), http.StatusPreconditionFailed, "PRECONDITION_FAILED")
					apitest.CheckEnvelope(t, conditional(t, s, key, http.MethodDelete, path, "If-Match", im, nil), http.StatusPreconditionFailed, "PRECONDITION_FAILED")
				}
				if after := string(s.Get(t, key, path).Body); after != before {
					t.Fatalf("a refused request changed the %s:\n%s\n%s", kind, before, after)
				}
				// An empty PATCH with the current ETag reads; one ETag of a list matches; * matches.
				if r := apitest.Must(t, conditional(t, s, key, http.MethodPatch, path, "If-Match", v2, map[string]any{}), http.StatusOK); wantETag(t, r) != v2 {
					t.Fatalf("empty PATCH ETag %q, want %q", r.Header.Get("ETag"), v2)
				}
				r = apitest.Must(t, conditional(t, s, key, http.MethodPatch, path, "If-Match", `"a", `+v2, map[string]any{"archived": true}), http.StatusOK)
				v3 := wantETag(t, r)
				v4 := wantETag(t, apitest.Must(t, conditional(t, s, key, http.MethodPatch, path, "If-Match", "*", map[string]any{"archived": false}), http.StatusOK))
				if v3 == v2 || v4 == v3 {
					t.Fatalf("ETags %s %s %s", v2, v3, v4)
				}
				// Without If-Match a PATCH behaves as SPEC.md says.
				v5 := wantETag(t, apitest.Must(t, patch(t, s, key, path, map[string]any{field: "third"}), http.StatusOK))
				apitest.CheckEnvelope(t, conditional(t, s, key, http.MethodDelete, path, "If-Match", v4, nil), http.StatusPreconditionFailed, "PRECONDITION_FAILED")
				apitest.Must(t, conditional(t, s, key, http.MethodDelete, path, "If-Match", v5, nil), http.StatusOK)
				// * matches any existing item only.
				apitest.CheckEnvelope(t, conditional(t, s, key, http.MethodDelete, path, "If-Match", "*", nil), http.StatusNotFound, notFoundCode(kind))
				apitest.CheckEnvelope(t, conditional(t, s, key, http.MethodPatch, path, "If-Match", "*", map[string]any{field: "x"}), http.StatusNotFound, notFoundCode(kind))
			})
		}
	})
}

// TestNotebookAndSuggestionETags: notebooks carry an ETag on GET and create; suggestions on
// suggest, approve and reject; a note's ETag changes whenever its pendingSuggestion does.
func TestNotebookAndSuggestionETags(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key, nb := ownWorld(t, s)
		nbTag := wantETag(t, apitest.Must(t, s.Get(t, key, "/notebooks/"+nb), http.StatusOK))
		r := conditional(t, s, key, http.MethodGet, "/notebooks/"+nb, "If-None-Match", nbTag, nil)
		if r.Status != http.StatusNotModified || len(r.Body) != 0 {
			t.Fatalf("notebook If-None-Match: %d %s", r.Status, r.Body)
		}
		// Adding items is bookkeeping, not a change of the notebook.
		note := "/notes/" + createNote(t, s, key, nb, "text")["id"].(string)
		if got := wantETag(t, s.Get(t, key, "/notebooks/"+nb)); got != nbTag {
			t.Fatalf("notebook ETag %q after an item was added, was %q", got, nbTag)
		}

		seen := map[string]bool{}
		fresh := func(what string) string {
			t.Helper()
			tag := wantETag(t, apitest.Must(t, s.Get(t, key, note), http.StatusOK))
			if seen[tag] {
				t.Fatalf("note ETag %q after %s was seen before", tag, what)
			}
			seen[tag] = true
			return tag
		}
		before := fresh("create")
		sg := apitest.Must(t, suggest(t, s, key, "note", note[len("/notes/"):], "proposal"), http.StatusCreated)
		wantETag(t, sg)
		// The note's fields did not change but its pendingSuggestion did: a client holding the old
		// ETag must get the new body.
		got := apitest.Must(t, conditional(t, s, key, http.MethodGet, note, "If-None-Match", before, nil), http.StatusOK).JSON(t)
		if got["pendingSuggestion"] == nil {
			t.Fatalf("note after suggest %v", got)
		}
		afterSuggest := fresh("suggest")
		// Superseded by a newer one: new ETag.
		second := apitest.Must(t, suggest(t, s, key, "note", note[len("/notes/"):], "another"), http.StatusCreated).Str(t, "id")
		afterSecond := fresh("a second suggestion")
		// Approve with the ETag from before the second suggestion: 412, still PENDING.
		apitest.CheckEnvelope(t, conditional(t, s, key, http.MethodPost, "/suggestions/"+second+"/approve", "If-Match", afterSuggest, nil), http.StatusPreconditionFailed, "PRECONDITION_FAILED")
		// The item changed after the reviewer read it: 412, still PENDING, content kept.
		changed := wantETag(t, apitest.Must(t, patch(t, s, key, note, map[string]any{"archived": true}), http.StatusOK))
		apitest.CheckEnvelope(t, conditional(t, s, key, http.MethodPost, "/suggestions/"+second+"/approve", "If-Match", afterSecond, nil), http.StatusPreconditionFailed, "PRECONDITION_FAILED")
		got = s.Get(t, key, note).JSON(t)
		if got["content"] != "text" || got["pendingSuggestion"].(map[string]any)["id"] != second || got["pendingSuggestion"].(map[string]any)["status"] != "PENDING" {
			t.Fatalf("note after a refused approval %v", got)
		}
		seen[changed] = true
		// With the ETag the reviewer saw last: approved, the suggestion's ETag answers.
		r = apitest.Must(t, conditional(t, s, key, http.MethodPost, "/suggestions/"+second+"/approve", "If-Match", changed, nil), http.StatusOK)
		resolvedTag := wantETag(t, r)
		if string(r.Body) != `{"ok":true,"status":"APPROVED"}` {
			t.Fatalf("approve body %s", r.Body)
		}
		fresh("approve")
		// Reject: the content stays, the pending suggestion goes, the ETag changes.
		third := apitest.Must(t, suggest(t, s, key, "note", note[len("/notes/"):], "third"), http.StatusCreated).Str(t, "id")
		fresh("a third suggestion")
		if tag := wantETag(t, apitest.Must(t, s.Post(t, key, "/suggestions/"+third+"/reject", nil), http.StatusOK)); tag == "" {
			t.Fatal("reject without ETag")
		}
		fresh("reject")
		// A resolved suggestion is 409 whatever If-Match says.
		apitest.CheckEnvelope(t, conditional(t, s, key, http.MethodPost, "/suggestions/"+second+"/approve", "If-Match", `"stale"`, nil), http.StatusConflict, "SUGGESTION_ALREADY_RESOLVED")
		_ = resolvedTag
	})
}

// TestConcurrentPatchIfMatch is the lost update that matters: two clients GET the same item and
// both PATCH it with that ETag at once. Exactly one gets 200 and the other 412, every time, for
// many items in parallel; the survivor's content is the one stored.
func TestConcurrentPatchIfMatch(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key, nb := ownWorld(t, s)
		const items, rounds = 8, 12
		var wg sync.WaitGroup
		errs := make(chan string, items*rounds)
		for i := range items {
			kind := []string{"note", "task"}[i%2]
			path := "/" + kind + "s/" + newContent(t, s, key, kind, nb, "start")
			wg.Add(1)
			go func() {
				defer wg.Done()
				for round := range rounds {
					tag := s.Get(t, key, path).Header.Get("ETag")
					statuses := make([]int, 2)
					var race sync.WaitGroup
					for c := range 2 {
						race.Add(1)
						go func() {
							defer race.Done()
							statuses[c] = conditional(t, s, key, http.MethodPatch, path, "If-Match", tag,
								map[string]any{textField(kind): fmt.Sprintf("round %d client %d", round, c)}).Status
						}()
					}
					race.Wait()
					ok, failed := 0, 0
					for _, st := range statuses {
						switch st {
						case http.StatusOK:
							ok++
						case http.StatusPreconditionFailed:
							failed++
						}
					}
					if ok != 1 || failed != 1 {
						errs <- fmt.Sprintf("%s round %d: statuses %v, want one 200 and one 412", path, round, statuses)
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	})
}
