package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"folio/tests/apitest"
)

// Suggestions that merge (CONTRACT.md section 22, issue 33): approving a stale suggestion merges
// its changes with the changes made since, overlapping changes are a conflict that changes
// nothing, and a person may approve some of a suggestion's hunks.

// agenda is a note of five paragraphs, so that changes to two of them are apart.
const agenda = "Agenda\n\nfirst item\n\nsecond item\n\nthird item\n\nfourth item"

// suggestionOf reads GET /suggestions/:id.
func suggestionOf(t *testing.T, s *apitest.Server, key, id string) map[string]any {
	t.Helper()
	return apitest.Must(t, s.Get(t, key, "/suggestions/"+id), http.StatusOK).JSON(t)
}

// wantHunks checks GET /suggestions/:id's hunks against want, each "line:-removed|+added" with
// lines joined by "/".
func wantHunks(t *testing.T, sg map[string]any, want ...string) {
	t.Helper()
	var got []string
	for i, h := range sg["hunks"].([]any) {
		h := h.(map[string]any)
		if h["index"] != float64(i) {
			t.Fatalf("hunk %d has index %v", i, h["index"])
		}
		join := func(key string) string {
			var lines []string
			for _, l := range h[key].([]any) {
				lines = append(lines, l.(string))
			}
			return strings.Join(lines, "/")
		}
		got = append(got, fmt.Sprintf("%v:-%s|+%s", h["line"], join("removed"), join("added")))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("hunks %q, want %q", got, want)
	}
}

// snapshotCount is how many versions the note has.
func snapshotCount(t *testing.T, s *apitest.Server, key, note string) int {
	t.Helper()
	return len(apitest.Must(t, s.Get(t, key, "/notes/"+note+"/versions?limit=100"), http.StatusOK).Data(t))
}

