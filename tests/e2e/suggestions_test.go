package e2e

import (
	"context"
	"fmt"
	"math/rand"
	"net/http"
	"slices"
	"sync"
	"testing"

	"folio/modules/document"
	"folio/modules/versions"
	"folio/tests/apitest"
)

func suggest(t *testing.T, s *apitest.Server, key, kind, id, content string) apitest.Response {
	t.Helper()
	return s.Post(t, key, "/"+kind+"s/"+id+"/suggest", map[string]any{"content": content, "rationale": "because"})
}

func TestSuggestionTransitions(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		note := createNote(t, s, w.annRW, w.teamNB, "original #old")["id"].(string)

		first := apitest.Must(t, suggest(t, s, w.bobRW, "note", note, "first proposal"), http.StatusCreated).JSON(t)
		if got := fieldNames(first); !slices.Equal(got, []string{"createdAt", "id", "mergeable", "originalContent", "rationale", "status", "suggestedContent"}) {
			t.Fatalf("suggestion fields %v", got)
		}
		if first["status"] != "PENDING" || first["originalContent"] != "original #old" || first["suggestedContent"] != "first proposal" || first["rationale"] != "because" || first["mergeable"] != true {
			t.Fatalf("suggestion %v", first)
		}
		// The note is unchanged and shows the pending suggestion.
		got := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).JSON(t)
		if got["content"] != "original #old" || got["pendingSuggestion"].(map[string]any)["id"] != first["id"] {
			t.Fatalf("note after suggest: %v", got)
		}
		// A new suggestion supersedes the pending one.
		second := apitest.Must(t, suggest(t, s, w.bobRW, "note", note, "second #new proposal"), http.StatusCreated).JSON(t)
		list := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note+"/suggestions"), http.StatusOK).Data(t)
		if len(list) != 2 || list[0]["id"] != second["id"] || list[0]["status"] != "PENDING" || list[1]["status"] != "SUPERSEDED" {
			t.Fatalf("list %v", list)
		}
		if _, has := list[0]["originalContent"]; has {
			t.Fatal("list items must omit originalContent")
		}
		// Resolving a superseded one: 409.
		apitest.CheckEnvelope(t, s.Post(t, w.annRW, "/suggestions/"+first["id"].(string)+"/approve", nil), http.StatusConflict, "SUGGESTION_ALREADY_RESOLVED")
		// Approve applies the content (tags follow) and snapshots the original.
		r := apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+second["id"].(string)+"/approve", nil), http.StatusOK)
		if string(r.Body) != `{"ok":true,"status":"APPROVED"}` {
			t.Fatalf("approve body %s", r.Body)
		}
		got = apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).JSON(t)
		if got["content"] != "second #new proposal" || got["pendingSuggestion"] != nil || !slices.Equal(tagNames(t, got), []string{"TAG:new"}) {
			t.Fatalf("note after approve: %v", got)
		}
		snaps, _ := versions.NewStore(nil, nil).List(context.Background(), s.DB, "note", note)
		if len(snaps) != 1 || snaps[0].Reason != "suggestion" {
			t.Fatalf("snapshots after approve: %+v", snaps)
		}
		apitest.CheckEnvelope(t, s.Post(t, w.annRW, "/suggestions/"+second["id"].(string)+"/reject", nil), http.StatusConflict, "SUGGESTION_ALREADY_RESOLVED")
		// Reject leaves the content.
		third := apitest.Must(t, suggest(t, s, w.bobRW, "note", note, "third"), http.StatusCreated).Str(t, "id")
		r = apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+third+"/reject", nil), http.StatusOK)
		if string(r.Body) != `{"ok":true,"status":"REJECTED"}` {
			t.Fatalf("reject body %s", r.Body)
		}
		if c := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).Str(t, "content"); c != "second #new proposal" {
			t.Fatalf("content after reject %q", c)
		}
		// Task suggestions replace the task's notes.
		task := apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"title": "t", "notebookId": w.teamNB, "notes": "old notes"}), http.StatusCreated).Str(t, "id")
		ts := apitest.Must(t, suggest(t, s, w.bobRW, "task", task, "new notes"), http.StatusCreated).JSON(t)
		if ts["originalContent"] != "old notes" {
			t.Fatalf("task suggestion %v", ts)
		}
		apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+ts["id"].(string)+"/approve", nil), http.StatusOK)
		if n := apitest.Must(t, s.Get(t, w.annRW, "/tasks/"+task), http.StatusOK).Str(t, "notes"); n != "new notes" {
			t.Fatalf("task notes after approve %q", n)
		}
		// Deleting the item hides its suggestions.
		pending := apitest.Must(t, suggest(t, s, w.bobRW, "note", note, "late"), http.StatusCreated).Str(t, "id")
		apitest.Must(t, s.Delete(t, w.annRW, "/notes/"+note), http.StatusOK)
		apitest.CheckEnvelope(t, s.Post(t, w.annRW, "/suggestions/"+pending+"/approve", nil), http.StatusNotFound, "SUGGESTION_NOT_FOUND")
		apitest.CheckEnvelope(t, s.Get(t, w.annRW, "/notes/"+note+"/suggestions"), http.StatusNotFound, "NOTE_NOT_FOUND")
		// Access: outsiders and read-only keys.
		other := createNote(t, s, w.annRW, w.annNB, "private")["id"].(string)
		apitest.CheckEnvelope(t, suggest(t, s, w.carlRW, "note", other, "x"), http.StatusNotFound, "NOTE_NOT_FOUND")
		apitest.CheckEnvelope(t, suggest(t, s, w.annRead, "note", other, "x"), http.StatusForbidden, "INSUFFICIENT_SCOPE")
		mine := apitest.Must(t, suggest(t, s, w.annRW, "note", other, "x"), http.StatusCreated).Str(t, "id")
		apitest.CheckEnvelope(t, s.Post(t, w.carlRW, "/suggestions/"+mine+"/approve", nil), http.StatusNotFound, "SUGGESTION_NOT_FOUND")
		apitest.CheckEnvelope(t, s.Post(t, w.annTeam, "/suggestions/"+mine+"/approve", nil), http.StatusNotFound, "SUGGESTION_NOT_FOUND")
		apitest.CheckEnvelope(t, s.Post(t, w.annRW, "/suggestions/not-an-id/approve", nil), http.StatusNotFound, "SUGGESTION_NOT_FOUND")
		apitest.CheckEnvelope(t, s.Post(t, w.annRW, "/notes/"+other+"/suggest", map[string]any{"content": "![i](x.png)"}), http.StatusBadRequest, "INVALID_MARKDOWN")
		apitest.CheckEnvelope(t, s.Post(t, w.annRW, "/notes/"+other+"/suggest", map[string]any{"rationale": "r"}), http.StatusBadRequest, "MISSING_FIELD")
	})
}

