package e2e

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"folio/platform/auth"
	"folio/tests/apitest"
	"folio/tests/ziptest"
)

// feed reads every event after after that key sees, following nextCursor, and returns them with
// the last cursor.
func feed(t *testing.T, s *apitest.Server, key, after, query string) ([]map[string]any, string) {
	t.Helper()
	var all []map[string]any
	for {
		r := apitest.Must(t, s.Get(t, key, "/events?limit=100&after="+url.QueryEscape(after)+query), http.StatusOK)
		page := r.Data(t)
		next := r.Str(t, "nextCursor")
		if next == "" {
			t.Fatalf("nextCursor must never be null or empty: %s", r.Body)
		}
		all = append(all, page...)
		if len(page) == 0 {
			if next != after && after != "" {
				t.Fatalf("an empty page must answer nextCursor = after (%s), got %s", after, next)
			}
			return all, next
		}
		after = next
	}
}

func eventTypes(events []map[string]any) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e["type"].(string)
	}
	return out
}

// sameJSON compares a response body with an event's data.
func sameJSON(t *testing.T, what string, body []byte, data any) {
	t.Helper()
	var want any
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, data) {
		t.Errorf("%s: the event's data is not the resource as the API returned it:\n response %s\n data     %v", what, body, data)
	}
}

