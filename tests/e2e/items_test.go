package e2e

import (
	"bytes"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/modules/versions"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/config"
	"folio/platform/httpx"
	"folio/tests/apitest"
)

// What notes and tasks (the items) share: the helpers that write either kind, an empty PATCH,
// dates, the error messages of bad requests, inputs that must never be a 500, and the notebook's
// item limit. Their access is in item_access_test.go, their paging in paging_test.go, their sizes
// in content_limits_test.go, their audit entries in audit_test.go.

// newContent creates a note (content text) or a task (notes text) and returns its id.
func newContent(t *testing.T, s *apitest.Server, key, kind, notebookID, text string) string {
	t.Helper()
	return apitest.Must(t, s.Post(t, key, "/"+kind+"s", contentBody(kind, notebookID, text)), http.StatusCreated).Str(t, "id")
}

// contentBody is a valid create body of a note or a task.
func contentBody(kind, notebookID, text string) map[string]any {
	if kind == "note" {
		return map[string]any{"content": text, "notebookId": notebookID}
	}
	return map[string]any{"title": "task: " + text, "notes": text, "notebookId": notebookID}
}

// textField is the Markdown field of a kind: a note's content, a task's notes.
func textField(kind string) string {
	if kind == "note" {
		return "content"
	}
	return "notes"
}

// notFoundCode is the 404 code of a kind.
func notFoundCode(kind string) string { return strings.ToUpper(kind) + "_NOT_FOUND" }

// TestContentPatchWithoutFields: PATCH {} answers 200 with the item exactly as it was (updatedAt
// included), writes nothing (no audit entry, no snapshot) and still needs access; a PATCH that
// sets a field takes updatedAt from the service's clock. Creating and deleting items does not
// touch their notebook's updatedAt.
func TestContentPatchWithoutFields(t *testing.T) {
	t.Parallel()
	apitest.ForEachDBWithClock(t, time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC), func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		ann, carl := s.NewUser(t, "Ann Patch"), s.NewUser(t, "Carl Patch")
		key, carlKey := s.NewKey(t, ann, auth.ScopeReadWrite), s.NewKey(t, carl, auth.ScopeReadWrite)
		nb := apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "patching"}), http.StatusCreated).JSON(t)
		nbID := nb["id"].(string)
		for _, kind := range []string{"note", "task"} {
			t.Run(kind, func(t *testing.T) {
				base := "/" + kind + "s"
				body := contentBody(kind, nbID, "Plan #q3 with @dana\n\n> **Decision:** ship it")
				body["targetAt"] = "2030-02-01T10:00:00+02:00"
				fake.Advance(time.Minute)
				created := apitest.Must(t, s.Post(t, key, base, body), http.StatusCreated).JSON(t)
				id := created["id"].(string)
				entries := auditCount(t, s, id)

				fake.Advance(time.Hour)
				got := apitest.Must(t, patch(t, s, key, base+"/"+id, map[string]any{}), http.StatusOK).JSON(t)
				if !reflect.DeepEqual(got, created) {
					t.Fatalf("PATCH {} changed the item:\n created %v\n patched %v", created, got)
				}
				read := apitest.Must(t, s.Get(t, key, base+"/"+id), http.StatusOK).JSON(t)
				delete(read, "pendingSuggestion")
				if !reflect.DeepEqual(read, created) {
					t.Fatalf("GET after PATCH {} differs from the created item:\n created %v\n read    %v", created, read)
				}
				if n := auditCount(t, s, id); n != entries {
					t.Fatalf("PATCH {} wrote %d audit entries", n-entries)
				}
				if snaps, err := versions.NewStore(nil, nil).List(t.Context(), s.DB, kind, id); err != nil || len(snaps) != 0 {
					t.Fatalf("PATCH {} saved %d snapshots (%v)", len(snaps), err)
				}
				// Still an access-checked request.
				wantErr(t, patch(t, s, carlKey, base+"/"+id, map[string]any{}), http.StatusNotFound, notFoundCode(kind))
				wantErr(t, patch(t, s, key, base+"/zzzzzzzzzzzzzzzzzzzzzzzz", map[string]any{}), http.StatusNotFound, notFoundCode(kind))

				// A PATCH that sets a field: updatedAt is the service clock's now, createdAt stays.
				upd := apitest.Must(t, patch(t, s, key, base+"/"+id, map[string]any{"archived": true}), http.StatusOK).JSON(t)
				if want := httpx.Time(fake.Now()); upd["updatedAt"] != want || upd["createdAt"] != created["createdAt"] {
					t.Fatalf("after a PATCH at %s: updatedAt %v, createdAt %v (was %v)", want, upd["updatedAt"], upd["createdAt"], created["createdAt"])
				}
				if n := auditCount(t, s, id); n != entries+1 {
					t.Fatalf("a PATCH with a field wrote %d audit entries, want 1", n-entries)
				}
				apitest.Must(t, s.Delete(t, key, base+"/"+id), http.StatusOK)
				wantErr(t, patch(t, s, key, base+"/"+id, map[string]any{}), http.StatusNotFound, notFoundCode(kind))
			})
		}
		// The notebook's item count moved with every create and delete; its updatedAt did not.
		if got := apitest.Must(t, s.Get(t, key, "/notebooks/"+nbID), http.StatusOK).JSON(t); got["updatedAt"] != nb["updatedAt"] {
			t.Fatalf("notebook updatedAt moved from %v to %v though only its items changed", nb["updatedAt"], got["updatedAt"])
		}
	})
}