// TestSuggestionConcurrency checks the invariants of CONTRACT.md section 5 under concurrent
// requests: one PENDING per item, one winner per suggestion, no lost update.
func TestSuggestionConcurrency(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		note := createNote(t, s, w.annRW, w.teamNB, "start")["id"].(string)

		var wg sync.WaitGroup
		for i := 0; i < 32; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				if r := suggest(t, s, w.bobRW, "note", note, fmt.Sprintf("proposal %d", i)); r.Status != http.StatusCreated {
					t.Errorf("suggest %d: %d %s", i, r.Status, r.Body)
				}
			}(i)
		}
		wg.Wait()
		counts := map[string]int{}
		var pendingID string
		for _, sg := range apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note+"/suggestions?limit=100"), http.StatusOK).Data(t) {
			counts[sg["status"].(string)]++
			if sg["status"] == "PENDING" {
				pendingID = sg["id"].(string)
			}
		}
		if counts["PENDING"] != 1 || counts["SUPERSEDED"] != 31 {
			t.Fatalf("after 32 concurrent suggests: %v", counts)
		}

		won := race(t, "resolve", 16, func(i int) int {
			verb := []string{"approve", "reject"}[i%2]
			return s.Post(t, w.annRW, "/suggestions/"+pendingID+"/"+verb, nil).Status
		}, http.StatusOK, http.StatusConflict)
		if won != 1 {
			t.Fatalf("%d of 16 concurrent approve/reject calls won, want 1", won)
		}

		// Approve racing a PATCH of the same line: nothing is lost. Approved first, the PATCH
		// replaces the approved content, which a snapshot keeps; patched first, the suggestion
		// is stale and overlaps the PATCH, so approving it is a conflict that changes nothing
		// and leaves it PENDING (CONTRACT.md section 22).
		for round := 0; round < 15; round++ {
			suggested, patched := fmt.Sprintf("suggested %d", round), fmt.Sprintf("patched %d", round)
			sg := apitest.Must(t, suggest(t, s, w.bobRW, "note", note, suggested), http.StatusCreated).Str(t, "id")
			var wg sync.WaitGroup
			var approve apitest.Response
			wg.Add(2)
			go func() {
				defer wg.Done()
				approve = s.Post(t, w.annRW, "/suggestions/"+sg+"/approve", nil)
			}()
			go func() {
				defer wg.Done()
				apitest.Must(t, patch(t, s, w.annRW, "/notes/"+note, map[string]any{"content": patched}), http.StatusOK)
			}()
			wg.Wait()
			if final := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).Str(t, "content"); final != patched {
				t.Fatalf("round %d: final content %q, want the PATCH's %q", round, final, patched)
			}
			status := apitest.Must(t, s.Get(t, w.annRW, "/suggestions/"+sg), http.StatusOK).Str(t, "status")
			switch approve.Status {
			case http.StatusOK:
				snaps, _ := versions.NewStore(nil, nil).List(context.Background(), s.DB, "note", note)
				if !snapshotHolds(t, snaps, suggested) || status != "APPROVED" {
					t.Fatalf("round %d: approved, then patched: the approved content is in no snapshot, or the suggestion is %s", round, status)
				}
			case http.StatusConflict:
				apitest.CheckEnvelope(t, approve, http.StatusConflict, "SUGGESTION_CONFLICT")
				if status != "PENDING" {
					t.Fatalf("round %d: a conflicting approval left the suggestion %s", round, status)
				}
			default:
				t.Fatalf("round %d: approve answered %d %s", round, approve.Status, approve.Body)
			}
		}
	})
}