// TestEveryWriteRouteEmits enumerates every write operation of the served OpenAPI document and
// performs each one: each must emit exactly the events it lists, in order, with the resource as
// the API returned it as their data. A write route this table does not know fails the test, so a
// new write path cannot be added without deciding what it emits (CONTRACT.md section 18).
func TestEveryWriteRouteEmits(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		dan := s.NewUser(t, "Dan Invitee")
		key := w.annRW
		prefix := "svc_live_" + apitest.KeyPrefix(t, key)
		_, cursor := feed(t, s, key, "", "")

		// One check per write operation of the document ("METHOD /path" as the document names it).
		type write struct {
			do    func(t *testing.T) (apitest.Response, string) // the response and the resource id
			types []string
			// data says which event's data must equal the response body (-1: none).
			data int
		}
		var noteID, taskID, noteSg, taskSg, hookID, feedID string
		writes := map[string]write{
			"POST /notebooks": {func(t *testing.T) (apitest.Response, string) {
				r := apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "Ev"}), http.StatusCreated)
				return r, r.Str(t, "id")
			}, []string{"notebook.created"}, 0},
			"POST /workspaces": {func(t *testing.T) (apitest.Response, string) {
				// CONTRACT.md section 18 has no workspace.created: creating a workspace emits nothing.
				return apitest.Must(t, s.Post(t, key, "/workspaces", map[string]any{"name": "Ev"}), http.StatusCreated), ""
			}, nil, -1},
			"POST /webhooks": {func(t *testing.T) (apitest.Response, string) {
				// Managing webhooks is no change of the user's data: section 18 has no type for it.
				r := apitest.Must(t, s.Post(t, key, "/webhooks", map[string]any{"url": "https://93.184.216.34/hook", "events": noDeliveries}), http.StatusCreated)
				hookID = r.Str(t, "id")
				return r, ""
			}, nil, -1},
			"DELETE /webhooks/{id}": {func(t *testing.T) (apitest.Response, string) {
				return apitest.Must(t, s.Delete(t, key, "/webhooks/"+hookID), http.StatusOK), ""
			}, nil, -1},
			"POST /calendar-feeds": {func(t *testing.T) (apitest.Response, string) {
				// Like a webhook, a calendar feed is no change of the user's data: no event.
				r := apitest.Must(t, s.Post(t, key, "/calendar-feeds", map[string]any{"name": "Ev"}), http.StatusCreated)
				feedID = r.Str(t, "id")
				return r, ""
			}, nil, -1},
			"DELETE /calendar-feeds/{id}": {func(t *testing.T) (apitest.Response, string) {
				return apitest.Must(t, s.Delete(t, key, "/calendar-feeds/"+feedID), http.StatusOK), ""
			}, nil, -1},
			"POST /workspaces/{id}/members": {func(t *testing.T) (apitest.Response, string) {
				return apitest.Must(t, s.Post(t, key, "/workspaces/"+w.team+"/members", map[string]any{"email": dan.Email}), http.StatusCreated), w.team
			}, []string{"workspace.member_added"}, 0},
			"DELETE /workspaces/{id}/members/{userId}": {func(t *testing.T) (apitest.Response, string) {
				return apitest.Must(t, s.Delete(t, key, "/workspaces/"+w.team+"/members/"+dan.ID), http.StatusOK), w.team
			}, []string{"workspace.member_removed"}, -1},
			"POST /notes": {func(t *testing.T) (apitest.Response, string) {
				r := apitest.Must(t, s.Post(t, key, "/notes", map[string]any{"content": "Hello #sync @Bob", "notebookId": w.teamNB}), http.StatusCreated)
				noteID = r.Str(t, "id")
				return r, noteID
			}, []string{"note.created"}, 0},
			"PATCH /notes/{id}": {func(t *testing.T) (apitest.Response, string) {
				return apitest.Must(t, s.Do(t, apitest.Request{Method: "PATCH", Path: "/notes/" + noteID, Key: key, Body: map[string]any{"content": "Changed #sync", "archived": true}}), http.StatusOK), noteID
			}, []string{"note.updated"}, 0},
			"POST /notes/{id}/suggest": {func(t *testing.T) (apitest.Response, string) {
				r := apitest.Must(t, s.Post(t, key, "/notes/"+noteID+"/suggest", map[string]any{"content": "Proposed"}), http.StatusCreated)
				noteSg = r.Str(t, "id")
				return r, noteSg
			}, []string{"suggestion.created"}, 0},
			"POST /suggestions/{id}/approve": {func(t *testing.T) (apitest.Response, string) {
				return apitest.Must(t, s.Post(t, key, "/suggestions/"+noteSg+"/approve", nil), http.StatusOK), noteID
			}, []string{"note.updated", "suggestion.approved"}, -1},
			"POST /notes/{id}/versions/{versionId}/restore": {func(t *testing.T) (apitest.Response, string) {
				v := apitest.Must(t, s.Get(t, key, "/notes/"+noteID+"/versions"), http.StatusOK).Data(t)[0]["id"].(string)
				return apitest.Must(t, s.Post(t, key, "/notes/"+noteID+"/versions/"+v+"/restore", nil), http.StatusOK), noteID
			}, []string{"note.restored"}, 0},
			"POST /tasks/{id}/versions/{versionId}/restore": {func(t *testing.T) (apitest.Response, string) {
				v := apitest.Must(t, s.Get(t, key, "/tasks/"+taskID+"/versions"), http.StatusOK).Data(t)[0]["id"].(string)
				return apitest.Must(t, s.Post(t, key, "/tasks/"+taskID+"/versions/"+v+"/restore", nil), http.StatusOK), taskID
			}, []string{"task.restored"}, 0},
			"DELETE /notes/{id}": {func(t *testing.T) (apitest.Response, string) {
				return apitest.Must(t, s.Delete(t, key, "/notes/"+noteID), http.StatusOK), noteID
			}, []string{"note.deleted"}, -1},
			"POST /tasks": {func(t *testing.T) (apitest.Response, string) {
				r := apitest.Must(t, s.Post(t, key, "/tasks", map[string]any{"title": "Ship", "notes": "#ops", "notebookId": w.teamNB}), http.StatusCreated)
				taskID = r.Str(t, "id")
				return r, taskID
			}, []string{"task.created"}, 0},
			"PATCH /tasks/{id}": {func(t *testing.T) (apitest.Response, string) {
				return apitest.Must(t, s.Do(t, apitest.Request{Method: "PATCH", Path: "/tasks/" + taskID, Key: key, Body: map[string]any{"status": "DONE", "notes": "#ops, changed"}}), http.StatusOK), taskID
			}, []string{"task.updated"}, 0},
			"POST /tasks/{id}/suggest": {func(t *testing.T) (apitest.Response, string) {
				// A second suggestion supersedes the first: its event comes before the new one's.
				apitest.Must(t, s.Post(t, key, "/tasks/"+taskID+"/suggest", map[string]any{"content": "first"}), http.StatusCreated)
				_, c := feed(t, s, key, cursor, "")
				cursor = c
				r := apitest.Must(t, s.Post(t, key, "/tasks/"+taskID+"/suggest", map[string]any{"content": "second"}), http.StatusCreated)
				taskSg = r.Str(t, "id")
				return r, taskSg
			}, []string{"suggestion.superseded", "suggestion.created"}, 1},
			"POST /suggestions/{id}/reject": {func(t *testing.T) (apitest.Response, string) {
				return apitest.Must(t, s.Post(t, key, "/suggestions/"+taskSg+"/reject", nil), http.StatusOK), taskSg
			}, []string{"suggestion.rejected"}, -1},
			"DELETE /tasks/{id}": {func(t *testing.T) (apitest.Response, string) {
				return apitest.Must(t, s.Delete(t, key, "/tasks/"+taskID), http.StatusOK), taskID
			}, []string{"task.deleted"}, -1},
			"POST /import": {func(t *testing.T) (apitest.Response, string) {
				// An import creates through the services: each create emits its own event, the
				// folder's notebook first (CONTRACT.md section 24); its answer is no resource.
				zip := ziptest.Zip(t, ziptest.Entry{Name: "Ev import/hello.md", Body: []byte("Imported #sync\n")})
				r := apitest.Must(t, importZip(t, s, key, "/import", zip), http.StatusCreated)
				newest := apitest.Must(t, s.Get(t, key, "/notes?limit=1"), http.StatusOK).Data(t)[0]
				return r, newest["id"].(string) // the last event's resource: the imported note
			}, []string{"notebook.created", "note.created"}, -1},
		}
		// The order the writes run in (each may need the one before).
		order := []string{"POST /notebooks", "POST /workspaces", "POST /webhooks", "DELETE /webhooks/{id}", "POST /calendar-feeds", "DELETE /calendar-feeds/{id}", "POST /workspaces/{id}/members", "DELETE /workspaces/{id}/members/{userId}",
			"POST /notes", "PATCH /notes/{id}", "POST /notes/{id}/suggest", "POST /suggestions/{id}/approve", "POST /notes/{id}/versions/{versionId}/restore", "DELETE /notes/{id}",
			"POST /tasks", "PATCH /tasks/{id}", "POST /tasks/{id}/versions/{versionId}/restore", "POST /tasks/{id}/suggest", "POST /suggestions/{id}/reject", "DELETE /tasks/{id}", "POST /import"}

		var doc struct {
			Paths map[string]map[string]json.RawMessage `json:"paths"`
		}
		if err := json.Unmarshal(apitest.Must(t, s.Get(t, "", "/openapi.json"), http.StatusOK).Body, &doc); err != nil {
			t.Fatal(err)
		}
		var documented []string
		for path, ops := range doc.Paths {
			for method := range ops {
				switch method {
				case "post", "patch", "put", "delete":
					op := strings.ToUpper(method) + " " + path
					documented = append(documented, op)
					if _, ok := writes[op]; !ok {
						t.Errorf("%s is a write operation without an entry here: say which events it emits (CONTRACT.md section 18)", op)
					}
				}
			}
		}
		slices.Sort(documented)
		sortedOrder := slices.Sorted(slices.Values(order))
		if !slices.Equal(documented, sortedOrder) {
			t.Fatalf("write operations of the document %v, of this test %v", documented, sortedOrder)
		}
		_, cursor = feed(t, s, key, cursor, "")
		for _, op := range order {
			wr := writes[op]
			r, resourceID := wr.do(t)
			got, next := feed(t, s, key, cursor, "")
			cursor = next
			if !slices.Equal(eventTypes(got), wr.types) && !(len(got) == 0 && len(wr.types) == 0) {
				t.Errorf("%s emitted %v, want %v", op, eventTypes(got), wr.types)
				continue
			}
			for i, e := range got {
				actor := e["actor"].(map[string]any)
				if actor["userId"] != w.ann.ID || actor["apiKeyPrefix"] != prefix {
					t.Errorf("%s: actor %v", op, actor)
				}
				if e["type"] == wr.types[len(wr.types)-1] && e["resourceId"] != resourceID && !strings.HasPrefix(op, "POST /suggestions") {
					t.Errorf("%s: resourceId %v, want %s", op, e["resourceId"], resourceID)
				}
				if i == wr.data {
					sameJSON(t, op, r.Body, e["data"])
				}
				if strings.HasSuffix(e["type"].(string), ".deleted") {
					if d := e["data"].(map[string]any); len(d) != 1 || d["id"] != resourceID {
						t.Errorf("%s: a delete's data is {id}, got %v", op, d)
					}
				}
			}
			switch op {
			case "POST /suggestions/{id}/approve":
				// note.updated carries the note with the approved content; suggestion.approved the suggestion, APPROVED.
				note := apitest.Must(t, s.Get(t, key, "/notes/"+noteID), http.StatusOK).JSON(t)
				data := got[0]["data"].(map[string]any)
				if data["content"] != "Proposed" || data["updatedAt"] != note["updatedAt"] {
					t.Errorf("approve: note.updated data %v", data)
				}
				if sg := got[1]["data"].(map[string]any); sg["status"] != "APPROVED" || sg["id"] != noteSg || got[1]["resourceType"] != "suggestion" {
					t.Errorf("approve: suggestion.approved %v", got[1])
				}
			case "POST /suggestions/{id}/reject":
				if sg := got[0]["data"].(map[string]any); sg["status"] != "REJECTED" {
					t.Errorf("reject: %v", got[0])
				}
			case "POST /tasks/{id}/suggest":
				if sg := got[0]["data"].(map[string]any); sg["status"] != "SUPERSEDED" || sg["suggestedContent"] != "first" {
					t.Errorf("superseded: %v", got[0])
				}
			case "POST /workspaces/{id}/members", "DELETE /workspaces/{id}/members/{userId}":
				if e := got[0]; e["resourceType"] != "workspace" || e["workspaceId"] != w.team || e["notebookId"] != nil || e["data"].(map[string]any)["userId"] != dan.ID {
					t.Errorf("%s: %v", op, e)
				}
			case "POST /notes":
				if e := got[0]; e["notebookId"] != w.teamNB || e["workspaceId"] != w.team || e["resourceType"] != "note" {
					t.Errorf("%s: %v", op, e)
				}
			}
		}
	})
}

