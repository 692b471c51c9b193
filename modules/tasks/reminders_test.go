package tasks_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/modules/document"
	"folio/modules/events"
	"folio/modules/notes"
	"folio/modules/tasks"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/tests/apitest"
)

// reminded lists the reminders in p's feed as "type itemId", oldest first, checking that each has
// no actor and the item as its data.
func reminded(t *testing.T, g *apitest.Graph, p *auth.Principal) []string {
	t.Helper()
	rows, _, err := g.Events.List(context.Background(), p, events.Query{Types: []string{"note.follow_up_due", "task.follow_up_due", "task.due"}, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range rows {
		var data struct{ ID string }
		if e.ActorUserID != "" || json.Unmarshal([]byte(e.Data), &data) != nil || data.ID != e.ResourceID {
			t.Errorf("reminder %s %s: actor %q, data %s", e.Type, e.ResourceID, e.ActorUserID, e.Data)
		}
		out = append(out, e.Type+" "+e.ResourceID)
	}
	return out
}

// fire runs the reminder loop's round now, as every instance does each tick.
func fire(t *testing.T, g *apitest.Graph) {
	t.Helper()
	if _, err := g.Reminders.Fire(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

// TestRemindersFireOnce: under a fake clock, a follow-up or due date fires its event once when it
// passes, with no actor and the item as data; changing the time re-arms it; clearing it, DONE,
// archiving and deleting disarm it; a time already past when set never fires; many concurrent
// rounds fire each reminder exactly once; a workspace member sees the reminders of the
// workspace's items and an outsider does not (CONTRACT.md section 21).
func TestRemindersFireOnce(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		t0 := g.Clock.Now()
		_, p := g.NewUser(t, "Ann")
		nb := g.NewNotebook(t, p, "Mine", "")
		at := func(d time.Duration) *time.Time { return ptr(t0.Add(d)) }

		due, err := g.Tasks.Create(ctx, p, tasks.NewTask{Title: "due in 1h, follow up in 2h", NotebookID: nb, DueAt: at(time.Hour), FollowUpAt: at(2 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		note, err := g.Notes.Create(ctx, p, notes.NewNote{Content: parse(t, "follow up in 1h"), NotebookID: nb, FollowUpAt: at(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		cleared, _ := g.Tasks.Create(ctx, p, tasks.NewTask{Title: "cleared", NotebookID: nb, DueAt: at(time.Hour)})
		deleted, _ := g.Notes.Create(ctx, p, notes.NewNote{Content: parse(t, "deleted"), NotebookID: nb, FollowUpAt: at(time.Hour)})
		archived, _ := g.Notes.Create(ctx, p, notes.NewNote{Content: parse(t, "archived"), NotebookID: nb, FollowUpAt: at(time.Hour)})
		done, _ := g.Tasks.Create(ctx, p, tasks.NewTask{Title: "done before due", NotebookID: nb, DueAt: at(time.Hour), FollowUpAt: at(time.Hour)})
		past, _ := g.Notes.Create(ctx, p, notes.NewNote{Content: parse(t, "set in the past"), NotebookID: nb, FollowUpAt: at(-time.Hour)})
		_ = past

		var none *time.Time
		if _, err := g.Tasks.Update(ctx, p, cleared.Item.ID, tasks.Patch{DueAt: &none}, etag.IfMatch{}); err != nil {
			t.Fatal(err)
		}
		if err := g.Notes.Delete(ctx, p, deleted.Item.ID, etag.IfMatch{}); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Notes.Update(ctx, p, archived.Item.ID, notes.Patch{Archived: ptr(true)}, etag.IfMatch{}); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Tasks.Update(ctx, p, done.Item.ID, tasks.Patch{Status: ptr("DONE")}, etag.IfMatch{}); err != nil {
			t.Fatal(err)
		}

		fire(t, g)
		if got := reminded(t, g, p); len(got) != 0 {
			t.Fatalf("before any time passed: %v", got)
		}
		g.Clock.Set(t0.Add(time.Hour))
		// An edit while the note's reminder is due but not yet fired neither loses nor repeats it.
		if _, err := g.Notes.Update(ctx, p, note.Item.ID, notes.Patch{Content: ptr(parse(t, "edited while due"))}, etag.IfMatch{}); err != nil {
			t.Fatal(err)
		}
		// Every instance runs a round each tick: eight at once fire each reminder once.
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() { fire(t, g) })
		}
		wg.Wait()
		want := []string{"task.due " + due.Item.ID, "note.follow_up_due " + note.Item.ID}
		if got := reminded(t, g, p); !sameSet(got, want) {
			t.Fatalf("at +1h: %v, want %v", got, want)
		}
		// Editing the note without touching its follow-up fires nothing again; moving it to +3h
		// re-arms it.
		if _, err := g.Notes.Update(ctx, p, note.Item.ID, notes.Patch{Content: ptr(parse(t, "edited"))}, etag.IfMatch{}); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Notes.Update(ctx, p, note.Item.ID, notes.Patch{FollowUpAt: ptrPtr(at(3 * time.Hour))}, etag.IfMatch{}); err != nil {
			t.Fatal(err)
		}
		g.Clock.Set(t0.Add(2 * time.Hour))
		fire(t, g)
		fire(t, g)
		want = append(want, "task.follow_up_due "+due.Item.ID)
		if got := reminded(t, g, p); !sameSet(got, want) {
			t.Fatalf("at +2h: %v, want %v", got, want)
		}
		// The task's follow-up was due and fired; a task that is DONE reminds of nothing, even
		// when its times pass or it is reopened after them.
		if _, err := g.Tasks.Update(ctx, p, done.Item.ID, tasks.Patch{Status: ptr("TODO")}, etag.IfMatch{}); err != nil {
			t.Fatal(err)
		}
		g.Clock.Set(t0.Add(3 * time.Hour))
		fire(t, g)
		want = append(want, "note.follow_up_due "+note.Item.ID)
		if got := reminded(t, g, p); !sameSet(got, want) {
			t.Fatalf("at +3h: %v, want %v", got, want)
		}
		// A time that passed while nothing ran fires once at the next round, however late.
		late, _ := g.Tasks.Create(ctx, p, tasks.NewTask{Title: "late", NotebookID: nb, FollowUpAt: at(4 * time.Hour)})
		g.Clock.Set(t0.Add(48 * time.Hour))
		fire(t, g)
		fire(t, g)
		want = append(want, "task.follow_up_due "+late.Item.ID)
		if got := reminded(t, g, p); !sameSet(got, want) {
			t.Fatalf("at +48h: %v, want %v", got, want)
		}
	})
}

// TestRemindersInTheWorkspaceFeed: a reminder of a workspace notebook's item is in the feed of
// every member (and their workspace keys), with its data, and not in an outsider's.
func TestRemindersInTheWorkspaceFeed(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		t0 := g.Clock.Now()
		_, ann := g.NewUser(t, "Ann")
		bobUser, bob := g.NewUser(t, "Bob")
		_, carl := g.NewUser(t, "Carl")
		ws := g.NewWorkspace(t, ann, "Team")
		if _, _, err := g.Workspaces.Invite(ctx, ann, ws, bobUser.Email); err != nil {
			t.Fatal(err)
		}
		nb := g.NewNotebook(t, ann, "Team notes", ws)
		task, err := g.Tasks.Create(ctx, ann, tasks.NewTask{Title: "team task", NotebookID: nb, DueAt: ptr(t0.Add(time.Minute))})
		if err != nil {
			t.Fatal(err)
		}
		g.Clock.Set(t0.Add(time.Minute))
		fire(t, g)
		want := []string{"task.due " + task.Item.ID}
		bobKey := g.NewKey(t, bob.UserID, auth.ScopeRead, apitest.KeyOpts{Workspace: ws})
		for name, p := range map[string]*auth.Principal{"owner": ann, "member": bob, "member's workspace key": bobKey} {
			if got := reminded(t, g, p); !sameSet(got, want) {
				t.Errorf("%s: %v, want %v", name, got, want)
			}
		}
		if got := reminded(t, g, carl); len(got) != 0 {
			t.Errorf("outsider: %v", got)
		}
	})
}

func parse(t *testing.T, md string) document.Parsed {
	t.Helper()
	d, err := document.Parse("content", md)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func ptrPtr(t *time.Time) **time.Time { return &t }

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		seen[x]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestReminderThatFailsHoldsUpNoOther: a reminder whose item cannot be rendered (its stored
// document damaged, and its stored text of an older codec, so that the read renders the tree)
// fails its round and stays armed; the reminders after it still fire.
func TestReminderThatFailsHoldsUpNoOther(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		t0 := g.Clock.Now()
		_, p := g.NewUser(t, "Ann")
		nb := g.NewNotebook(t, p, "Mine", "")
		broken, err := g.Notes.Create(ctx, p, notes.NewNote{Content: parse(t, "first"), NotebookID: nb, FollowUpAt: ptr(t0.Add(time.Minute))})
		if err != nil {
			t.Fatal(err)
		}
		fine, err := g.Notes.Create(ctx, p, notes.NewNote{Content: parse(t, "second"), NotebookID: nb, FollowUpAt: ptr(t0.Add(2 * time.Minute))})
		if err != nil {
			t.Fatal(err)
		}
		if err := g.DB.Exec("UPDATE notes SET content = ?, content_codec = 0 WHERE id = ?", `{"not":"a document"}`, broken.Item.ID).Error; err != nil {
			t.Fatal(err)
		}
		g.Clock.Set(t0.Add(time.Hour))
		if _, err := g.Reminders.Fire(ctx); err == nil || !strings.Contains(err.Error(), broken.Item.ID) {
			t.Fatalf("round error %v, want one naming %s", err, broken.Item.ID)
		}
		if got := reminded(t, g, p); !sameSet(got, []string{"note.follow_up_due " + fine.Item.ID}) {
			t.Fatalf("reminders %v, want only the second note's", got)
		}
		var armed int64
		if err := g.DB.Raw("SELECT count(*) FROM notes WHERE id = ? AND follow_up_fired_at IS NULL", broken.Item.ID).Scan(&armed).Error; err != nil || armed != 1 {
			t.Fatalf("the failed reminder is not armed any more (%d, %v)", armed, err)
		}
	})
}