func snapshotHolds(t *testing.T, snaps []versions.Snapshot, text string) bool {
	t.Helper()
	for _, sn := range snaps {
		if rendered, err := contentRender(sn.Document); err == nil && rendered == text {
			return true
		}
	}
	return false
}

// TestSuggestionStateMachine drives random sequences of suggest/approve/reject/patch/delete and
// compares every answer and the note's content with a simple model.
func TestSuggestionStateMachine(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		rng := rand.New(rand.NewSource(7))
		for run := 0; run < 4; run++ {
			note := createNote(t, s, w.annRW, w.teamNB, "v0")["id"].(string)
			model := struct {
				content string
				deleted bool
				status  map[string]string
				order   []string
			}{content: "v0", status: map[string]string{}}
			for step := 0; step < 40; step++ {
				text := fmt.Sprintf("r%d s%d", run, step)
				switch op := rng.Intn(5); {
				case op == 0: // suggest
					r := suggest(t, s, w.bobRW, "note", note, text)
					if model.deleted {
						apitest.CheckEnvelope(t, r, http.StatusNotFound, "NOTE_NOT_FOUND")
						continue
					}
					id := apitest.Must(t, r, http.StatusCreated).Str(t, "id")
					for sid, st := range model.status {
						if st == "PENDING" {
							model.status[sid] = "SUPERSEDED"
						}
					}
					model.status[id], model.order = "PENDING", append(model.order, id)
					model.status[id+":content"], model.status[id+":base"] = text, model.content
				case op <= 2 && len(model.order) > 0: // approve or reject a random earlier suggestion
					id := model.order[rng.Intn(len(model.order))]
					verb := []string{"approve", "reject"}[rng.Intn(2)]
					r := s.Post(t, w.annRW, "/suggestions/"+id+"/"+verb, nil)
					switch {
					case model.deleted:
						apitest.CheckEnvelope(t, r, http.StatusNotFound, "SUGGESTION_NOT_FOUND")
					case model.status[id] != "PENDING":
						apitest.CheckEnvelope(t, r, http.StatusConflict, "SUGGESTION_ALREADY_RESOLVED")
					case verb == "approve" && model.status[id+":base"] != model.content:
						// Every text is one line of its own: a suggestion made before the last
						// change overlaps it, and stays PENDING.
						apitest.CheckEnvelope(t, r, http.StatusConflict, "SUGGESTION_CONFLICT")
					default:
						apitest.Must(t, r, http.StatusOK)
						if verb == "approve" {
							model.status[id], model.content = "APPROVED", model.status[id+":content"]
						} else {
							model.status[id] = "REJECTED"
						}
					}
				case op == 3: // patch
					r := patch(t, s, w.annRW, "/notes/"+note, map[string]any{"content": text})
					if model.deleted {
						apitest.CheckEnvelope(t, r, http.StatusNotFound, "NOTE_NOT_FOUND")
						continue
					}
					apitest.Must(t, r, http.StatusOK)
					model.content = text
				case op == 4 && rng.Intn(4) == 0 && !model.deleted: // delete, rarely
					apitest.Must(t, s.Delete(t, w.annRW, "/notes/"+note), http.StatusOK)
					model.deleted = true
				}
				if model.deleted {
					continue
				}
				got := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).JSON(t)
				if got["content"] != model.content {
					t.Fatalf("run %d step %d: content %q, model %q", run, step, got["content"], model.content)
				}
				for _, sg := range apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note+"/suggestions?limit=100"), http.StatusOK).Data(t) {
					if want := model.status[sg["id"].(string)]; sg["status"] != want {
						t.Fatalf("run %d step %d: suggestion %s is %v, model %s", run, step, sg["id"], sg["status"], want)
					}
				}
			}
		}
	})
}

func contentRender(doc []byte) (string, error) { return document.Render(doc) }

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
	t.Parallel()
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
		if got := fieldNames(items[0]); !slices.Equal(got, []string{"createdAt", "id", "itemId", "itemKind", "mergeable", "notebookId", "originalContent", "rationale", "stale", "status", "suggestedContent"}) {
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
