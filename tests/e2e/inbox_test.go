package e2e

import (
	"net/http"
	"slices"
	"testing"

	"folio/tests/apitest"
)

// inboxIDs walks GET /suggestions with query, one item per page, and returns the ids in order; it
// checks that the pages join into the one-page answer (nothing twice, nothing skipped).
func inboxIDs(t *testing.T, s *apitest.Server, key, query string) []string {
	t.Helper()
	var whole []string
	for _, sg := range apitest.Must(t, s.Get(t, key, "/suggestions?limit=100"+query), http.StatusOK).Data(t) {
		whole = append(whole, sg["id"].(string))
	}
	var walked []string
	cursor := ""
	for range 50 {
		r := apitest.Must(t, s.Get(t, key, "/suggestions?limit=1"+query+cursor), http.StatusOK)
		for _, sg := range r.Data(t) {
			walked = append(walked, sg["id"].(string))
		}
		next, _ := r.JSON(t)["nextCursor"].(string)
		if next == "" {
			break
		}
		cursor = "&cursor=" + next
	}
	if !slices.Equal(whole, walked) {
		t.Fatalf("GET /suggestions%s: one page %v, page by page %v", query, whole, walked)
	}
	return whole
}

// TestSuggestionInbox: GET /suggestions lists the suggestions of every item the caller can read
// and no other, newest first, with its filters and stale; GET /suggestions/:id adds the diff.
func TestSuggestionInbox(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		personalNote := newContent(t, s, w.annRW, "note", w.annNB, "personal")
		teamNote := newContent(t, s, w.annRW, "note", w.teamNB, "first\n\nsecond\n\nthird")
		teamTask := newContent(t, s, w.annRW, "task", w.teamNB, "task notes")
		carlNote := newContent(t, s, w.carlRW, "note", w.carlNB, "carl's")

		onPersonal := apitest.Must(t, suggest(t, s, w.annRW, "note", personalNote, "personal, better"), http.StatusCreated).Str(t, "id")
		onTeamNote := apitest.Must(t, suggest(t, s, w.bobRW, "note", teamNote, "first\n\nSECOND\n\nthird"), http.StatusCreated).Str(t, "id")
		onTeamTask := apitest.Must(t, suggest(t, s, w.bobRW, "task", teamTask, "better task notes"), http.StatusCreated).Str(t, "id")
		onCarl := apitest.Must(t, suggest(t, s, w.carlRW, "note", carlNote, "carl's, better"), http.StatusCreated).Str(t, "id")

		// Who sees what: newest first, only items the key reaches.
		for _, c := range []struct {
			name, key string
			want      []string
		}{
			{"Ann", w.annRW, []string{onTeamTask, onTeamNote, onPersonal}},
			{"Ann read-only", w.annRead, []string{onTeamTask, onTeamNote, onPersonal}},
			{"Ann's Team key", w.annTeamRead, []string{onTeamTask, onTeamNote}},
			{"Ann's Team notebook key", w.annTeamNB, []string{onTeamTask, onTeamNote}},
			{"Ann's personal notebook key", w.annPersonalNB, []string{onPersonal}},
			{"Bob", w.bobRW, []string{onTeamTask, onTeamNote}},
			{"Carl", w.carlRW, []string{onCarl}},
		} {
			if got := inboxIDs(t, s, c.key, ""); !slices.Equal(got, c.want) {
				t.Errorf("%s's inbox: %v, want %v", c.name, got, c.want)
			}
		}
		// Filters.
		if got := inboxIDs(t, s, w.annRW, "&itemKind=task"); !slices.Equal(got, []string{onTeamTask}) {
			t.Errorf("itemKind=task: %v", got)
		}
		if got := inboxIDs(t, s, w.annRW, "&itemKind=note&notebookId="+w.teamNB); !slices.Equal(got, []string{onTeamNote}) {
			t.Errorf("itemKind=note&notebookId=Team: %v", got)
		}
		wantErr(t, s.Get(t, w.annRW, "/suggestions?itemKind=notes"), http.StatusBadRequest, "VALIDATION_ERROR")
		wantErr(t, s.Get(t, w.annRW, "/suggestions?status=pending"), http.StatusBadRequest, "VALIDATION_ERROR")
		wantErr(t, s.Get(t, w.annRW, "/suggestions?cursor="+onCarl), http.StatusBadRequest, "VALIDATION_ERROR")

		// An inbox item: the suggestion's fields, its item, and stale.
		items := apitest.Must(t, s.Get(t, w.annRW, "/suggestions?itemKind=note&notebookId="+w.teamNB), http.StatusOK).Data(t)
		if got := fieldNames(items[0]); !slices.Equal(got, []string{"createdAt", "id", "itemId", "itemKind", "notebookId", "originalContent", "rationale", "stale", "status", "suggestedContent"}) {
			t.Fatalf("inbox item fields %v", got)
		}
		if it := items[0]; it["itemKind"] != "note" || it["itemId"] != teamNote || it["notebookId"] != w.teamNB || it["stale"] != false ||
			it["status"] != "PENDING" || it["originalContent"] != "first\n\nsecond\n\nthird" || it["rationale"] != "because" {
			t.Fatalf("inbox item %v", it)
		}
		// GET /suggestions/:id: the unified diff from the item's current content.
		one := apitest.Must(t, s.Get(t, w.bobRW, "/suggestions/"+onTeamNote), http.StatusOK).JSON(t)
		wantDiff := "--- current\n+++ suggested\n@@ -1,5 +1,5 @@\n first\n \n-second\n+SECOND\n \n third\n"
		if one["diff"] != wantDiff || one["stale"] != false || one["itemId"] != teamNote {
			t.Fatalf("GET /suggestions/:id: diff %q, want %q; %v", one["diff"], wantDiff, one)
		}
		// The item changes: the suggestion is stale, and the diff starts from the new content.
		apitest.Must(t, patch(t, s, w.annRW, "/notes/"+teamNote, map[string]any{"content": "first\n\nsecond\n\nthird\n\nfourth"}), http.StatusOK)
		one = apitest.Must(t, s.Get(t, w.bobRW, "/suggestions/"+onTeamNote), http.StatusOK).JSON(t)
		wantDiff = "--- current\n+++ suggested\n@@ -1,7 +1,5 @@\n first\n \n-second\n+SECOND\n \n third\n-\n-fourth\n"
		if one["stale"] != true || one["diff"] != wantDiff {
			t.Fatalf("after a change: stale %v, diff %q, want %q", one["stale"], one["diff"], wantDiff)
		}
		if it := apitest.Must(t, s.Get(t, w.annRW, "/suggestions?itemKind=note&notebookId="+w.teamNB), http.StatusOK).Data(t)[0]; it["stale"] != true {
			t.Fatalf("inbox item after a change: %v", it)
		}
		// Resolved suggestions leave the default (PENDING) inbox and show under their status.
		apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+onTeamTask+"/approve", nil), http.StatusOK)
		newer := apitest.Must(t, suggest(t, s, w.annRW, "note", personalNote, "personal, best"), http.StatusCreated).Str(t, "id")
		if got := inboxIDs(t, s, w.annRW, ""); !slices.Equal(got, []string{newer, onTeamNote}) {
			t.Errorf("PENDING after approve and supersede: %v", got)
		}
		if got := inboxIDs(t, s, w.annRW, "&status=APPROVED"); !slices.Equal(got, []string{onTeamTask}) {
			t.Errorf("APPROVED: %v", got)
		}
		if got := inboxIDs(t, s, w.annRW, "&status=SUPERSEDED"); !slices.Equal(got, []string{onPersonal}) {
			t.Errorf("SUPERSEDED: %v", got)
		}
		approved := apitest.Must(t, s.Get(t, w.annRW, "/suggestions/"+onTeamTask), http.StatusOK).JSON(t)
		if approved["status"] != "APPROVED" || approved["diff"] != "" || approved["stale"] != true {
			t.Errorf("an approved suggestion: %v", approved)
		}
		// A deleted item's suggestions leave the inbox.
		apitest.Must(t, s.Delete(t, w.annRW, "/notes/"+teamNote), http.StatusOK)
		if got := inboxIDs(t, s, w.bobRW, ""); len(got) != 0 {
			t.Errorf("Bob's inbox after the note's deletion: %v", got)
		}
		wantErr(t, s.Get(t, w.bobRW, "/suggestions/"+onTeamNote), http.StatusNotFound, "SUGGESTION_NOT_FOUND")
	})
}
