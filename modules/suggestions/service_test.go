package suggestions_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"folio/modules/items"
	"folio/modules/notes"
	"folio/modules/suggestions"
	"folio/modules/tasks"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/markdown"
	"folio/platform/paginate"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestStateMachine walks a note's suggestions through every transition: a suggestion keeps the
// item's content as it was and leaves the item alone; a newer one supersedes the pending one;
// approve applies the suggested content (with a snapshot of what it replaces), reject does not;
// a resolved suggestion cannot be resolved again.
func TestStateMachine(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		ann, annP := g.NewUser(t, "Ann")
		nb := g.NewNotebook(t, annP, "Mine", "")
		note, err := g.Notes.Create(ctx, annP, notes.NewNote{NotebookID: nb, Content: apitest.Doc(t, "original #old")})
		if err != nil {
			t.Fatal(err)
		}
		id := note.Item.ID
		content := func() string {
			t.Helper()
			v, err := g.Notes.Get(ctx, annP, id)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := markdown.Decode(v.Item.Content)
			if err != nil {
				t.Fatal(err)
			}
			return markdown.Render(doc)
		}
		statuses := func() map[string]string {
			t.Helper()
			list, _, err := g.Suggestions.List(ctx, annP, notes.ItemKind, id, paginate.Params{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]string{}
			for _, sg := range list {
				out[sg.ID] = sg.Status
			}
			return out
		}
		suggest := func(md string) suggestions.Suggestion {
			t.Helper()
			g.Clock.Advance(time.Second)
			sg, err := g.Suggestions.Suggest(ctx, annP, notes.ItemKind, id, apitest.Doc(t, md), "clearer")
			if err != nil {
				t.Fatal(err)
			}
			return sg
		}
		original := content()

		first := suggest("first proposal #new")
		if first.Status != suggestions.StatusPending || first.CreatedByID != ann.ID || first.Rationale != "clearer" {
			t.Fatalf("suggested %+v", first)
		}
		if content() != original {
			t.Fatalf("suggesting changed the note to %q", content())
		}
		second := suggest("second proposal #new")
		if got := statuses(); got[first.ID] != suggestions.StatusSuperseded || got[second.ID] != suggestions.StatusPending || len(got) != 2 {
			t.Fatalf("after a second suggestion: %v", got)
		}
		pending, err := g.Suggestions.PendingFor(ctx, notes.ItemKind, id)
		if err != nil || pending == nil || pending.ID != second.ID {
			t.Fatalf("pending %+v, %v", pending, err)
		}
		apitest.WantErr(t, errOf(g.Suggestions.Approve(ctx, annP, first.ID, suggestions.ApproveRequest{})), suggestions.ErrAlreadyResolved)

		// Reject: the content stays.
		apitest.WantErr(t, errOf(g.Suggestions.Reject(ctx, annP, "zzzzzzzzzzzzzzzzzzzzzzzz")), suggestions.ErrNotFound)
		if _, err := g.Suggestions.Reject(ctx, annP, second.ID); err != nil {
			t.Fatal(err)
		}
		if content() != original || statuses()[second.ID] != suggestions.StatusRejected {
			t.Fatalf("after reject: %q, %v", content(), statuses())
		}
		if pending, err := g.Suggestions.PendingFor(ctx, notes.ItemKind, id); err != nil || pending != nil {
			t.Fatalf("pending after reject %+v, %v", pending, err)
		}
		apitest.WantErr(t, errOf(g.Suggestions.Approve(ctx, annP, second.ID, suggestions.ApproveRequest{})), suggestions.ErrAlreadyResolved)

		// Approve: the suggested content replaces the note's, tags follow, the old one is kept.
		third := suggest("third proposal #new")
		g.Clock.Advance(time.Second)
		if _, err := g.Suggestions.Approve(ctx, annP, third.ID, suggestions.ApproveRequest{}); err != nil {
			t.Fatal(err)
		}
		if want := markdown.Render(apitest.Doc(t, "third proposal #new").Doc); content() != want {
			t.Fatalf("after approve the note holds %q, want %q", content(), want)
		}
		v, err := g.Notes.Get(ctx, annP, id)
		if err != nil || len(v.Tags) != 1 || v.Tags[0].Name != "new" || !v.Item.UpdatedAt.Equal(g.Clock.Now()) {
			t.Fatalf("approved note %+v, %v", v, err)
		}
		snaps, err := g.Versions.List(ctx, g.DB, notes.ItemKind, id)
		if err != nil || len(snaps) != 1 || snaps[0].Reason != items.ReasonSuggestion {
			t.Fatalf("snapshots %+v, %v", snaps, err)
		}
		if doc, err := markdown.Decode(snaps[0].Document); err != nil || markdown.Render(doc) != original {
			t.Fatalf("the snapshot holds %q, want %q (%v)", markdown.Render(doc), original, err)
		}
		apitest.WantErr(t, errOf(g.Suggestions.Reject(ctx, annP, third.ID)), suggestions.ErrAlreadyResolved)
		want := map[string]string{first.ID: suggestions.StatusSuperseded, second.ID: suggestions.StatusRejected, third.ID: suggestions.StatusApproved}
		if got := statuses(); len(got) != 3 || got[first.ID] != want[first.ID] || got[second.ID] != want[second.ID] || got[third.ID] != want[third.ID] {
			t.Fatalf("statuses %v, want %v", got, want)
		}
	})
}