// TestContentDates: every date field of notes and tasks, on create and on PATCH, accepts RFC 3339
// date-times with any offset (stored and returned in UTC with milliseconds) and plain dates
// (00:00 UTC); anything else is 400 VALIDATION_ERROR naming the field. The value read back from
// the database is the value answered.
func TestContentDates(t *testing.T) {
	t.Parallel()
	valid := []struct{ in, want string }{
		{"2026-03-01T23:30:00-05:00", "2026-03-02T04:30:00.000Z"},
		{"2026-03-01T10:00:00+05:45", "2026-03-01T04:15:00.000Z"},
		{"2026-01-01T00:30:00+01:00", "2025-12-31T23:30:00.000Z"},
		{"2026-03-01T10:00:00Z", "2026-03-01T10:00:00.000Z"},
		{"2026-03-01T10:00:00-00:00", "2026-03-01T10:00:00.000Z"},
		{"2026-03-01t10:00:00z", "2026-03-01T10:00:00.000Z"}, // RFC 3339 allows lower-case t and z
		{"2026-03-01T10:00:00.5Z", "2026-03-01T10:00:00.500Z"},
		{"2026-03-01T10:00:00.123999+00:00", "2026-03-01T10:00:00.123Z"},
		{"2026-03-01", "2026-03-01T00:00:00.000Z"},
		{"2028-02-29", "2028-02-29T00:00:00.000Z"},
		{"0000-01-01", "0000-01-01T00:00:00.000Z"},
		{"9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"},
	}
	invalid := []any{
		"2026-02-30", "2026-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "2026-1-1", "26-01-01", "2026/01/01",
		"2026-02-30T10:00:00Z", "2026-01-01T25:00:00Z", "2026-01-01T10:60:00Z", "2026-01-01T10:00:60Z",
		"2026-01-01T10:00:00", "2026-01-01T10:00Z", "2026-01-01 10:00:00Z", "2026-01-01T10:00:00+0100",
		"2026-01-01T10:00:00+24:00", "9999-12-31T23:00:00-02:00", "0000-01-01T00:00:00+01:00",
		"", " 2026-01-01", "2026-01-01\n", "2026-01-01\u0000", "tomorrow", "1767225600",
		20260101, true, []string{"2026-01-01"}, map[string]any{},
	}
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for _, tc := range []struct{ kind, field string }{
			{"note", "targetAt"}, {"note", "followUpAt"}, {"task", "dueAt"}, {"task", "targetAt"}, {"task", "followUpAt"},
		} {
			t.Run(tc.kind+" "+tc.field, func(t *testing.T) {
				base := "/" + tc.kind + "s"
				target := newContent(t, s, w.annRW, tc.kind, w.annNB, "dated")
				for _, v := range valid {
					body := contentBody(tc.kind, w.annNB, "dated")
					body[tc.field] = v.in
					created := apitest.Must(t, s.Post(t, w.annRW, base, body), http.StatusCreated)
					if got := created.Str(t, tc.field); got != v.want {
						t.Errorf("create with %q: %s = %q, want %q", v.in, tc.field, got, v.want)
						continue
					}
					if got := apitest.Must(t, s.Get(t, w.annRW, base+"/"+created.Str(t, "id")), http.StatusOK).Str(t, tc.field); got != v.want {
						t.Errorf("create with %q: read back %q, want %q", v.in, got, v.want)
					}
					if got := apitest.Must(t, patch(t, s, w.annRW, base+"/"+target, map[string]any{tc.field: v.in}), http.StatusOK).Str(t, tc.field); got != v.want {
						t.Errorf("patch with %q: %q, want %q", v.in, got, v.want)
					}
					if got := apitest.Must(t, s.Get(t, w.annRW, base+"/"+target), http.StatusOK).Str(t, tc.field); got != v.want {
						t.Errorf("patch with %q: read back %q, want %q", v.in, got, v.want)
					}
				}
				before := apitest.Must(t, s.Get(t, w.annRW, base+"/"+target), http.StatusOK).Body
				for _, bad := range invalid {
					body := contentBody(tc.kind, w.annNB, "dated")
					body[tc.field] = bad
					wantErr(t, s.Post(t, w.annRW, base, body), http.StatusBadRequest, "VALIDATION_ERROR", tc.field)
					wantErr(t, patch(t, s, w.annRW, base+"/"+target, map[string]any{tc.field: bad}), http.StatusBadRequest, "VALIDATION_ERROR", tc.field)
				}
				if after := apitest.Must(t, s.Get(t, w.annRW, base+"/"+target), http.StatusOK).Body; !bytes.Equal(before, after) {
					t.Fatalf("refused date PATCHes changed the item:\n%s\n%s", before, after)
				}
				// null clears, on PATCH and on create.
				if v, present := apitest.Must(t, patch(t, s, w.annRW, base+"/"+target, map[string]any{tc.field: nil}), http.StatusOK).JSON(t)[tc.field]; !present || v != nil {
					t.Fatalf("PATCH %s: null left %v", tc.field, v)
				}
				body := contentBody(tc.kind, w.annNB, "undated")
				body[tc.field] = nil
				if v, present := apitest.Must(t, s.Post(t, w.annRW, base, body), http.StatusCreated).JSON(t)[tc.field]; !present || v != nil {
					t.Fatalf("create with %s null: %v", tc.field, v)
				}
			})
		}
	})
}

