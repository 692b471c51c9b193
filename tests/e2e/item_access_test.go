package e2e

import (
	"net/http"
	"slices"
	"testing"

	"folio/tests/apitest"
)

// Access to notes and tasks: every endpoint with every principal of newWorld (the runner is in
// matrix_test.go), what each principal's lists show, and the notes matrix with every kind of key.

// TestContentAccessMatrix sends every note and task endpoint with every principal of newWorld:
// Ann's personal item, a Team item and Carl's item, read, listed with each notebook filter,
// created, patched, moved and deleted. CONTRACT.md section 6: naming another notebook (query or
// body) is KEY_NOTEBOOK_MISMATCH / KEY_WORKSPACE_MISMATCH; an item fetched by its own id outside
// the key's reach is the kind's 404; scope comes before the request's shape, the shape before
// access.
func TestContentAccessMatrix(t *testing.T) {
	// Parallel: no timing, no process-wide state (see "Parallel tests" in docs/testing.md).
	t.Parallel()
	runKindMatrices(t, contentMatrix)
}

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
	t.Parallel()
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

// TestNoteAccess is the access matrix for notes: every kind of key against a personal note and a
// workspace note.
func TestNoteAccess(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		personal := createNote(t, s, w.annRW, w.annNB, "personal")["id"].(string)
		team := createNote(t, s, w.annRW, w.teamNB, "team")["id"].(string)
		const ok, scope, gone, nbMis, wsMis = "200", "403 INSUFFICIENT_SCOPE", "404 NOTE_NOT_FOUND", "403 KEY_NOTEBOOK_MISMATCH", "403 KEY_WORKSPACE_MISMATCH"
		// A move consumes its note: each cell moves a fresh Team note, which a refusal leaves as it was.
		freshTeamNote := func(t *testing.T) matrixReq {
			p := "/notes/" + createNote(t, s, w.annRW, w.teamNB, "team")["id"].(string)
			return matrixReq{path: p, body: map[string]any{"notebookId": w.annNB}, probe: []string{p}, probeKey: w.annRW}
		}
		runMatrix(t, s, w, []matrixRow{
			{"get personal note", "GET", fixed("/notes/"+personal, nil), map[string]string{"read": ok, "write": scope, "rw": ok, "ws": gone, "wsRead": gone, "nbTeam": gone, "nbPersonal": ok, "carl": gone, "bob": gone}},
			{"get team note", "GET", fixed("/notes/"+team, nil), map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": gone, "carl": gone, "bob": ok}},
			{"patch team note", "PATCH", fixed("/notes/"+team, map[string]any{"archived": false}), map[string]string{"read": scope, "write": ok, "rw": ok, "ws": ok, "wsRead": scope, "nbTeam": ok, "nbPersonal": gone, "carl": gone, "bob": ok}},
			{"create in team notebook", "POST", fixed("/notes", map[string]any{"content": "x", "notebookId": w.teamNB}), map[string]string{"read": scope, "write": "201", "rw": "201", "ws": "201", "wsRead": scope, "nbTeam": "201", "nbPersonal": nbMis, "carl": "404 NOTEBOOK_NOT_FOUND", "bob": "201"}},
			{"create in personal notebook", "POST", fixed("/notes", map[string]any{"content": "x", "notebookId": w.annNB}), map[string]string{"read": scope, "write": "201", "rw": "201", "ws": wsMis, "wsRead": scope, "nbTeam": nbMis, "nbPersonal": "201", "carl": "404 NOTEBOOK_NOT_FOUND", "bob": "404 NOTEBOOK_NOT_FOUND"}},
			{"list filtered to team notebook", "GET", fixed("/notes?notebookId="+w.teamNB, nil), map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": nbMis, "carl": "404 NOTEBOOK_NOT_FOUND", "bob": ok}},
			{"move team note to personal", "PATCH", freshTeamNote, map[string]string{"read": scope, "write": ok, "rw": ok, "ws": wsMis, "wsRead": scope, "nbTeam": nbMis, "nbPersonal": gone, "carl": gone, "bob": "404 NOTEBOOK_NOT_FOUND"}},
		})
		// Moving needs write access to both notebooks; then the note follows its new notebook.
		moved := apitest.Must(t, patch(t, s, w.annRW, "/notes/"+team, map[string]any{"notebookId": w.annNB}), http.StatusOK).JSON(t)
		if moved["notebookId"] != w.annNB {
			t.Fatalf("moved note in %v", moved["notebookId"])
		}
		wantErr(t, s.Get(t, w.bobRW, "/notes/"+team), http.StatusNotFound, "NOTE_NOT_FOUND")
		apitest.Must(t, patch(t, s, w.annRW, "/notes/"+team, map[string]any{"notebookId": w.teamNB}), http.StatusOK)

		// Lists are confined to what each key may see.
		for key, want := range map[string][]string{w.annTeamNB: {team}, w.annPersonalNB: {personal}, w.bobRW: {team}, w.carlRW: nil} {
			var got []string
			for _, n := range apitest.Must(t, s.Get(t, key, "/notes"), http.StatusOK).Data(t) {
				if id := n["id"].(string); id == team || id == personal {
					got = append(got, id)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("list: got %v, want %v", got, want)
			}
		}
	})
}