// TestEventsFeed: oldest first, after and limit page through without gaps or repeats, types
// filters, nextCursor is never null, bad parameters are 400, and a session sees its events with
// null key fields.
func TestEventsFeed(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		ann := s.NewUser(t, "Ann")
		key := s.NewKey(t, ann, auth.ScopeReadWrite)
		empty := apitest.Must(t, s.Get(t, key, "/events"), http.StatusOK)
		if len(empty.Data(t)) != 0 || empty.Str(t, "nextCursor") != "evt_0000000000000000000" {
			t.Fatalf("empty feed: %s", empty.Body)
		}
		nb := apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "N"}), http.StatusCreated).Str(t, "id")
		var notes []string
		for i := range 5 {
			notes = append(notes, apitest.Must(t, s.Post(t, key, "/notes", map[string]any{"content": strings.Repeat("x", i+1), "notebookId": nb}), http.StatusCreated).Str(t, "id"))
		}
		apitest.Must(t, s.Delete(t, key, "/notes/"+notes[0]), http.StatusOK)

		all, last := feed(t, s, key, "", "")
		if got := eventTypes(all); !slices.Equal(got, []string{"notebook.created", "note.created", "note.created", "note.created", "note.created", "note.created", "note.deleted"}) {
			t.Fatalf("feed %v", got)
		}
		for i := 1; i < len(all); i++ {
			if !(all[i-1]["id"].(string) < all[i]["id"].(string)) {
				t.Fatalf("ids do not sort in feed order: %v then %v", all[i-1]["id"], all[i]["id"])
			}
		}
		if last != all[len(all)-1]["id"] {
			t.Fatalf("nextCursor %s, want the last id", last)
		}
		// Pages of 2 give the same events, each once.
		var paged []any
		after := ""
		for range 10 {
			r := apitest.Must(t, s.Get(t, key, "/events?limit=2&after="+after), http.StatusOK)
			for _, e := range r.Data(t) {
				paged = append(paged, e["id"])
			}
			if len(r.Data(t)) == 0 {
				break
			}
			after = r.Str(t, "nextCursor")
		}
		if len(paged) != len(all) {
			t.Fatalf("paged %d events, want %d", len(paged), len(all))
		}
		// types filters.
		deleted, _ := feed(t, s, key, "", "&types=note.deleted,notebook.created")
		if got := eventTypes(deleted); !slices.Equal(got, []string{"notebook.created", "note.deleted"}) {
			t.Fatalf("types filter: %v", got)
		}
		// Nothing new: nextCursor is after.
		r := apitest.Must(t, s.Get(t, key, "/events?after="+last), http.StatusOK)
		if len(r.Data(t)) != 0 || r.Str(t, "nextCursor") != last {
			t.Fatalf("nothing new: %s", r.Body)
		}
		// A session's events have null key fields.
		signed := s.OpenSession(t, ann)
		apitest.Must(t, s.Do(t, apitest.Request{Method: "POST", Path: "/notebooks", Body: map[string]any{"name": "S"}, Header: apitest.SessionHeader(signed.Token, signed.CSRFToken)}), http.StatusCreated)
		got, _ := feed(t, s, key, last, "")
		if len(got) != 1 || got[0]["actor"].(map[string]any)["apiKeyName"] != nil || got[0]["actor"].(map[string]any)["apiKeyPrefix"] != nil {
			t.Fatalf("session event: %v", got)
		}
		for _, q := range []string{"after=1", "after=evt_1", "after=evt_-000000000000000001", "after=" + notes[1], "types=note.create", "types=note.created,", "limit=0", "limit=x"} {
			wantErr(t, s.Get(t, key, "/events?"+q), 400, "VALIDATION_ERROR", strings.SplitN(q, "=", 2)[0])
		}
	})
}