// TestContentErrorMessages: every 400 of the notes, tasks and suggest endpoints names the field or
// query parameter at fault (CONTRACT.md section 1), with the right code: MISSING_FIELD for an
// absent or null required field, INVALID_MARKDOWN (naming the field, the construct and its line)
// for content the codec refuses, VALIDATION_ERROR for the rest.
func TestContentErrorMessages(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		note := "/notes/" + newContent(t, s, w.annRW, "note", w.annNB, "a note")
		task := "/tasks/" + newContent(t, s, w.annRW, "task", w.annNB, "a task")
		nb := w.annNB
		long := strings.Repeat("x", 100_001)
		type body = map[string]any
		for _, tc := range []struct {
			name, method, path string
			body               any
			code               string
			mentions           []string
		}{
			// POST /notes
			{"note: content missing", "POST", "/notes", body{"notebookId": nb}, "MISSING_FIELD", []string{"content"}},
			{"note: content null", "POST", "/notes", body{"content": nil, "notebookId": nb}, "MISSING_FIELD", []string{"content"}},
			{"note: content a number", "POST", "/notes", body{"content": 1, "notebookId": nb}, "VALIDATION_ERROR", []string{"content"}},
			{"note: content an array", "POST", "/notes", body{"content": []string{"x"}, "notebookId": nb}, "VALIDATION_ERROR", []string{"content"}},
			{"note: notebookId missing", "POST", "/notes", body{"content": "x"}, "MISSING_FIELD", []string{"notebookId"}},
			{"note: notebookId null", "POST", "/notes", body{"content": "x", "notebookId": nil}, "MISSING_FIELD", []string{"notebookId"}},
			{"note: notebookId a number", "POST", "/notes", body{"content": "x", "notebookId": 7}, "VALIDATION_ERROR", []string{"notebookId"}},
			{"note: archived on create", "POST", "/notes", body{"content": "x", "notebookId": nb, "archived": true}, "VALIDATION_ERROR", []string{"archived"}},
			{"note: unknown field", "POST", "/notes", body{"content": "x", "notebookId": nb, "title": "t"}, "VALIDATION_ERROR", []string{"title"}},
			{"note: id sent", "POST", "/notes", body{"content": "x", "notebookId": nb, "id": "abc"}, "VALIDATION_ERROR", []string{"id"}},
			{"note: hasDecision sent", "POST", "/notes", body{"content": "x", "notebookId": nb, "hasDecision": false}, "VALIDATION_ERROR", []string{"hasDecision"}},
			{"note: pendingSuggestion sent", "POST", "/notes", body{"content": "x", "notebookId": nb, "pendingSuggestion": nil}, "VALIDATION_ERROR", []string{"pendingSuggestion"}},
			{"note: createdAt sent", "POST", "/notes", body{"content": "x", "notebookId": nb, "createdAt": "2026-01-01"}, "VALIDATION_ERROR", []string{"createdAt"}},
			{"note: followUpAt bad", "POST", "/notes", body{"content": "x", "notebookId": nb, "followUpAt": "soon"}, "VALIDATION_ERROR", []string{"followUpAt"}},
			{"note: image on line 3", "POST", "/notes", body{"content": "a\n\n![x](https://e.x/a.png)", "notebookId": nb}, "INVALID_MARKDOWN", []string{"content", "image", "line 3"}},
			{"note: javascript link", "POST", "/notes", body{"content": "[x](javascript:alert(1))", "notebookId": nb}, "INVALID_MARKDOWN", []string{"content", "javascript", "line 1"}},
			{"note: NUL byte", "POST", "/notes", body{"content": "a\u0000b", "notebookId": nb}, "INVALID_MARKDOWN", []string{"content", "NUL", "line 1"}},
			{"note: nesting too deep", "POST", "/notes", body{"content": strings.Repeat("> ", 40) + "deep", "notebookId": nb}, "INVALID_MARKDOWN", []string{"content", "line 1"}},
			{"note: content too long", "POST", "/notes", body{"content": long, "notebookId": nb}, "VALIDATION_ERROR", []string{"content", "100000"}},
			// PATCH /notes/:id
			{"note patch: content null", "PATCH", note, body{"content": nil}, "VALIDATION_ERROR", []string{"content"}},
			{"note patch: notebookId null", "PATCH", note, body{"notebookId": nil}, "VALIDATION_ERROR", []string{"notebookId"}},
			{"note patch: archived null", "PATCH", note, body{"archived": nil}, "VALIDATION_ERROR", []string{"archived"}},
			{"note patch: archived a string", "PATCH", note, body{"archived": "true"}, "VALIDATION_ERROR", []string{"archived"}},
			{"note patch: targetAt bad", "PATCH", note, body{"targetAt": "2026-02-30"}, "VALIDATION_ERROR", []string{"targetAt"}},
			{"note patch: status (a task field)", "PATCH", note, body{"status": "DONE"}, "VALIDATION_ERROR", []string{"status"}},
			{"note patch: tags sent", "PATCH", note, body{"tags": []any{}}, "VALIDATION_ERROR", []string{"tags"}},
			{"note patch: image", "PATCH", note, body{"content": "![x](a.png)"}, "INVALID_MARKDOWN", []string{"content", "line 1"}},
			{"note patch: content too long", "PATCH", note, body{"content": long}, "VALIDATION_ERROR", []string{"content"}},
			// POST /tasks
			{"task: title missing", "POST", "/tasks", body{"notebookId": nb}, "MISSING_FIELD", []string{"title"}},
			{"task: title null", "POST", "/tasks", body{"title": nil, "notebookId": nb}, "MISSING_FIELD", []string{"title"}},
			{"task: title blank", "POST", "/tasks", body{"title": " \t\n", "notebookId": nb}, "VALIDATION_ERROR", []string{"title"}},
			{"task: title empty", "POST", "/tasks", body{"title": "", "notebookId": nb}, "VALIDATION_ERROR", []string{"title"}},
			{"task: title 501 characters", "POST", "/tasks", body{"title": strings.Repeat("ü", 501), "notebookId": nb}, "VALIDATION_ERROR", []string{"title"}},
			{"task: title with NUL", "POST", "/tasks", body{"title": "a\u0000b", "notebookId": nb}, "VALIDATION_ERROR", []string{"title"}},
			{"task: title a number", "POST", "/tasks", body{"title": 5, "notebookId": nb}, "VALIDATION_ERROR", []string{"title"}},
			{"task: notebookId missing", "POST", "/tasks", body{"title": "t"}, "MISSING_FIELD", []string{"notebookId"}},
			{"task: notes a number", "POST", "/tasks", body{"title": "t", "notebookId": nb, "notes": 3}, "VALIDATION_ERROR", []string{"notes"}},
			{"task: notes image on line 2", "POST", "/tasks", body{"title": "t", "notebookId": nb, "notes": "x\n![a](b.png)"}, "INVALID_MARKDOWN", []string{"notes", "line 2"}},
			{"task: notes too long", "POST", "/tasks", body{"title": "t", "notebookId": nb, "notes": long}, "VALIDATION_ERROR", []string{"notes"}},
			{"task: status lower case", "POST", "/tasks", body{"title": "t", "notebookId": nb, "status": "done"}, "VALIDATION_ERROR", []string{"status"}},
			{"task: status null", "POST", "/tasks", body{"title": "t", "notebookId": nb, "status": nil}, "VALIDATION_ERROR", []string{"status"}},
			{"task: priority unknown", "POST", "/tasks", body{"title": "t", "notebookId": nb, "priority": "CRITICAL"}, "VALIDATION_ERROR", []string{"priority"}},
			{"task: priority null", "POST", "/tasks", body{"title": "t", "notebookId": nb, "priority": nil}, "VALIDATION_ERROR", []string{"priority"}},
			{"task: dueAt bad", "POST", "/tasks", body{"title": "t", "notebookId": nb, "dueAt": "2026-02-30"}, "VALIDATION_ERROR", []string{"dueAt"}},
			{"task: archived on create", "POST", "/tasks", body{"title": "t", "notebookId": nb, "archived": false}, "VALIDATION_ERROR", []string{"archived"}},
			{"task: content (a note field)", "POST", "/tasks", body{"title": "t", "notebookId": nb, "content": "x"}, "VALIDATION_ERROR", []string{"content"}},
			// PATCH /tasks/:id
			{"task patch: title null", "PATCH", task, body{"title": nil}, "VALIDATION_ERROR", []string{"title"}},
			{"task patch: title blank", "PATCH", task, body{"title": "   "}, "VALIDATION_ERROR", []string{"title"}},
			{"task patch: title with NUL", "PATCH", task, body{"title": "\u0000"}, "VALIDATION_ERROR", []string{"title"}},
			{"task patch: status null", "PATCH", task, body{"status": nil}, "VALIDATION_ERROR", []string{"status"}},
			{"task patch: status unknown", "PATCH", task, body{"status": "WAITING"}, "VALIDATION_ERROR", []string{"status"}},
			{"task patch: priority lower case", "PATCH", task, body{"priority": "high"}, "VALIDATION_ERROR", []string{"priority"}},
			{"task patch: archived null", "PATCH", task, body{"archived": nil}, "VALIDATION_ERROR", []string{"archived"}},
			{"task patch: notebookId null", "PATCH", task, body{"notebookId": nil}, "VALIDATION_ERROR", []string{"notebookId"}},
			{"task patch: followUpAt bad", "PATCH", task, body{"followUpAt": "2026-13-01"}, "VALIDATION_ERROR", []string{"followUpAt"}},
			{"task patch: hasDecision sent", "PATCH", task, body{"hasDecision": true}, "VALIDATION_ERROR", []string{"hasDecision"}},
			{"task patch: notes image", "PATCH", task, body{"notes": "![a](b.png)"}, "INVALID_MARKDOWN", []string{"notes", "line 1"}},
			// POST /notes/:id/suggest, POST /tasks/:id/suggest
			{"suggest: content missing", "POST", note + "/suggest", body{"rationale": "r"}, "MISSING_FIELD", []string{"content"}},
			{"suggest: content null", "POST", task + "/suggest", body{"content": nil}, "MISSING_FIELD", []string{"content"}},
			{"suggest: content a number", "POST", note + "/suggest", body{"content": 1}, "VALIDATION_ERROR", []string{"content"}},
			{"suggest: content image", "POST", note + "/suggest", body{"content": "ok\n\n![i](x.png)"}, "INVALID_MARKDOWN", []string{"content", "line 3"}},
			{"suggest: content too long", "POST", task + "/suggest", body{"content": long}, "VALIDATION_ERROR", []string{"content"}},
			{"suggest: rationale too long", "POST", note + "/suggest", body{"content": "x", "rationale": strings.Repeat("r", 2001)}, "VALIDATION_ERROR", []string{"rationale"}},
			{"suggest: rationale with NUL", "POST", note + "/suggest", body{"content": "x", "rationale": "a\u0000"}, "VALIDATION_ERROR", []string{"rationale"}},
			{"suggest: rationale a number", "POST", task + "/suggest", body{"content": "x", "rationale": 2}, "VALIDATION_ERROR", []string{"rationale"}},
			{"suggest: status sent", "POST", note + "/suggest", body{"content": "x", "status": "APPROVED"}, "VALIDATION_ERROR", []string{"status"}},
			{"suggest: originalContent sent", "POST", note + "/suggest", body{"content": "x", "originalContent": "y"}, "VALIDATION_ERROR", []string{"originalContent"}},
			// Query parameters.
			{"list notes: limit", "GET", "/notes?limit=0", nil, "VALIDATION_ERROR", []string{"limit"}},
			{"list tasks: cursor", "GET", "/tasks?cursor=zzzzzzzzzzzzzzzzzzzzzzzz", nil, "VALIDATION_ERROR", []string{"cursor"}},
			{"list suggestions: limit", "GET", note + "/suggestions?limit=x", nil, "VALIDATION_ERROR", []string{"limit"}},
			{"list suggestions: cursor", "GET", note + "/suggestions?cursor=zzzzzzzzzzzzzzzzzzzzzzzz", nil, "VALIDATION_ERROR", []string{"cursor"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantErr(t, s.Do(t, apitest.Request{Method: tc.method, Path: tc.path, Key: w.annRW, Body: tc.body}), http.StatusBadRequest, tc.code, tc.mentions...)
			})
		}
	})
}

