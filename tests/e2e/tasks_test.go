package e2e

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"folio/tests/apitest"
)

func TestTaskLifecycle(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		task := apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"title": "Prepare offsite", "notebookId": w.teamNB, "notes": "Ask @carol about #venue", "dueAt": "2026-12-24T10:00:00+02:00"}), http.StatusCreated).JSON(t)
		if got := fieldNames(task); !slices.Equal(got, []string{"archived", "createdAt", "dueAt", "followUpAt", "id", "notebookId", "notes", "priority", "status", "tags", "targetAt", "title", "updatedAt"}) {
			t.Fatalf("task fields %v", got)
		}
		if task["status"] != "TODO" || task["priority"] != "MEDIUM" || task["dueAt"] != "2026-12-24T08:00:00.000Z" || task["archived"] != false {
			t.Fatalf("defaults or date conversion wrong: %v", task)
		}
		if got := tagNames(t, task); !slices.Equal(got, []string{"TAG:venue", "PERSON:carol"}) {
			t.Fatalf("tags %v", got)
		}
		id := task["id"].(string)
		bare := apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"title": "No notes", "notebookId": w.teamNB, "notes": nil}), http.StatusCreated).JSON(t)
		if bare["notes"] != "" || len(bare["tags"].([]any)) != 0 {
			t.Fatalf("task without notes: %v", bare)
		}

		// Status may move between any two states; list filters by status.
		for _, st := range []string{"DONE", "BLOCKED", "TODO", "IN_PROGRESS"} {
			upd := apitest.Must(t, patch(t, s, w.annRW, "/tasks/"+id, map[string]any{"status": st}), http.StatusOK).JSON(t)
			if upd["status"] != st {
				t.Fatalf("status %v, want %s", upd["status"], st)
			}
		}
		inProgress := apitest.Must(t, s.Get(t, w.annRW, "/tasks?status=IN_PROGRESS"), http.StatusOK).Data(t)
		if len(inProgress) != 1 || inProgress[0]["id"] != id {
			t.Fatalf("status filter: %v", inProgress)
		}
		upd := apitest.Must(t, patch(t, s, w.annRW, "/tasks/"+id, map[string]any{"notes": nil, "dueAt": nil, "priority": "URGENT", "title": "Offsite"}), http.StatusOK).JSON(t)
		if upd["notes"] != "" || upd["dueAt"] != nil || upd["priority"] != "URGENT" || upd["title"] != "Offsite" || len(upd["tags"].([]any)) != 0 {
			t.Fatalf("after patch: %v", upd)
		}
		apitest.Must(t, s.Delete(t, w.annRW, "/tasks/"+id), http.StatusOK)
		wantErr(t, s.Get(t, w.annRW, "/tasks/"+id), http.StatusNotFound, "TASK_NOT_FOUND")
	})
}

func TestTaskValidation(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		id := apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"title": "t", "notebookId": w.annNB}), http.StatusCreated).Str(t, "id")
		for _, tc := range []struct {
			name         string
			method, path string
			body         any
			status       int
			code, field  string
		}{
			{"title missing", "POST", "/tasks", map[string]any{"notebookId": w.annNB}, 400, "MISSING_FIELD", "title"},
			{"title blank", "POST", "/tasks", map[string]any{"title": "  ", "notebookId": w.annNB}, 400, "VALIDATION_ERROR", "title"},
			{"title too long", "POST", "/tasks", map[string]any{"title": strings.Repeat("é", 501), "notebookId": w.annNB}, 400, "VALIDATION_ERROR", "title"},
			{"bad status", "POST", "/tasks", map[string]any{"title": "t", "notebookId": w.annNB, "status": "done"}, 400, "VALIDATION_ERROR", "status"},
			{"bad priority", "POST", "/tasks", map[string]any{"title": "t", "notebookId": w.annNB, "priority": "P1"}, 400, "VALIDATION_ERROR", "priority"},
			{"status null", "POST", "/tasks", map[string]any{"title": "t", "notebookId": w.annNB, "status": nil}, 400, "VALIDATION_ERROR", "status"},
			{"bad due date", "POST", "/tasks", map[string]any{"title": "t", "notebookId": w.annNB, "dueAt": "2026-13-01"}, 400, "VALIDATION_ERROR", "dueAt"},
			{"notes image", "POST", "/tasks", map[string]any{"title": "t", "notebookId": w.annNB, "notes": "![a](b.png)"}, 400, "INVALID_MARKDOWN", "notes"},
			{"patch title null", "PATCH", "/tasks/" + id, map[string]any{"title": nil}, 400, "VALIDATION_ERROR", "title"},
			{"patch priority null", "PATCH", "/tasks/" + id, map[string]any{"priority": nil}, 400, "VALIDATION_ERROR", "priority"},
			{"patch notebookId null", "PATCH", "/tasks/" + id, map[string]any{"notebookId": nil}, 400, "VALIDATION_ERROR", "notebookId"},
			{"patch tags (server-derived)", "PATCH", "/tasks/" + id, map[string]any{"tags": nil}, 400, "VALIDATION_ERROR", "tags"},
			{"list bad status", "GET", "/tasks?status=done", nil, 400, "VALIDATION_ERROR", "status"},
			{"unknown task", "GET", "/tasks/zzzzzzzzzzzzzzzzzzzzzzzz", nil, 404, "TASK_NOT_FOUND", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				// An empty field is in every message: the row checks the status and code only.
				wantErr(t, s.Do(t, apitest.Request{Method: tc.method, Path: tc.path, Key: w.annRW, Body: tc.body}), tc.status, tc.code, tc.field)
			})
		}
	})
}
