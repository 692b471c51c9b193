package e2e

import (
	"net/http"
	"testing"

	"folio/platform/markdown"
	"folio/tests/apitest"
)

// TestOneRenderPerWrite: a write of an item's document renders it as Markdown once, the render
// that checks its length (markdown.ParseCanonical) or, for a document that comes stored (a
// restored version), the render of it; the stored text, the search index, the event's data and
// the response take that text. Everything else a write reads (the document a PATCH keeps, the
// item's content beside a suggestion, the documents of an approved suggestion) and every read
// (a note, a page, a task, a version, a suggestion, the inbox, the Focus view, the feed, the
// export) serves stored texts: no render at all (issue 35). The count is the process's
// (markdown.Renders), so the test is not parallel: the package's parallel tests start only once
// every sequential one has ended, and no other test renders beside it. The re-render has nothing
// to do on a new database.
func TestOneRenderPerWrite(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		note, task, suggestion := "", "", ""
		for _, step := range []struct {
			name    string
			method  string
			path    func() string
			body    map[string]any
			status  int
			renders int
			created *string
		}{
			{"POST a note", http.MethodPost, func() string { return "/notes" },
				map[string]any{"content": "# Sync\n\nShip the **pagination** with @bob. #roadmap\n\n> **Decision:** behind a flag", "notebookId": w.teamNB,
					"targetAt": "2026-12-01"},
				http.StatusCreated, 1, &note},
			{"GET it", http.MethodGet, (func() string { return "/notes/" + note }), nil, http.StatusOK, 0, nil},
			{"PATCH its content", http.MethodPatch, func() string { return "/notes/" + note },
				map[string]any{"content": "Only #budget now, with a [link](https://example.com/a) and `code`"}, http.StatusOK, 1, nil},
			{"PATCH the same content", http.MethodPatch, func() string { return "/notes/" + note },
				map[string]any{"content": "Only #budget now, with a [link](https://example.com/a) and `code`"}, http.StatusOK, 1, nil},
			{"suggest new content", http.MethodPost, func() string { return "/notes/" + note + "/suggest" },
				map[string]any{"content": "A *suggested* text for #budget"}, http.StatusCreated, 1, &suggestion},
			{"GET the note with its pending suggestion", http.MethodGet, (func() string { return "/notes/" + note }), nil, http.StatusOK, 0, nil},
			{"GET the suggestion", http.MethodGet, (func() string { return "/suggestions/" + suggestion }), nil, http.StatusOK, 0, nil},
			{"GET the inbox", http.MethodGet, (func() string { return "/suggestions" }), nil, http.StatusOK, 0, nil},
			{"approve it", http.MethodPost, func() string { return "/suggestions/" + suggestion + "/approve" }, nil, http.StatusOK, 0, nil},
			{"GET the versions", http.MethodGet, (func() string { return "/notes/" + note + "/versions" }), nil, http.StatusOK, 0, nil},
			{"GET a version", http.MethodGet, (func() string {
				versions := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note+"/versions"), http.StatusOK).Data(t)
				return "/notes/" + note + "/versions/" + versions[0]["id"].(string)
			}), nil, http.StatusOK, 0, nil},
			{"restore the first version", http.MethodPost, func() string {
				versions := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note+"/versions"), http.StatusOK).Data(t)
				return "/notes/" + note + "/versions/" + versions[len(versions)-1]["id"].(string) + "/restore"
			}, nil, http.StatusOK, 1, nil},
			{"PATCH the note's other fields", http.MethodPatch, func() string { return "/notes/" + note },
				map[string]any{"targetAt": "2026-12-02"}, http.StatusOK, 0, nil},
			{"GET the notes", http.MethodGet, (func() string { return "/notes" }), nil, http.StatusOK, 0, nil},
			{"GET the Focus view", http.MethodGet, (func() string { return "/focus?date=2026-12-02&tz=UTC" }), nil, http.StatusOK, 0, nil},
			{"POST a task with notes", http.MethodPost, func() string { return "/tasks" },
				map[string]any{"title": "Plan", "notes": "- [ ] draft the plan with @carl\n- [x] book the room #q3", "notebookId": w.teamNB},
				http.StatusCreated, 1, &task},
			{"PATCH its notes", http.MethodPatch, func() string { return "/tasks/" + task },
				map[string]any{"notes": "| a | b |\n|---|---|\n| 1 | 2 |\n\nThe table *above*."}, http.StatusOK, 1, nil},
			{"PATCH the task's title", http.MethodPatch, func() string { return "/tasks/" + task },
				map[string]any{"title": "Plan v2", "status": "DONE"}, http.StatusOK, 0, nil},
			{"GET the task", http.MethodGet, (func() string { return "/tasks/" + task }), nil, http.StatusOK, 0, nil},
			{"GET the tasks", http.MethodGet, (func() string { return "/tasks" }), nil, http.StatusOK, 0, nil},
			{"POST a task without notes", http.MethodPost, func() string { return "/tasks" },
				map[string]any{"title": "Empty", "notebookId": w.annNB}, http.StatusCreated, 1, nil},
			{"GET the feed", http.MethodGet, (func() string { return "/events" }), nil, http.StatusOK, 0, nil},
			{"GET the export", http.MethodGet, (func() string { return "/export" }), nil, http.StatusOK, 0, nil},
		} {
			path := step.path()
			before := markdown.Renders()
			r := s.Do(t, apitest.Request{Method: step.method, Path: path, Key: w.annRW, Body: step.body})
			renders := int(markdown.Renders() - before)
			apitest.Must(t, r, step.status)
			if renders != step.renders {
				t.Errorf("%s: %d renders, want %d", step.name, renders, step.renders)
			}
			if step.created != nil {
				*step.created = r.Str(t, "id")
			}
		}
		before := markdown.Renders()
		apitest.Must(t, s.Do(t, apitest.Request{Method: http.MethodGet, Path: "/notes/" + note, Key: w.annRW,
			Header: map[string]string{"Accept": "text/markdown"}}), http.StatusOK)
		if renders := markdown.Renders() - before; renders != 0 {
			t.Errorf("GET the note as Markdown: %d renders, want 0", renders)
		}
	})
}