// TestSuggestionMerge: Bob proposes a change, Ann edits another paragraph meanwhile; approving
// applies both (merged: true), saves the version Ann wrote, and writes the audit entry and the
// events as any approval. Then a change of the same paragraph: 409 SUGGESTION_CONFLICT with the
// conflicting lines, nothing changes and the suggestion stays PENDING.
func TestSuggestionMerge(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		note := createNote(t, s, w.annRW, w.teamNB, agenda)["id"].(string)
		_, cursor := feed(t, s, w.annRW, "", "")

		id := apitest.Must(t, suggest(t, s, w.bobRW, "note", note, strings.Replace(agenda, "second item", "second item, revised", 1)), http.StatusCreated).Str(t, "id")
		sg := suggestionOf(t, s, w.annRW, id)
		if sg["stale"] != false || sg["mergeable"] != true {
			t.Fatalf("a fresh suggestion: %v", sg)
		}
		wantHunks(t, sg, "5:-second item|+second item, revised")

		annEdit := strings.Replace(agenda, "fourth item", "fourth item, by Ann", 1)
		apitest.Must(t, patch(t, s, w.annRW, "/notes/"+note, map[string]any{"content": annEdit}), http.StatusOK)
		sg = suggestionOf(t, s, w.annRW, id)
		if sg["stale"] != true || sg["mergeable"] != true {
			t.Fatalf("after Ann's edit apart: %v", sg)
		}
		// The hunks are what approving does to the content now: Ann's line is not undone.
		wantHunks(t, sg, "5:-second item|+second item, revised")
		if inbox := apitest.Must(t, s.Get(t, w.annRW, "/suggestions"), http.StatusOK).Data(t); len(inbox) != 1 || inbox[0]["mergeable"] != true || inbox[0]["stale"] != true {
			t.Fatalf("inbox %v", inbox)
		}

		versionsBefore := snapshotCount(t, s, w.annRW, note)
		r := apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+id+"/approve", nil), http.StatusOK)
		if string(r.Body) != `{"ok":true,"status":"APPROVED","merged":true}` {
			t.Fatalf("approve body %s", r.Body)
		}
		want := strings.Replace(annEdit, "second item", "second item, revised", 1)
		if got := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).Str(t, "content"); got != want {
			t.Fatalf("after the merge the note reads %q, want %q", got, want)
		}
		versions := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note+"/versions?limit=100"), http.StatusOK).Data(t)
		if len(versions) != versionsBefore+1 || versions[0]["reason"] != "suggestion" {
			t.Fatalf("versions after the merge: %v", versions)
		}
		if got := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note+"/versions/"+versions[0]["id"].(string)), http.StatusOK).Str(t, "content"); got != annEdit {
			t.Fatalf("the snapshot keeps %q, want Ann's %q", got, annEdit)
		}
		entries, _ := auditPage(t, s.Get(t, w.annRW, "/audit-log"))
		if entries[0]["action"] != "note.approve" {
			t.Fatalf("the last audit entry is %v", entries[0])
		}
		// Ann's events since: her edit, then the approval's note.updated and suggestion.approved.
		events, _ := feed(t, s, w.annRW, cursor, "&types=note.updated,suggestion.approved")
		if got := eventTypes(events); !slices.Equal(got, []string{"note.updated", "note.updated", "suggestion.approved"}) {
			t.Fatalf("events %v", got)
		}
		if data := events[1]["data"].(map[string]any); data["content"] != want {
			t.Fatalf("note.updated of the merge carries %v", data["content"])
		}

		// The same paragraph changed on both sides: a conflict, and nothing changes.
		id = apitest.Must(t, suggest(t, s, w.bobRW, "note", note, strings.Replace(want, "third item", "third item, Bob's way", 1)), http.StatusCreated).Str(t, "id")
		annEdit = strings.Replace(want, "third item", "third item, Ann's way", 1)
		apitest.Must(t, patch(t, s, w.annRW, "/notes/"+note, map[string]any{"content": annEdit}), http.StatusOK)
		sg = suggestionOf(t, s, w.annRW, id)
		if sg["stale"] != true || sg["mergeable"] != false {
			t.Fatalf("overlapping: %v", sg)
		}
		wantHunks(t, sg) // no hunk conflicts with none
		versionsBefore = snapshotCount(t, s, w.annRW, note)
		r = s.Post(t, w.annRW, "/suggestions/"+id+"/approve", nil)
		wantErr(t, r, http.StatusConflict, "SUGGESTION_CONFLICT", "line 7")
		details := r.JSON(t)["error"].(map[string]any)["details"]
		if got := fmt.Sprint(details); got != "map[conflicts:[map[current:[third item, Ann's way] line:7 suggested:[third item, Bob's way]]]]" {
			t.Fatalf("conflict details %s", got)
		}
		if got := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).Str(t, "content"); got != annEdit {
			t.Fatalf("a conflict changed the note: %q", got)
		}
		if st := suggestionOf(t, s, w.annRW, id)["status"]; st != "PENDING" || snapshotCount(t, s, w.annRW, note) != versionsBefore {
			t.Fatalf("after a conflict: status %v, versions %d (was %d)", st, snapshotCount(t, s, w.annRW, note), versionsBefore)
		}
		// Rejecting still works.
		apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+id+"/reject", nil), http.StatusOK)

		// A task's notes merge the same way.
		task := newContent(t, s, w.annRW, "task", w.teamNB, agenda)
		tid := apitest.Must(t, suggest(t, s, w.bobRW, "task", task, strings.Replace(agenda, "Agenda", "Agenda for Monday", 1)), http.StatusCreated).Str(t, "id")
		apitest.Must(t, patch(t, s, w.annRW, "/tasks/"+task, map[string]any{"notes": strings.Replace(agenda, "fourth item", "fourth", 1)}), http.StatusOK)
		r = apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+tid+"/approve", nil), http.StatusOK)
		if string(r.Body) != `{"ok":true,"status":"APPROVED","merged":true}` {
			t.Fatalf("task approve body %s", r.Body)
		}
		if got := apitest.Must(t, s.Get(t, w.annRW, "/tasks/"+task), http.StatusOK).Str(t, "notes"); got != "Agenda for Monday\n\nfirst item\n\nsecond item\n\nthird item\n\nfourth" {
			t.Fatalf("task notes after the merge %q", got)
		}
	})
}

