package e2e

import (
	"net/http"
	"testing"

	"folio/platform/config"
	"folio/platform/markdown"
	"folio/tests/apitest"
)

// TestOneRenderPerWrite: a write of an item's document renders it as Markdown once, the render
// that checks its length (markdown.ParseCanonical) or, for a document that comes stored (a
// restored version), the render of it; the search index, the event's data and the response take
// that text. What a write reads besides (the document a PATCH keeps, the item's content beside a
// suggestion, the documents of an approved suggestion) it reads as a GET does: from the render
// cache (no render, once read or written), or with the cache off, one render of each stored
// document. The count is the process's (markdown.Renders):
// the e2e tests run one at a time, and nothing in the background renders.
func TestOneRenderPerWrite(t *testing.T) {
	for _, cache := range []struct {
		name string
		mb   int
	}{{"cache on", config.Default().RenderCacheMB}, {"cache off", 0}} {
		t.Run(cache.name, func(t *testing.T) {
			apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
				w := newWorld(t, s)
				read := 0 // the renders of reading one stored document
				if cache.mb == 0 {
					read = 1
				}
				// The render cache is the process's: texts of this run only, so that an earlier
				// run's entries cannot answer for this one.
				run := " " + s.URL
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
						map[string]any{"content": "# Sync\n\nShip the **pagination** with @bob. #roadmap\n\n> **Decision:** behind a flag" + run, "notebookId": w.teamNB},
						http.StatusCreated, 1, &note},
					{"PATCH its content", http.MethodPatch, func() string { return "/notes/" + note },
						map[string]any{"content": "Only #budget now, with a [link](https://example.com/a) and `code`" + run}, http.StatusOK, 1, nil},
					{"PATCH the same content", http.MethodPatch, func() string { return "/notes/" + note },
						map[string]any{"content": "Only #budget now, with a [link](https://example.com/a) and `code`" + run}, http.StatusOK, 1, nil},
					{"suggest new content", http.MethodPost, func() string { return "/notes/" + note + "/suggest" },
						map[string]any{"content": "A *suggested* text for #budget, long enough to be cached" + run}, http.StatusCreated, 1 + read, &suggestion},
					{"approve it, read first", http.MethodPost, func() string {
						// The reviewer reads the suggestion first: its documents are then read as
						// they are stored (PostgreSQL's jsonb spaces them its own way).
						apitest.Must(t, s.Get(t, w.annRW, "/suggestions/"+suggestion), http.StatusOK)
						return "/suggestions/" + suggestion + "/approve"
					}, nil, http.StatusOK, 2 * read, nil},
					{"restore the first version", http.MethodPost, func() string {
						versions := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+note+"/versions"), http.StatusOK).Data(t)
						return "/notes/" + note + "/versions/" + versions[len(versions)-1]["id"].(string) + "/restore"
					}, nil, http.StatusOK, 1, nil},
					{"PATCH the note's other fields", http.MethodPatch, func() string { return "/notes/" + note },
						map[string]any{"archived": true, "targetAt": "2026-12-01"}, http.StatusOK, read, nil},
					{"POST a task with notes", http.MethodPost, func() string { return "/tasks" },
						map[string]any{"title": "Plan", "notes": "- [ ] draft the plan with @carl\n- [x] book the room #q3" + run, "notebookId": w.teamNB},
						http.StatusCreated, 1, &task},
					{"PATCH its notes", http.MethodPatch, func() string { return "/tasks/" + task },
						map[string]any{"notes": "| a | b |\n|---|---|\n| 1 | 2 |\n\nThe table *above*, long enough to be cached." + run}, http.StatusOK, 1, nil},
					{"PATCH the task's title", http.MethodPatch, func() string { return "/tasks/" + task },
						map[string]any{"title": "Plan v2", "status": "DONE"}, http.StatusOK, read, nil},
					{"POST a task without notes", http.MethodPost, func() string { return "/tasks" },
						map[string]any{"title": "Empty", "notebookId": w.annNB}, http.StatusCreated, 1, nil},
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
			}, func(c *config.Config) { c.RenderCacheMB = cache.mb })
		})
	}
}