// TestEventsVisibility is the feed's side channel test (the Vikunja advisory GHSA-9rg3-v78m-26q8):
// a notebook- or workspace-scoped key sees only its notebook's or workspace's events, whoever
// caused them; a session or an unrestricted key only what its user did; and when nothing visible
// happened, nextCursor stays where the caller was, so it does not even learn the newest id.
func TestEventsVisibility(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		start := map[string]string{}
		keys := map[string]string{"rw": w.annRW, "ws": w.annTeam, "nbTeam": w.annTeamNB, "nbPersonal": w.annPersonalNB, "carl": w.carlRW, "bob": w.bobRW}
		for name, k := range keys {
			_, start[name] = feed(t, s, k, "", "")
		}
		otherTeamNB := apitest.Must(t, s.Post(t, w.annRW, "/notebooks", map[string]any{"name": "Team 2", "workspaceId": w.team}), http.StatusCreated).Str(t, "id")
		annPersonal := apitest.Must(t, s.Post(t, w.annRW, "/notes", map[string]any{"content": "mine", "notebookId": w.annNB}), http.StatusCreated).Str(t, "id")
		bobTeam := apitest.Must(t, s.Post(t, w.bobRW, "/notes", map[string]any{"content": "bob's", "notebookId": w.teamNB}), http.StatusCreated).Str(t, "id")
		bobOther := apitest.Must(t, s.Post(t, w.bobRW, "/notes", map[string]any{"content": "bob's too", "notebookId": otherTeamNB}), http.StatusCreated).Str(t, "id")
		carlNote := apitest.Must(t, s.Post(t, w.carlRW, "/notes", map[string]any{"content": "carl's", "notebookId": w.carlNB}), http.StatusCreated).Str(t, "id")
		dan := s.NewUser(t, "Dan")
		apitest.Must(t, s.Post(t, w.annRW, "/workspaces/"+w.team+"/members", map[string]any{"email": dan.Email}), http.StatusCreated)

		want := map[string][]string{
			"rw":         {otherTeamNB, annPersonal, w.team}, // Ann's own actions
			"ws":         {otherTeamNB, bobTeam, bobOther, w.team},
			"nbTeam":     {bobTeam},
			"nbPersonal": {annPersonal},
			"carl":       {carlNote},
			"bob":        {bobTeam, bobOther},
		}
		for name, k := range keys {
			got, next := feed(t, s, k, start[name], "")
			var ids []string
			for _, e := range got {
				ids = append(ids, e["resourceId"].(string))
			}
			if !slices.Equal(ids, want[name]) {
				t.Errorf("%s sees %v, want %v", name, ids, want[name])
			}
			// Polling again from the end finds nothing, and the cursor does not move.
			r := apitest.Must(t, s.Get(t, k, "/events?after="+next), http.StatusOK)
			if len(r.Data(t)) != 0 || r.Str(t, "nextCursor") != next {
				t.Errorf("%s: %s", name, r.Body)
			}
		}
		// The types filter does not widen what a key sees.
		if got, _ := feed(t, s, w.annPersonalNB, start["nbPersonal"], "&types=note.created,workspace.member_added"); len(got) != 1 || got[0]["resourceId"] != annPersonal {
			t.Errorf("nbPersonal with types: %v", got)
		}
		// Carl, who saw nothing of the others, keeps his own cursor: the newest id stays hidden.
		r := apitest.Must(t, s.Get(t, w.carlRW, "/events?after=evt_0000000000000000000&types=note.deleted"), http.StatusOK)
		if r.Str(t, "nextCursor") != "evt_0000000000000000000" {
			t.Errorf("an empty page leaked a cursor: %s", r.Body)
		}
	})
}