// TestSuggestionPartialApproval: {"hunks": [...]} applies only those hunks (partial: true); a
// stale suggestion whose other change conflicts can still be approved in part; a bad choice of
// hunks is 400 and changes nothing; If-Match works on a merge.
func TestSuggestionPartialApproval(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		note := createNote(t, s, w.annRW, w.teamNB, agenda)["id"].(string)
		proposal := strings.NewReplacer("first item", "first item, sharper", "fourth item", "fourth item, sharper").Replace(agenda)
		id := apitest.Must(t, suggest(t, s, w.bobRW, "note", note, proposal), http.StatusCreated).Str(t, "id")
		wantHunks(t, suggestionOf(t, s, w.annRW, id), "3:-first item|+first item, sharper", "9:-fourth item|+fourth item, sharper")

		// Bad choices: 400 naming hunks, and nothing changes.
		for _, body := range []string{`{"hunks":[2]}`, `{"hunks":[-1]}`, `{"hunks":[]}`, `{"hunks":[1,1]}`, `{"hunks":["1"]}`, `{"hunks":[1.5]}`, `{"hunks":null}`, `{"hunks":1}`, `{"other":[0]}`} {
			r := s.Do(t, apitest.Request{Method: http.MethodPost, Path: "/suggestions/" + id + "/approve", Key: w.annRW, Body: body})
			wantErr(t, r, http.StatusBadRequest, "VALIDATION_ERROR")
			if msg := errorMessage(t, r); !strings.Contains(msg, "hunks") && !strings.Contains(msg, "other") {
				t.Fatalf("%s: message %q names no field", body, msg)
			}
		}
		wantErr(t, s.Post(t, w.annRW, "/suggestions/"+id+"/approve", map[string]any{"hunks": []int{2}}), http.StatusBadRequest, "VALIDATION_ERROR", "2 is not the index", "0 to 1")
		wantErr(t, s.Do(t, apitest.Request{Method: http.MethodPost, Path: "/suggestions/" + id + "/approve", Key: w.annRW, Body: "hunks=1", NoCType: true}), http.StatusBadRequest, "VALIDATION_ERROR")
		if got := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).Str(t, "content"); got != agenda || suggestionOf(t, s, w.annRW, id)["status"] != "PENDING" {
			t.Fatalf("a refused choice changed the note (%q) or the suggestion", got)
		}

		// One of two hunks.
		r := apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+id+"/approve", map[string]any{"hunks": []int{1}}), http.StatusOK)
		if string(r.Body) != `{"ok":true,"status":"APPROVED","partial":true}` {
			t.Fatalf("partial approve body %s", r.Body)
		}
		if got := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).Str(t, "content"); got != strings.Replace(agenda, "fourth item", "fourth item, sharper", 1) {
			t.Fatalf("after approving hunk 1 the note reads %q", got)
		}
		apitest.CheckEnvelope(t, s.Post(t, w.annRW, "/suggestions/"+id+"/approve", map[string]any{"hunks": []int{0}}), http.StatusConflict, "SUGGESTION_ALREADY_RESOLVED")

		// Every hunk named: the same as no body.
		current := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).Str(t, "content")
		id = apitest.Must(t, suggest(t, s, w.bobRW, "note", note, strings.Replace(current, "Agenda", "Agenda, Monday", 1)), http.StatusCreated).Str(t, "id")
		r = apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+id+"/approve", map[string]any{"hunks": []int{0}}), http.StatusOK)
		if string(r.Body) != `{"ok":true,"status":"APPROVED"}` {
			t.Fatalf("approving every hunk answers %s", r.Body)
		}

		// Stale, one change overlapping Ann's edit and one apart: the whole is a conflict; the
		// hunk apart can be approved alone (partial and merged), and Ann's edit stays.
		current = apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).Str(t, "content")
		proposal = strings.NewReplacer("second item", "second item (Bob)", "third item", "third item (Bob)").Replace(current)
		id = apitest.Must(t, suggest(t, s, w.bobRW, "note", note, proposal), http.StatusCreated).Str(t, "id")
		seen := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).Header.Get("ETag")
		annEdit := strings.Replace(current, "third item", "third item (Ann)", 1)
		apitest.Must(t, patch(t, s, w.annRW, "/notes/"+note, map[string]any{"content": annEdit}), http.StatusOK)
		sg := suggestionOf(t, s, w.annRW, id)
		if sg["mergeable"] != false {
			t.Fatalf("overlapping: %v", sg)
		}
		wantHunks(t, sg, "5:-second item|+second item (Bob)")
		apitest.CheckEnvelope(t, s.Post(t, w.annRW, "/suggestions/"+id+"/approve", nil), http.StatusConflict, "SUGGESTION_CONFLICT")

		// If-Match with the ETag the reviewer saw before Ann's edit: 412, still PENDING; with
		// the ETag of the note as it stands: the merge.
		approve := func(etag string, body any) apitest.Response {
			return s.Do(t, apitest.Request{Method: http.MethodPost, Path: "/suggestions/" + id + "/approve", Key: w.annRW, Body: body, Header: map[string]string{"If-Match": etag}})
		}
		apitest.CheckEnvelope(t, approve(seen, map[string]any{"hunks": []int{0}}), http.StatusPreconditionFailed, "PRECONDITION_FAILED")
		if st := suggestionOf(t, s, w.annRW, id)["status"]; st != "PENDING" {
			t.Fatalf("after a 412 the suggestion is %v", st)
		}
		now := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).Header.Get("ETag")
		r = apitest.Must(t, approve(now, map[string]any{"hunks": []int{0}}), http.StatusOK)
		if string(r.Body) != `{"ok":true,"status":"APPROVED","merged":true,"partial":true}` {
			t.Fatalf("partial merge body %s", r.Body)
		}
		if got := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).Str(t, "content"); got != strings.Replace(annEdit, "second item", "second item (Bob)", 1) {
			t.Fatalf("after the partial merge the note reads %q", got)
		}
	})
}