// TestContentNoServerError throws hostile but well-formed requests at the content endpoints: no
// answer is a 500 (an error is a proper 4xx envelope), and everything stored reads back. Several
// rows were 500s on PostgreSQL: a NUL in a task title or a rationale, a tag name over 200
// characters, a content with thousands of distinct tags (too many bind parameters on both
// databases), a date whose UTC instant falls in the year 10000.
func TestContentNoServerError(t *testing.T) {
	// Parallel: no timing, no process-wide state (see "Parallel tests" in docs/testing.md).
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		note := "/notes/" + newContent(t, s, w.annRW, "note", w.teamNB, "target")
		task := "/tasks/" + newContent(t, s, w.annRW, "task", w.teamNB, "target")
		var manyTags, manyMentions strings.Builder
		for i := 0; manyTags.Len() < 99_980; i++ {
			manyTags.WriteString("#t" + strconv.FormatInt(int64(i), 36) + " ")
			manyMentions.WriteString("@P" + strconv.FormatInt(int64(i), 36) + " ")
		}
		many := manyTags.String()
		type body = map[string]any
		type request struct {
			method, path string
			body         any
		}
		// Heavy requests (thousands of tags, big documents) are sent once; the others by three
		// principals.
		heavy := []request{
			{"PATCH", note, body{"content": many}},
			{"PATCH", note, body{"content": strings.ToUpper(many)}}, // the same tags, all existing
			{"PATCH", note, body{"notebookId": w.annNB}},            // re-tags thousands in another space
			{"POST", "/tasks", body{"notebookId": w.teamNB, "title": "t", "notes": manyMentions.String()}},
			{"GET", "/tasks?limit=99999999999999999999999", nil},
		}
		light := []request{
			{"POST", "/notes", body{"notebookId": w.teamNB, "content": "#" + strings.Repeat("a", 300)}},
			{"POST", "/notes", body{"notebookId": w.teamNB, "content": "@" + strings.Repeat("é", 5000)}},
			{"POST", "/notes", body{"notebookId": w.teamNB, "content": "#" + strings.Repeat("İ", 3000)}},
			{"POST", "/notes", body{"notebookId": w.teamNB, "content": "#" + strings.Repeat("tag", 33_000)}},
			{"POST", "/tasks", body{"notebookId": w.teamNB, "title": "a\u0000b"}},
			{"PATCH", task, body{"title": "\u0000"}},
			{"POST", task + "/suggest", body{"content": "x", "rationale": "\u0000"}},
			{"POST", "/notes", body{"notebookId": w.teamNB, "content": "x", "targetAt": "9999-12-31T23:59:59-23:59"}},
			{"POST", "/tasks", body{"notebookId": w.teamNB, "title": "t", "dueAt": "0000-01-01T00:00:00+00:01"}},
			{"POST", "/notes", body{"notebookId": w.teamNB, "content": strings.Repeat("> ", 10_000) + "x"}},
			{"POST", "/notes", body{"notebookId": w.teamNB, "content": strings.Repeat("- ", 10_000) + "x"}},
			{"POST", "/notes", body{"notebookId": w.teamNB, "content": strings.Repeat("#", 99_999)}},
			{"POST", "/notes", body{"notebookId": w.teamNB, "content": strings.Repeat("@", 99_999)}},
			{"POST", "/notes", body{"notebookId": w.teamNB, "content": strings.Repeat("`", 99_999)}},
			{"POST", "/notes", body{"notebookId": w.teamNB, "content": "|" + strings.Repeat("a|", 2000) + "\n|" + strings.Repeat("-|", 2000)}},
			{"POST", "/notes", body{"notebookId": w.teamNB, "content": "\ufeff\r\n#bom\r\n\u2028\u00a0@x"}},
			{"POST", "/notes", body{"notebookId": strings.Repeat("a", 10_000), "content": "x"}},
			{"POST", "/notes", `{"notebookId": "` + w.teamNB + `", "content": ` + strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000) + `}`},
			{"POST", "/notes", `{"notebookId": "` + w.teamNB + `", "content": "\ud800\udc00\ud800"}`},
			{"GET", "/notes?notebookId=%00", nil},
			{"GET", "/notes?notebookId=%FF%FE", nil},
			{"GET", "/notes?notebookId=" + strings.Repeat("z", 5000), nil},
			{"GET", "/tasks?status=%FF", nil},
			{"GET", "/tasks?cursor=%FF", nil},
			{"GET", "/tasks?archived=%00", nil},
			{"GET", "/notes/%00", nil},
			{"GET", "/notes/%FF", nil},
			{"GET", "/tasks/" + strings.Repeat("x", 2000), nil},
			{"PATCH", "/tasks/%00", body{}},
			{"DELETE", "/notes/%25", nil},
			{"GET", "/notes/%00/suggestions", nil},
			{"POST", "/suggestions/%00/approve", nil},
			{"POST", "/suggestions/" + strings.Repeat("s", 300) + "/reject", nil},
		}
		send := func(row request, keys ...string) {
			for _, key := range keys {
				r := s.Do(t, apitest.Request{Method: row.method, Path: row.path, Key: key, Body: row.body})
				if r.Status >= 500 {
					t.Errorf("%s %.80s: %d %s", row.method, row.path, r.Status, r.Body)
				} else if r.Status >= 400 {
					apitest.CheckEnvelope(t, r, r.Status, r.ErrorCode(t))
				}
			}
		}
		for _, row := range heavy {
			send(row, w.annRW)
		}
		for _, row := range light {
			send(row, w.annRW, w.annTeamNB, w.bobRW)
		}
		// Everything stored reads back, in full lists too.
		for _, path := range []string{"/notes?limit=100", "/notes?limit=100&archived=true", "/tasks?limit=100", note, task, note + "/suggestions"} {
			for _, key := range []string{w.annRW, w.bobRW} {
				if r := s.Get(t, key, path); r.Status >= 500 {
					t.Errorf("GET %s: %d %s", path, r.Status, r.Body)
				}
			}
		}
	})
}