// TestFeedForgetsWhatIsGone (hole 3): an event's data is shown only to a principal who can read
// its resource now; otherwise the event stays (id, type, createdAt, resourceType, resourceId)
// with data null. Checked after a delete, a move out of the workspace and a member's removal,
// for those who lost the resource and for those who still read it.
func TestFeedForgetsWhatIsGone(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		ann, bob := s.NewUser(t, "Ann Owner"), s.NewUser(t, "Bob Latecomer")
		annKey := s.NewKey(t, ann, auth.ScopeReadWrite)
		ws := apitest.Must(t, s.Post(t, annKey, "/workspaces", map[string]any{"name": "Team"}), http.StatusCreated).Str(t, "id")
		teamNB := apitest.Must(t, s.Post(t, annKey, "/notebooks", map[string]any{"name": "Team Notes", "workspaceId": ws}), http.StatusCreated).Str(t, "id")
		personalNB := apitest.Must(t, s.Post(t, annKey, "/notebooks", map[string]any{"name": "Ann personal"}), http.StatusCreated).Str(t, "id")

		// The words that must leave the feed with their notes.
		const deletedWord, movedWord, keptWord, bobWord = "quokkadeleted", "quokkamoved", "quokkakept", "quokkabob"
		post := func(key, nb, content string) apitest.Response {
			t.Helper()
			return apitest.Must(t, s.Post(t, key, "/notes", map[string]any{"content": content, "notebookId": nb}), http.StatusCreated)
		}
		n1 := post(annKey, teamNB, "Layoffs list "+deletedWord)
		n2 := post(annKey, teamNB, "Salary review "+movedWord)
		n3 := post(annKey, teamNB, "Offsite agenda "+keptWord)
		id1, id2, id3 := n1.Str(t, "id"), n2.Str(t, "id"), n3.Str(t, "id")
		apitest.Must(t, s.Delete(t, annKey, "/notes/"+id1), http.StatusOK)
		movedBody := apitest.Must(t, patch(t, s, annKey, "/notes/"+id2, map[string]any{"notebookId": personalNB}), http.StatusOK)

		apitest.Must(t, s.Post(t, annKey, "/workspaces/"+ws+"/members", map[string]any{"email": bob.Email}), http.StatusCreated)
		bobWS := s.NewKey(t, bob, auth.ScopeReadWrite, apitest.KeyOpts{Workspace: ws})
		bobAll := s.NewKey(t, bob, auth.ScopeReadWrite)
		annWS := s.NewKey(t, ann, auth.ScopeReadWrite, apitest.KeyOpts{Workspace: ws})
		// Bob cannot read N1 or N2 through the API (the feed must not tell more).
		apitest.CheckEnvelope(t, s.Get(t, bobWS, "/notes/"+id1), http.StatusNotFound, "NOTE_NOT_FOUND")
		apitest.CheckEnvelope(t, s.Get(t, bobWS, "/notes/"+id2), http.StatusNotFound, "NOTE_NOT_FOUND")
		nb := post(bobAll, teamNB, "Bob's own "+bobWord)
		idB := nb.Str(t, "id")

		// byResource groups a feed's events by resource id.
		byResource := func(events []map[string]any) map[string][]map[string]any {
			out := map[string][]map[string]any{}
			for _, e := range events {
				id, _ := e["resourceId"].(string)
				out[id] = append(out[id], e)
			}
			return out
		}
		// hidden checks that who sees the events of resource id (at least the types in want)
		// with data null and the rest of the event kept. A delete's data is only the deleted id
		// (no content): it stays for whoever still reads the notebook it was deleted from, and
		// tombstone checks it.
		hidden := func(who string, events map[string][]map[string]any, id string, want ...string) {
			t.Helper()
			seen := map[string]bool{}
			for _, e := range events[id] {
				seen[e["type"].(string)] = true
				if e["type"] == "note.deleted" {
					continue
				}
				for _, f := range []string{"id", "type", "createdAt", "resourceType", "resourceId"} {
					if v, _ := e[f].(string); v == "" {
						t.Errorf("%s: event %v of %s lost its %s", who, e["type"], id, f)
					}
				}
				if data, present := e["data"]; !present || data != nil {
					raw, _ := json.Marshal(data)
					t.Errorf("%s: event %v %v of %s (no longer readable) has data %s, want null", who, e["type"], e["id"], id, raw)
				}
			}
			for _, typ := range want {
				if !seen[typ] {
					t.Errorf("%s: the feed lost the %s event of %s (it must stay, with data null)", who, typ, id)
				}
			}
		}
		// shown checks that who sees the event of type typ of resource id with data equal to body.
		shown := func(who string, events map[string][]map[string]any, id, typ string, body apitest.Response) {
			t.Helper()
			for _, e := range events[id] {
				if e["type"] == typ {
					sameJSON(t, who+": "+typ+" of "+id, body.Body, e["data"])
					return
				}
			}
			t.Errorf("%s: no %s event of %s in the feed", who, typ, id)
		}
		// tombstone checks that who, who still reads the notebook, sees the delete of id as {id}.
		tombstone := func(who string, events map[string][]map[string]any, id string) {
			t.Helper()
			for _, e := range events[id] {
				if e["type"] == "note.deleted" {
					sameJSON(t, who+": note.deleted of "+id, []byte(`{"id":"`+id+`"}`), e["data"])
					return
				}
			}
			t.Errorf("%s: no note.deleted event of %s in the feed", who, id)
		}
		noWord := func(who string, events []map[string]any, words ...string) {
			t.Helper()
			raw, _ := json.Marshal(events)
			for _, w := range words {
				if strings.Contains(string(raw), w) {
					t.Errorf("%s: the feed still carries %q, the content of a note it can no longer read", who, w)
				}
			}
		}

		// Bob, invited after the fact, with a key of the workspace.
		bobFeed, _ := feed(t, s, bobWS, "", "")
		bobEvents := byResource(bobFeed)
		hidden("Bob's workspace key", bobEvents, id1, "note.created", "note.deleted")
		tombstone("Bob's workspace key", bobEvents, id1)
		hidden("Bob's workspace key", bobEvents, id2, "note.created")
		shown("Bob's workspace key", bobEvents, id3, "note.created", n3)
		shown("Bob's workspace key", bobEvents, idB, "note.created", nb)
		noWord("Bob's workspace key", bobFeed, deletedWord, movedWord)

		// Ann still reads N2 (in her personal notebook) and N3; nobody reads the deleted N1.
		annFeed, _ := feed(t, s, annKey, "", "")
		annEvents := byResource(annFeed)
		hidden("Ann's key", annEvents, id1, "note.created", "note.deleted")
		tombstone("Ann's key", annEvents, id1)
		noWord("Ann's key", annFeed, deletedWord)
		shown("Ann's key", annEvents, id2, "note.created", n2)
		shown("Ann's key", annEvents, id2, "note.updated", movedBody)
		shown("Ann's key", annEvents, id3, "note.created", n3)

		// Bob leaves: his unrestricted key still lists the event he caused in the workspace, without
		// the content; Ann, still a member, reads it.
		apitest.Must(t, s.Delete(t, annKey, "/workspaces/"+ws+"/members/"+bob.ID), http.StatusOK)
		apitest.CheckEnvelope(t, s.Get(t, bobAll, "/notes/"+idB), http.StatusNotFound, "NOTE_NOT_FOUND")
		bobAfter, _ := feed(t, s, bobAll, "", "")
		hidden("Bob's key after his removal", byResource(bobAfter), idB, "note.created")
		noWord("Bob's key after his removal", bobAfter, bobWord)
		annWSFeed, _ := feed(t, s, annWS, "", "")
		shown("Ann's workspace key", byResource(annWSFeed), idB, "note.created", nb)
	})
}