// TestSuggestionMergeConcurrentApprove: concurrent approvals of one stale suggestion, with and
// without a choice of hunks: exactly one wins, the merge is applied once, one snapshot is saved.
func TestSuggestionMergeConcurrentApprove(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		note := createNote(t, s, w.annRW, w.teamNB, agenda)["id"].(string)
		id := apitest.Must(t, suggest(t, s, w.bobRW, "note", note, strings.Replace(agenda, "first item", "first item, merged", 1)), http.StatusCreated).Str(t, "id")
		annEdit := strings.Replace(agenda, "fourth item", "fourth item, Ann", 1)
		apitest.Must(t, patch(t, s, w.annRW, "/notes/"+note, map[string]any{"content": annEdit}), http.StatusOK)
		before := snapshotCount(t, s, w.annRW, note)
		won := race(t, "approve", 12, func(i int) int {
			var body any
			if i%2 == 1 {
				body = map[string]any{"hunks": []int{0}}
			}
			r := s.Post(t, w.annRW, "/suggestions/"+id+"/approve", body)
			if r.Status == http.StatusConflict {
				// A loser finds it decided: never a conflict of the merge, never a 500.
				if code := r.JSON(t)["error"].(map[string]any)["code"]; code != "SUGGESTION_ALREADY_RESOLVED" {
					t.Errorf("a losing approval answered %v", code)
				}
			}
			return r.Status
		}, http.StatusOK, http.StatusConflict)
		if won != 1 {
			t.Fatalf("%d of 12 concurrent approvals won, want 1", won)
		}
		if got := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).Str(t, "content"); got != strings.Replace(annEdit, "first item", "first item, merged", 1) {
			t.Fatalf("after the race the note reads %q", got)
		}
		if n := snapshotCount(t, s, w.annRW, note); n != before+1 {
			t.Fatalf("%d snapshots after the race, want %d", n, before+1)
		}
	})
}
