package e2e

import (
	"bytes"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"folio/modules/versions"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/httpx"
	"folio/tests/apitest"
)

// This file holds the access matrices of notes and tasks with every principal of newWorld, the
// lists each principal sees, and the notes and tasks edge cases (empty PATCH, dates, limit and
// cursor, archived filter, error messages, sizes, inputs that must never be a 500). The matrix
// runner is in matrix_test.go.

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

// textWrite is a request that writes Markdown: a create, a PATCH or a suggestion on a note or a task.
type textWrite struct {
	name, method, path, field string
	extra                     map[string]any // the rest of the body
}

// textWrites are every request that writes Markdown, on Ann's note and task (paths) in her
// personal notebook.
func textWrites(w *world, note, task string) []textWrite {
	return []textWrite{
		{"create note", "POST", "/notes", "content", map[string]any{"notebookId": w.annNB}},
		{"patch note", "PATCH", note, "content", nil},
		{"create task", "POST", "/tasks", "notes", map[string]any{"title": "t", "notebookId": w.annNB}},
		{"patch task", "PATCH", task, "notes", nil},
		{"suggest on a note", "POST", note + "/suggest", "content", nil},
		{"suggest on a task", "POST", task + "/suggest", "content", nil},
	}
}

// send sends text in the request's Markdown field, as Ann.
func (tw textWrite) send(t *testing.T, s *apitest.Server, w *world, text string) apitest.Response {
	t.Helper()
	body := map[string]any{tw.field: text}
	for k, v := range tw.extra {
		body[k] = v
	}
	return s.Do(t, apitest.Request{Method: tw.method, Path: tw.path, Key: w.annRW, Body: body})
}

// notFoundCode is the 404 code of a kind.
func notFoundCode(kind string) string { return strings.ToUpper(kind) + "_NOT_FOUND" }

// TestContentAccessMatrix sends every note and task endpoint with every principal of newWorld:
// Ann's personal item, a Team item and Carl's item, read, listed with each notebook filter,
// created, patched, moved and deleted. CONTRACT.md section 6: naming another notebook (query or
// body) is KEY_NOTEBOOK_MISMATCH / KEY_WORKSPACE_MISMATCH; an item fetched by its own id outside
// the key's reach is the kind's 404; scope comes before the request's shape, the shape before
// access.
func TestContentAccessMatrix(t *testing.T) { runKindMatrices(t, contentMatrix) }

