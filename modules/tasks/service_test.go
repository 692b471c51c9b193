package tasks_test

import (
	"context"
	"testing"
	"time"

	"folio/modules/document"
	"folio/modules/tasks"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/paginate"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestItemContract runs the rules tasks share with notes.
func TestItemContract(t *testing.T) {
	apitest.ItemContract(t, func(g *apitest.Graph) apitest.ItemService[tasks.Task] {
		return apitest.ItemService[tasks.Task]{
			Kind: tasks.ItemKind, NotFound: tasks.ErrNotFound, Service: g.Tasks,
			Create: func(ctx context.Context, p *auth.Principal, notebookID string, doc document.Parsed) (tasks.View, error) {
				return g.Tasks.Create(ctx, p, tasks.NewTask{Title: "a task", NotebookID: notebookID, Notes: doc})
			},
			Patch: func(ctx context.Context, p *auth.Principal, id string, doc *document.Parsed, notebookID *string) (tasks.View, error) {
				return g.Tasks.Update(ctx, p, id, tasks.Patch{Notes: doc, NotebookID: notebookID}, etag.IfMatch{})
			},
		}
	})
}

// TestTaskFields: a new task is TODO and MEDIUM unless told otherwise; title, status and priority
// are checked on create and update before anything is written; a title change takes no snapshot
// (only the notes are versioned); the status filter lists only tasks of that status.
func TestTaskFields(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		_, p := g.NewUser(t, "Ann")
		nb := g.NewNotebook(t, p, "Mine", "")
		v, err := g.Tasks.Create(ctx, p, tasks.NewTask{Title: "plain", NotebookID: nb})
		if err != nil || v.Item.Status != "TODO" || v.Item.Priority != "MEDIUM" || v.Item.Title != "plain" {
			t.Fatalf("created %+v, %v", v.Item, err)
		}
		due := time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC)
		done, err := g.Tasks.Create(ctx, p, tasks.NewTask{Title: "done", NotebookID: nb, Status: "DONE", Priority: "URGENT", DueAt: &due})
		if err != nil || done.Item.Status != "DONE" || done.Item.Priority != "URGENT" || !done.Item.DueAt.Equal(due) {
			t.Fatalf("created %+v, %v", done.Item, err)
		}
		for _, bad := range []struct {
			in   tasks.NewTask
			want *apierr.Error
		}{
			{tasks.NewTask{Title: " ", NotebookID: nb}, tasks.ErrTitle},
			{tasks.NewTask{Title: "t", NotebookID: nb, Status: "done"}, tasks.ErrStatus},
			{tasks.NewTask{Title: "t", NotebookID: nb, Priority: "CRITICAL"}, tasks.ErrPriority},
		} {
			_, err := g.Tasks.Create(ctx, p, bad.in)
			apitest.WantErr(t, err, bad.want)
		}

		g.Clock.Advance(time.Minute)
		title, status := "renamed", "IN_PROGRESS"
		v, err = g.Tasks.Update(ctx, p, v.Item.ID, tasks.Patch{Title: &title, Status: &status}, etag.IfMatch{})
		if err != nil || v.Item.Title != "renamed" || v.Item.Status != "IN_PROGRESS" || v.Item.Priority != "MEDIUM" || !v.Item.UpdatedAt.Equal(g.Clock.Now()) {
			t.Fatalf("updated %+v, %v", v.Item, err)
		}
		if snaps, err := g.Versions.List(ctx, g.DB, tasks.ItemKind, v.Item.ID); err != nil || len(snaps) != 0 {
			t.Fatalf("a title change took snapshots %+v (%v)", snaps, err)
		}
		blank, unknown := "", "WAITING"
		_, err = g.Tasks.Update(ctx, p, v.Item.ID, tasks.Patch{Title: &blank}, etag.IfMatch{})
		apitest.WantErr(t, err, tasks.ErrTitle)
		_, err = g.Tasks.Update(ctx, p, v.Item.ID, tasks.Patch{Status: &unknown}, etag.IfMatch{})
		apitest.WantErr(t, err, tasks.ErrStatus)

		list := func(status string) []string {
			t.Helper()
			views, _, err := g.Tasks.List(ctx, p, tasks.Filter{Status: &status}, paginate.Params{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, v := range views {
				out = append(out, v.Item.Title)
			}
			return out
		}
		if got := list("DONE"); len(got) != 1 || got[0] != "done" {
			t.Fatalf("DONE tasks %v", got)
		}
		if got := list("IN_PROGRESS"); len(got) != 1 || got[0] != "renamed" {
			t.Fatalf("IN_PROGRESS tasks %v", got)
		}
		_, _, err = g.Tasks.List(ctx, p, tasks.Filter{Status: &unknown}, paginate.Params{Limit: 10})
		apitest.WantErr(t, err, tasks.ErrQStatus)
	})
}
