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
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		note := createNote(t, s, w.annRW, w.teamNB, "original #old")["id"].(string)

		first := apitest.Must(t, suggest(t, s, w.bobRW, "note", note, "first proposal"), http.StatusCreated).JSON(t)
		if got := fieldNames(first); !slices.Equal(got, []string{"createdAt", "id", "originalContent", "rationale", "status", "suggestedContent"}) {
			t.Fatalf("suggestion fields %v", got)
		}
		if first["status"] != "PENDING" || first["originalContent"] != "original #old" || first["suggestedContent"] != "first proposal" || first["rationale"] != "because" {
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

		// Approve racing a PATCH: the final content is one of the two writes, the other is in a snapshot.
		for round := 0; round < 15; round++ {
			sg := apitest.Must(t, suggest(t, s, w.bobRW, "note", note, fmt.Sprintf("suggested %d", round)), http.StatusCreated).Str(t, "id")
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+sg+"/approve", nil), http.StatusOK)
			}()
			go func() {
				defer wg.Done()
				apitest.Must(t, patch(t, s, w.annRW, "/notes/"+note, map[string]any{"content": fmt.Sprintf("patched %d", round)}), http.StatusOK)
			}()
			wg.Wait()
			final := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note), http.StatusOK).Str(t, "content")
			snaps, _ := versions.NewStore(nil, nil).List(context.Background(), s.DB, "note", note)
			var other string
			switch final {
			case fmt.Sprintf("suggested %d", round):
				other = fmt.Sprintf("patched %d", round)
			case fmt.Sprintf("patched %d", round):
				other = fmt.Sprintf("suggested %d", round)
			default:
				t.Fatalf("round %d: final content %q is neither write", round, final)
			}
			if !snapshotHolds(t, snaps, other) {
				t.Fatalf("round %d: the losing write %q is not in a snapshot", round, other)
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
					model.status[id+":content"] = text
				case op <= 2 && len(model.order) > 0: // approve or reject a random earlier suggestion
					id := model.order[rng.Intn(len(model.order))]
					verb := []string{"approve", "reject"}[rng.Intn(2)]
					r := s.Post(t, w.annRW, "/suggestions/"+id+"/"+verb, nil)
					switch {
					case model.deleted:
						apitest.CheckEnvelope(t, r, http.StatusNotFound, "SUGGESTION_NOT_FOUND")
					case model.status[id] != "PENDING":
						apitest.CheckEnvelope(t, r, http.StatusConflict, "SUGGESTION_ALREADY_RESOLVED")
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