func contentMatrix(s *apitest.Server, w *world, kind string) []matrixRow {
	gone := "404 " + notFoundCode(kind)
	base := "/" + kind + "s"
	var personal, team, carls string
	// item returns the path of an existing item, created on first use (rows are built before the
	// subtests run, so the items are created lazily, inside a test).
	item := func(id *string, key, notebookID string) func(t *testing.T) string {
		return func(t *testing.T) string {
			if *id == "" {
				*id = newContent(t, s, key, kind, notebookID, "fixed #item @someone")
			}
			return base + "/" + *id
		}
	}
	personalPath, teamPath, carlPath := item(&personal, w.annRW, w.annNB), item(&team, w.annRW, w.teamNB), item(&carls, w.carlRW, w.carlNB)
	// onItem sends body to an existing item; a refusal must leave it unchanged.
	onItem := func(path func(*testing.T) string, ownerKey string, body any) func(t *testing.T) matrixReq {
		return func(t *testing.T) matrixReq {
			p := path(t)
			return matrixReq{path: p, body: body, probe: []string{p}, probeKey: ownerKey}
		}
	}
	// onFresh sends body to a new item per cell (moves and deletes consume their target).
	onFresh := func(ownerKey, notebookID string, body any, after func(t *testing.T, path string, r apitest.Response)) func(t *testing.T) matrixReq {
		return func(t *testing.T) matrixReq {
			p := base + "/" + newContent(t, s, ownerKey, kind, notebookID, "fresh #item")
			req := matrixReq{path: p, body: body, probe: []string{p}, probeKey: ownerKey}
			if after != nil {
				req.after = func(t *testing.T, r apitest.Response) { after(t, p, r) }
			}
			return req
		}
	}
	movedTo := func(notebookID string) func(t *testing.T, path string, r apitest.Response) {
		return func(t *testing.T, path string, r apitest.Response) {
			if got := r.Str(t, "notebookId"); got != notebookID {
				t.Errorf("moved to %s, want %s", got, notebookID)
			}
			if got := apitest.Must(t, s.Get(t, w.annRW, path), http.StatusOK).Str(t, "notebookId"); got != notebookID {
				t.Errorf("GET after the move: notebookId %s, want %s", got, notebookID)
			}
		}
	}
	deleted := func(t *testing.T, path string, r apitest.Response) {
		if string(r.Body) != `{"ok":true}` {
			t.Errorf("DELETE body %s", r.Body)
		}
		wantErr(t, s.Get(t, w.annRW, path), http.StatusNotFound, notFoundCode(kind))
		wantErr(t, s.Get(t, w.carlRW, path), http.StatusNotFound, notFoundCode(kind))
	}
	// A body that changes the item when accepted.
	change := map[string]any{"content": "patched #p"}
	badValue := map[string]any{"archived": "yes"}
	missingBody := map[string]any{"notebookId": w.carlNB}
	if kind == "task" {
		change = map[string]any{"status": "DONE", "priority": "URGENT"}
		badValue = map[string]any{"status": "done"}
	}
	onPersonal := func(body any) func(t *testing.T) matrixReq { return onItem(personalPath, w.annRW, body) }
	onTeam := func(body any) func(t *testing.T) matrixReq { return onItem(teamPath, w.annRW, body) }
	onCarls := func(body any) func(t *testing.T) matrixReq { return onItem(carlPath, w.carlRW, body) }
	get := func(path func(*testing.T) string) func(t *testing.T) matrixReq {
		return func(t *testing.T) matrixReq { return matrixReq{path: path(t)} }
	}
	// asMarkdown reads the item with Accept: text/markdown: a note answers with its content alone
	// (CONTRACT.md section 17), a task with its JSON as ever.
	asMarkdown := func(path func(*testing.T) string) func(t *testing.T) matrixReq {
		return func(t *testing.T) matrixReq {
			return matrixReq{path: path(t), header: map[string]string{"Accept": "text/markdown"}, after: func(t *testing.T, r apitest.Response) {
				wantType := map[string]string{"note": "text/markdown; charset=utf-8", "task": "application/json; charset=utf-8"}[kind]
				if got := r.Header.Get("Content-Type"); got != wantType {
					t.Errorf("Accept: text/markdown on a %s: Content-Type %q, want %q", kind, got, wantType)
				}
			}}
		}
	}
	unknownID := "zzzzzzzzzzzzzzzzzzzzzzzz"

	return []matrixRow{
		{name: "list", method: "GET", req: fixed(base, nil),
			want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": ok, "carl": ok, "bob": ok}},
		{name: "list filtered to the Team notebook", method: "GET", req: fixed(base+"?notebookId="+w.teamNB, nil),
			want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": nbMis, "carl": nbGone, "bob": ok}},
		{name: "list filtered to Ann's personal notebook", method: "GET", req: fixed(base+"?notebookId="+w.annNB, nil),
			want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": wsMis, "wsRead": wsMis, "nbTeam": nbMis, "nbPersonal": ok, "carl": nbGone, "bob": nbGone}},
		{name: "list filtered to Carl's notebook", method: "GET", req: fixed(base+"?notebookId="+w.carlNB, nil),
			want: map[string]string{"read": nbGone, "write": scope, "rw": nbGone, "ws": nbGone, "wsRead": nbGone, "nbTeam": nbMis, "nbPersonal": nbMis, "carl": ok, "bob": nbGone}},
		{name: "list filtered to an unknown notebook", method: "GET", req: fixed(base+"?notebookId="+unknownID, nil),
			want: map[string]string{"read": nbGone, "write": scope, "rw": nbGone, "ws": nbGone, "wsRead": nbGone, "nbTeam": nbMis, "nbPersonal": nbMis, "carl": nbGone, "bob": nbGone}},
		{name: "list with a bad archived value (shape before access)", method: "GET", req: fixed(base+"?archived=yes&notebookId="+w.carlNB, nil),
			want: map[string]string{"read": bad, "write": scope, "rw": bad, "ws": bad, "wsRead": bad, "nbTeam": bad, "nbPersonal": bad, "carl": bad, "bob": bad}},
		{name: "get Ann's personal item", method: "GET", req: get(personalPath),
			want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": gone, "wsRead": gone, "nbTeam": gone, "nbPersonal": ok, "carl": gone, "bob": gone}},
		{name: "get the Team item", method: "GET", req: get(teamPath),
			want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": gone, "carl": gone, "bob": ok}},
		{name: "get Carl's item", method: "GET", req: get(carlPath),
			want: map[string]string{"read": gone, "write": scope, "rw": gone, "ws": gone, "wsRead": gone, "nbTeam": gone, "nbPersonal": gone, "carl": ok, "bob": gone}},
		{name: "get Ann's personal item as Markdown", method: "GET", req: asMarkdown(personalPath),
			want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": gone, "wsRead": gone, "nbTeam": gone, "nbPersonal": ok, "carl": gone, "bob": gone}},
		{name: "get the Team item as Markdown", method: "GET", req: asMarkdown(teamPath),
			want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": gone, "carl": gone, "bob": ok}},
		{name: "get Carl's item as Markdown", method: "GET", req: asMarkdown(carlPath),
			want: map[string]string{"read": gone, "write": scope, "rw": gone, "ws": gone, "wsRead": gone, "nbTeam": gone, "nbPersonal": gone, "carl": ok, "bob": gone}},
		{name: "get an unknown id", method: "GET", req: fixed(base+"/"+unknownID, nil),
			want: map[string]string{"read": gone, "write": scope, "rw": gone, "ws": gone, "wsRead": gone, "nbTeam": gone, "nbPersonal": gone, "carl": gone, "bob": gone}},
		{name: "get a malformed id", method: "GET", req: fixed(base+"/Not-An-Id", nil),
			want: map[string]string{"read": gone, "write": scope, "rw": gone, "ws": gone, "wsRead": gone, "nbTeam": gone, "nbPersonal": gone, "carl": gone, "bob": gone}},
		{name: "create in the Team notebook", method: "POST", req: fixed(base, contentBody(kind, w.teamNB, "new #x")),
			want: map[string]string{"read": scope, "write": created, "rw": created, "ws": created, "wsRead": scope, "nbTeam": created, "nbPersonal": nbMis, "carl": nbGone, "bob": created}},
		{name: "create in Ann's personal notebook", method: "POST", req: fixed(base, contentBody(kind, w.annNB, "new #x")),
			want: map[string]string{"read": scope, "write": created, "rw": created, "ws": wsMis, "wsRead": scope, "nbTeam": nbMis, "nbPersonal": created, "carl": nbGone, "bob": nbGone}},
		{name: "create in Carl's notebook", method: "POST", req: fixed(base, contentBody(kind, w.carlNB, "new #x")),
			want: map[string]string{"read": scope, "write": nbGone, "rw": nbGone, "ws": nbGone, "wsRead": scope, "nbTeam": nbMis, "nbPersonal": nbMis, "carl": created, "bob": nbGone}},
		{name: "create in an unknown notebook", method: "POST", req: fixed(base, contentBody(kind, unknownID, "new")),
			want: map[string]string{"read": scope, "write": nbGone, "rw": nbGone, "ws": nbGone, "wsRead": scope, "nbTeam": nbMis, "nbPersonal": nbMis, "carl": nbGone, "bob": nbGone}},
		{name: "create without the required text field (shape before access)", method: "POST", req: fixed(base, missingBody),
			want: map[string]string{"read": scope, "write": missing, "rw": missing, "ws": missing, "wsRead": scope, "nbTeam": missing, "nbPersonal": missing, "carl": missing, "bob": missing}},
		{name: "patch Ann's personal item", method: "PATCH", req: onPersonal(change),
			want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": gone, "wsRead": scope, "nbTeam": gone, "nbPersonal": ok, "carl": gone, "bob": gone}},
		{name: "patch the Team item", method: "PATCH", req: onTeam(change),
			want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": ok, "wsRead": scope, "nbTeam": ok, "nbPersonal": gone, "carl": gone, "bob": ok}},
		{name: "patch Carl's item", method: "PATCH", req: onCarls(change),
			want: map[string]string{"read": scope, "write": gone, "rw": gone, "ws": gone, "wsRead": scope, "nbTeam": gone, "nbPersonal": gone, "carl": ok, "bob": gone}},
		{name: "empty patch of Ann's personal item", method: "PATCH", req: onPersonal(map[string]any{}),
			want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": gone, "wsRead": scope, "nbTeam": gone, "nbPersonal": ok, "carl": gone, "bob": gone}},
		{name: "empty patch of Carl's item", method: "PATCH", req: onCarls(map[string]any{}),
			want: map[string]string{"read": scope, "write": gone, "rw": gone, "ws": gone, "wsRead": scope, "nbTeam": gone, "nbPersonal": gone, "carl": ok, "bob": gone}},
		{name: "patch Carl's item with a bad value (shape before access)", method: "PATCH", req: onCarls(badValue),
			want: map[string]string{"read": scope, "write": bad, "rw": bad, "ws": bad, "wsRead": scope, "nbTeam": bad, "nbPersonal": bad, "carl": bad, "bob": bad}},
		{name: "patch an unknown id", method: "PATCH", req: fixed(base+"/"+unknownID, change),
			want: map[string]string{"read": scope, "write": gone, "rw": gone, "ws": gone, "wsRead": scope, "nbTeam": gone, "nbPersonal": gone, "carl": gone, "bob": gone}},
		{name: "move a Team item to Ann's personal notebook", method: "PATCH", req: onFresh(w.annRW, w.teamNB, map[string]any{"notebookId": w.annNB}, movedTo(w.annNB)),
			want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": wsMis, "wsRead": scope, "nbTeam": nbMis, "nbPersonal": gone, "carl": gone, "bob": nbGone}},
		{name: "move a personal item to the Team notebook", method: "PATCH", req: onFresh(w.annRW, w.annNB, map[string]any{"notebookId": w.teamNB}, movedTo(w.teamNB)),
			want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": gone, "wsRead": scope, "nbTeam": gone, "nbPersonal": nbMis, "carl": gone, "bob": gone}},
		{name: "move the Team item to Carl's notebook", method: "PATCH", req: onTeam(map[string]any{"notebookId": w.carlNB}),
			want: map[string]string{"read": scope, "write": nbGone, "rw": nbGone, "ws": nbGone, "wsRead": scope, "nbTeam": nbMis, "nbPersonal": gone, "carl": gone, "bob": nbGone}},
		{name: "move the Team item to an unknown notebook", method: "PATCH", req: onTeam(map[string]any{"notebookId": unknownID}),
			want: map[string]string{"read": scope, "write": nbGone, "rw": nbGone, "ws": nbGone, "wsRead": scope, "nbTeam": nbMis, "nbPersonal": gone, "carl": gone, "bob": nbGone}},
		{name: "move the Team item to its own notebook", method: "PATCH", req: onTeam(map[string]any{"notebookId": w.teamNB}),
			want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": ok, "wsRead": scope, "nbTeam": ok, "nbPersonal": gone, "carl": gone, "bob": ok}},
		{name: "delete a Team item", method: "DELETE", req: onFresh(w.annRW, w.teamNB, nil, deleted),
			want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": ok, "wsRead": scope, "nbTeam": ok, "nbPersonal": gone, "carl": gone, "bob": ok}},
		{name: "delete a personal item", method: "DELETE", req: onFresh(w.annRW, w.annNB, nil, deleted),
			want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": gone, "wsRead": scope, "nbTeam": gone, "nbPersonal": ok, "carl": gone, "bob": gone}},
		{name: "delete Carl's item", method: "DELETE", req: onFresh(w.carlRW, w.carlNB, nil, nil),
			want: map[string]string{"read": scope, "write": gone, "rw": gone, "ws": gone, "wsRead": scope, "nbTeam": gone, "nbPersonal": gone, "carl": ok, "bob": gone}},
		{name: "delete an item already deleted", method: "DELETE", req: func(t *testing.T) matrixReq {
			p := base + "/" + newContent(t, s, w.annRW, kind, w.teamNB, "doomed")
			apitest.Must(t, s.Delete(t, w.annRW, p), http.StatusOK)
			return matrixReq{path: p}
		}, want: map[string]string{"read": scope, "write": gone, "rw": gone, "ws": gone, "wsRead": scope, "nbTeam": gone, "nbPersonal": gone, "carl": gone, "bob": gone}},
	}
}

// TestContentListVisibility checks what each principal's GET /notes and GET /tasks return, with
// and without archived=true: exactly the items of the notebooks it may reach.
func TestContentListVisibility(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		keys := matrixKeys(w)
		bobNB := apitest.Must(t, s.Post(t, w.bobRW, "/notebooks", map[string]any{"name": "Bob personal"}), http.StatusCreated).Str(t, "id")
		for _, kind := range []string{"note", "task"} {
			t.Run(kind, func(t *testing.T) {
				base := "/" + kind + "s"
				mk := func(key, nb, name string, archived bool) string {
					id := newContent(t, s, key, kind, nb, name)
					if archived {
						apitest.Must(t, patch(t, s, key, base+"/"+id, map[string]any{"archived": true}), http.StatusOK)
					}
					return id
				}
				// Created in this order, so every list is newest first: b, c, tA, t, pA, p.
				p, pA := mk(w.annRW, w.annNB, "personal", false), mk(w.annRW, w.annNB, "personal archived", true)
				tm, tA := mk(w.bobRW, w.teamNB, "team by Bob", false), mk(w.annRW, w.teamNB, "team archived", true)
				c, b := mk(w.carlRW, w.carlNB, "Carl's", false), mk(w.bobRW, bobNB, "Bob's own", false)
				deleted := mk(w.annRW, w.teamNB, "deleted", false)
				apitest.Must(t, s.Delete(t, w.annRW, base+"/"+deleted), http.StatusOK)
				for _, tc := range []struct {
					col            string
					live, archived []string
				}{
					{"read", []string{tm, p}, []string{tA, pA}},
					{"rw", []string{tm, p}, []string{tA, pA}},
					{"ws", []string{tm}, []string{tA}},
					{"wsRead", []string{tm}, []string{tA}},
					{"nbTeam", []string{tm}, []string{tA}},
					{"nbPersonal", []string{p}, []string{pA}},
					{"carl", []string{c}, nil},
					{"bob", []string{b, tm}, []string{tA}},
				} {
					for query, want := range map[string][]string{"": tc.live, "?archived=false": tc.live, "?archived=true": tc.archived} {
						got := listIDs(t, s, keys[tc.col], base+query+map[bool]string{true: "&", false: "?"}[query != ""]+"limit=100")
						if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
							t.Errorf("%s GET %s%s: got %v, want %v", tc.col, base, query, got, want)
						}
					}
				}
			})
		}
	})
}

// auditCount is the number of audit entries on one resource, read from the table itself (every
// principal's view of the log is narrower than "all").
func auditCount(t testing.TB, s *apitest.Server, resourceID string) int64 {
	t.Helper()
	var n int64
	if err := s.DB.Table("audit_entries").Where("resource_id = ?", resourceID).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// TestContentPatchWithoutFields: PATCH {} answers 200 with the item exactly as it was (updatedAt
// included), writes nothing (no audit entry, no snapshot) and still needs access; a PATCH that
// sets a field takes updatedAt from the service's clock. Creating and deleting items does not
// touch their notebook's updatedAt.
func TestContentPatchWithoutFields(t *testing.T) {
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

// TestContentPaging: limit and cursor on GET /notes and GET /tasks. Pages walk the list newest
// first without gaps; a cursor naming an item deleted or archived since still works; a cursor
// naming no item of this list for this caller (unknown, malformed, another user's, another kind's,
// outside a notebook key's notebook) is 400 naming "cursor"; archived=true lists only archived
// items.
func TestContentPaging(t *testing.T) {
	apitest.ForEachDBWithClock(t, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		w := newWorld(t, s)
		type fixture struct {
			ids            []string // Ann's personal items, oldest first
			team, carlItem string
		}
		items := map[string]*fixture{}
		for _, kind := range []string{"note", "task"} {
			f := &fixture{}
			for i := 0; i < 7; i++ {
				fake.Advance(time.Millisecond)
				f.ids = append(f.ids, newContent(t, s, w.annRW, kind, w.annNB, "item "+strconv.Itoa(i)))
			}
			fake.Advance(time.Millisecond)
			f.team = newContent(t, s, w.annRW, kind, w.teamNB, "team item")
			f.carlItem = newContent(t, s, w.carlRW, kind, w.carlNB, "Carl's item")
			items[kind] = f
		}
		for _, kind := range []string{"note", "task"} {
			t.Run(kind, func(t *testing.T) {
				base := "/" + kind + "s"
				ids, teamItem, carlItem := items[kind].ids, items[kind].team, items[kind].carlItem
				otherKind := items[map[string]string{"note": "task", "task": "note"}[kind]].ids[3]
				rev := func(list []string) []string {
					out := slices.Clone(list)
					slices.Reverse(out)
					return out
				}
				all := append([]string{teamItem}, rev(ids)...)

				// Full walks with several page sizes.
				for _, limit := range []int{1, 2, 3, 8, 100, 1000} {
					if got := itemIDs(walk(t, s, w.annRW, base, limit)); !slices.Equal(got, all) {
						t.Fatalf("walk with limit %d: %v, want %v", limit, got, all)
					}
				}
				if got := listIDs(t, s, w.annRW, base); !slices.Equal(got, all) {
					t.Fatalf("default page: %v", got)
				}
				page := func(key, query string) []string { return listIDs(t, s, key, base+"?"+query) }

				// A cursor naming an item deleted or archived since keeps its place.
				apitest.Must(t, s.Delete(t, w.annRW, base+"/"+ids[4]), http.StatusOK)
				apitest.Must(t, patch(t, s, w.annRW, base+"/"+ids[2], map[string]any{"archived": true}), http.StatusOK)
				if got, want := page(w.annRW, "cursor="+ids[4]), []string{ids[3], ids[1], ids[0]}; !slices.Equal(got, want) {
					t.Fatalf("after the deleted cursor item: %v, want %v", got, want)
				}
				if got, want := page(w.annRW, "limit=1&cursor="+ids[2]), []string{ids[1]}; !slices.Equal(got, want) {
					t.Fatalf("after the archived cursor item: %v, want %v", got, want)
				}
				// The same cursor with a notebook filter, and the filter's own items only.
				if got, want := page(w.annRW, "notebookId="+w.annNB+"&cursor="+teamItem), []string{ids[6], ids[5], ids[3], ids[1], ids[0]}; !slices.Equal(got, want) {
					t.Fatalf("filtered list after a cursor of another visible notebook: %v, want %v", got, want)
				}
				// archived=true lists only archived items, archived=false only live ones.
				if got := page(w.annRW, "archived=true"); !slices.Equal(got, []string{ids[2]}) {
					t.Fatalf("archived=true: %v", got)
				}
				if got := page(w.annRW, "archived=false"); slices.Contains(got, ids[2]) || slices.Contains(got, ids[4]) || len(got) != 6 {
					t.Fatalf("archived=false: %v", got)
				}
				// The last page ends with nextCursor null.
				r := apitest.Must(t, s.Get(t, w.annRW, base+"?cursor="+ids[1]), http.StatusOK)
				if next, more := nextCursor(t, r); more || !slices.Equal(itemIDs(r.Data(t)), []string{ids[0]}) {
					t.Fatalf("last page: %s (next %q)", r.Body, next)
				}
				// A cursor at the very last item: an empty page, not an error.
				if got := page(w.annRW, "cursor="+ids[0]); len(got) != 0 {
					t.Fatalf("after the oldest item: %v", got)
				}

				for _, tc := range []struct {
					name, key, query string
				}{
					{"unknown id", w.annRW, "cursor=zzzzzzzzzzzzzzzzzzzzzzzz"},
					{"malformed", w.annRW, "cursor=not-an-id"},
					{"another user's item", w.annRW, "cursor=" + carlItem},
					{"an item of the other kind", w.annRW, "cursor=" + otherKind},
					{"an item outside the notebook key's notebook", w.annPersonalNB, "cursor=" + teamItem},
					{"an item outside the workspace key's workspace", w.annTeam, "cursor=" + ids[3]},
					{"a personal item for a member", w.bobRW, "cursor=" + ids[3]},
					{"a NUL", w.annRW, "cursor=%00"},
				} {
					wantErr(t, s.Get(t, tc.key, base+"?"+tc.query), http.StatusBadRequest, "VALIDATION_ERROR", "cursor")
				}
				for _, q := range []string{"limit=0", "limit=-1", "limit=abc", "limit=1.5", "limit=", "limit=%00", "limit=1e2"} {
					wantErr(t, s.Get(t, w.annRW, base+"?"+q), http.StatusBadRequest, "VALIDATION_ERROR", "limit")
				}
				for _, q := range []string{"archived=TRUE", "archived=1", "archived=yes", "archived="} {
					wantErr(t, s.Get(t, w.annRW, base+"?"+q), http.StatusBadRequest, "VALIDATION_ERROR", "archived")
				}
				// An empty cursor is no cursor.
				if got := page(w.annRW, "cursor="); len(got) != 6 {
					t.Fatalf("cursor= : %v", got)
				}
			})
		}
		// Tasks: status and archived filters combine.
		a := newContent(t, s, w.annRW, "task", w.annNB, "blocked and archived")
		apitest.Must(t, patch(t, s, w.annRW, "/tasks/"+a, map[string]any{"status": "BLOCKED", "archived": true}), http.StatusOK)
		b := newContent(t, s, w.annRW, "task", w.annNB, "blocked")
		apitest.Must(t, patch(t, s, w.annRW, "/tasks/"+b, map[string]any{"status": "BLOCKED"}), http.StatusOK)
		for query, want := range map[string][]string{
			"status=BLOCKED":                        {b},
			"status=BLOCKED&archived=true":          {a},
			"status=DONE&archived=true":             nil,
			"status=BLOCKED&notebookId=" + w.teamNB: nil,
		} {
			if got := listIDs(t, s, w.annRW, "/tasks?"+query); !slices.Equal(got, want) && len(got)+len(want) > 0 {
				t.Errorf("GET /tasks?%s: %v, want %v", query, got, want)
			}
		}
		for _, q := range []string{"status=done", "status=", "status=Blocked", "status=%00"} {
			wantErr(t, s.Get(t, w.annRW, "/tasks?"+q), http.StatusBadRequest, "VALIDATION_ERROR", "status")
		}
	})
}

// TestContentErrorMessages: every 400 of the notes, tasks and suggest endpoints names the field or
// query parameter at fault (CONTRACT.md section 1), with the right code: MISSING_FIELD for an
// absent or null required field, INVALID_MARKDOWN (naming the field, the construct and its line)
// for content the codec refuses, VALIDATION_ERROR for the rest.
func TestContentErrorMessages(t *testing.T) {
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

// TestContentSizes: note content, task notes and suggested content hold exactly 100,000 characters
// (code points, whatever their UTF-8 length) and refuse 100,001; a task title 500 and a rationale
// 2,000. What is accepted comes back whole.
func TestContentSizes(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		note := "/notes/" + newContent(t, s, w.annRW, "note", w.annNB, "short")
		task := "/tasks/" + newContent(t, s, w.annRW, "task", w.annNB, "short")
		for _, ch := range []string{"a", "é", "€", "😀"} {
			exact, over := strings.Repeat(ch, 100_000), strings.Repeat(ch, 100_001)
			for _, tc := range textWrites(w, note, task) {
				t.Run(tc.name+" "+ch, func(t *testing.T) {
					send := func(text string) apitest.Response { return tc.send(t, s, w, text) }
					wantErr(t, send(over), http.StatusBadRequest, "VALIDATION_ERROR", tc.field)
					r := send(exact)
					if r.Status != http.StatusOK && r.Status != http.StatusCreated {
						t.Fatalf("exactly 100,000 characters: %d %.300s", r.Status, r.Body)
					}
					field := tc.field
					if strings.HasSuffix(tc.path, "/suggest") {
						field = "suggestedContent"
					}
					if got := r.Str(t, field); got != exact {
						t.Fatalf("%s came back with %d characters, not the 100,000 sent", field, utf8.RuneCountInString(got))
					}
				})
			}
		}
		for _, tc := range []struct {
			name      string
			path      string
			body      map[string]any
			field     string
			exact, ok int
		}{
			{"task title", "/tasks", map[string]any{"notebookId": w.annNB}, "title", 500, http.StatusCreated},
			{"rationale", note + "/suggest", map[string]any{"content": "x"}, "rationale", 2000, http.StatusCreated},
		} {
			for _, ch := range []string{"a", "ü", "🦀"} {
				tc.body[tc.field] = strings.Repeat(ch, tc.exact)
				if got := apitest.Must(t, s.Post(t, w.annRW, tc.path, tc.body), tc.ok).Str(t, tc.field); got != tc.body[tc.field] {
					t.Fatalf("%s of %d %q came back as %d characters", tc.name, tc.exact, ch, utf8.RuneCountInString(got))
				}
				tc.body[tc.field] = strings.Repeat(ch, tc.exact+1)
				wantErr(t, s.Post(t, w.annRW, tc.path, tc.body), http.StatusBadRequest, "VALIDATION_ERROR", tc.field)
			}
		}
	})
}

// TestContentNoServerError throws hostile but well-formed requests at the content endpoints: no
// answer is a 500 (an error is a proper 4xx envelope), and everything stored reads back. Several
// rows were 500s on PostgreSQL: a NUL in a task title or a rationale, a tag name over 200
// characters, a content with thousands of distinct tags (too many bind parameters on both
// databases), a date whose UTC instant falls in the year 10000.
func TestContentNoServerError(t *testing.T) {
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