// TestReach: suggesting and resolving need write access to the item; a suggestion of an item the
// caller cannot reach is not found, and so is one of a deleted item. Notes and tasks both take
// suggestions.
func TestReach(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		ann, annP := g.NewUser(t, "Ann")
		_, carlP := g.NewUser(t, "Carl")
		nb := g.NewNotebook(t, annP, "Mine", "")
		otherKey := g.NewKey(t, ann.ID, auth.ScopeReadWrite, apitest.KeyOpts{Notebook: g.NewNotebook(t, annP, "Other", "")})
		task, err := g.Tasks.Create(ctx, annP, tasks.NewTask{Title: "t", NotebookID: nb, Notes: apitest.Doc(t, "notes")})
		if err != nil {
			t.Fatal(err)
		}
		kinds := g.Suggestions.Kinds()
		if slices.Sort(kinds); !slices.Equal(kinds, []string{"note", "task"}) {
			t.Fatalf("suggestible kinds %v", kinds)
		}
		_, err = g.Suggestions.Suggest(ctx, carlP, tasks.ItemKind, task.Item.ID, apitest.Doc(t, "by Carl"), "")
		apitest.WantErr(t, err, tasks.ErrNotFound)
		sg, err := g.Suggestions.Suggest(ctx, annP, tasks.ItemKind, task.Item.ID, apitest.Doc(t, "by Ann"), "")
		if err != nil {
			t.Fatal(err)
		}
		apitest.WantErr(t, errOf(g.Suggestions.Approve(ctx, carlP, sg.ID, suggestions.ApproveRequest{})), suggestions.ErrNotFound)
		apitest.WantErr(t, errOf(g.Suggestions.Reject(ctx, otherKey, sg.ID)), suggestions.ErrNotFound)
		_, _, err = g.Suggestions.List(ctx, carlP, tasks.ItemKind, task.Item.ID, paginate.Params{Limit: 10})
		apitest.WantErr(t, err, tasks.ErrNotFound)

		if err := g.Tasks.Delete(ctx, annP, task.Item.ID, etag.IfMatch{}); err != nil {
			t.Fatal(err)
		}
		apitest.WantErr(t, errOf(g.Suggestions.Approve(ctx, annP, sg.ID, suggestions.ApproveRequest{})), suggestions.ErrNotFound)
		_, err = g.Suggestions.Suggest(ctx, annP, tasks.ItemKind, task.Item.ID, apitest.Doc(t, "again"), "")
		apitest.WantErr(t, err, tasks.ErrNotFound)
	})
}

// errOf is the error of a call that also returns a value.
func errOf[T any](_ T, err error) error { return err }