// TestItemLimit: notes and tasks share a notebook's FOLIO_NOTEBOOK_ITEM_LIMIT; deletes free slots,
// moves need a slot in the target, and concurrent creates never pass the limit.
func TestItemLimit(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		note := createNote(t, s, w.annRW, w.annNB, "one")["id"].(string)
		apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"title": "two", "notebookId": w.annNB}), http.StatusCreated)
		apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"title": "three", "notebookId": w.annNB}), http.StatusCreated)
		wantErr(t, s.Post(t, w.annRW, "/notes", map[string]any{"content": "four", "notebookId": w.annNB}), http.StatusForbidden, "ITEM_LIMIT_REACHED")
		wantErr(t, s.Post(t, w.annRW, "/tasks", map[string]any{"title": "four", "notebookId": w.annNB}), http.StatusForbidden, "ITEM_LIMIT_REACHED")
		// A move into the full notebook is refused too.
		other := createNote(t, s, w.annRW, w.teamNB, "elsewhere")["id"].(string)
		wantErr(t, patch(t, s, w.annRW, "/notes/"+other, map[string]any{"notebookId": w.annNB}), http.StatusForbidden, "ITEM_LIMIT_REACHED")
		// Deleting frees a slot.
		apitest.Must(t, s.Delete(t, w.annRW, "/notes/"+note), http.StatusOK)
		apitest.Must(t, patch(t, s, w.annRW, "/notes/"+other, map[string]any{"notebookId": w.annNB}), http.StatusOK)

		// Concurrent creates in an empty notebook: exactly the limit succeed.
		nb := apitest.Must(t, s.Post(t, w.annRW, "/notebooks", map[string]any{"name": "race"}), http.StatusCreated).Str(t, "id")
		created := race(t, "create", 12, func(int) int {
			return s.Post(t, w.annRW, "/notes", map[string]any{"content": "race", "notebookId": nb}).Status
		}, http.StatusCreated, http.StatusForbidden)
		if created != 3 {
			t.Fatalf("%d concurrent creates succeeded, want exactly the limit 3", created)
		}
	}, func(c *config.Config) { c.NotebookItemLimit = 3 })
}
