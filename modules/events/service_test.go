package events_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"folio/modules/events"
	"folio/modules/journal"
	"folio/platform/auth"
	"folio/platform/db"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func noteEvent(id, notebookID string) journal.Event {
	return journal.Event{Type: "note.created", ResourceType: "note", ResourceID: id, NotebookID: &notebookID, Data: journal.Deleted(id)}
}

func resourceIDs(t *testing.T, g *apitest.Graph, p *auth.Principal, after string) ([]string, string) {
	t.Helper()
	q, err := events.ParseQuery(nil, after, "", "", false)
	if err != nil {
		t.Fatal(err)
	}
	rows, next, err := g.Events.List(context.Background(), p, q)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, r.ResourceID)
	}
	return out, next
}

// TestLateCommitIsNotSkipped: transaction A emits first but commits last. A reader that has
// already paged past B's event must still get A's. The row ids are in emission order (A's is the
// smaller), which is why the feed's order is the sequencer's, assigned after commit. On SQLite
// every write transaction holds the database's write lock from BEGIN (BEGIN IMMEDIATE), so B
// cannot even begin before A commits: there the interleaving cannot happen, and the test checks
// the same reads in the only order SQLite allows.
func TestLateCommitIsNotSkipped(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		_, p := g.NewUser(t, "Ann")
		nb := "nnnnnnnnnnnnnnnnnnnnnnn1"
		txA := g.DB.Begin()
		if err := g.Events.Emit(ctx, txA, p, noteEvent("aaaaaaaaaaaaaaaaaaaaaaaa", nb)); err != nil {
			t.Fatal(err)
		}
		commitA := func() {
			if err := txA.Commit().Error; err != nil {
				t.Fatal(err)
			}
		}
		if !db.IsPostgres(g.DB) {
			commitA()
		}
		txB := g.DB.Begin()
		if err := g.Events.Emit(ctx, txB, p, noteEvent("bbbbbbbbbbbbbbbbbbbbbbbb", nb)); err != nil {
			t.Fatal(err)
		}
		if err := txB.Commit().Error; err != nil {
			t.Fatal(err)
		}
		seen, cursor := resourceIDs(t, g, p, "")
		if db.IsPostgres(g.DB) {
			if !slices.Equal(seen, []string{"bbbbbbbbbbbbbbbbbbbbbbbb"}) {
				t.Fatalf("before A commits the feed shows %v, want B's event only", seen)
			}
			commitA()
			later, _ := resourceIDs(t, g, p, cursor)
			if !slices.Equal(later, []string{"aaaaaaaaaaaaaaaaaaaaaaaa"}) {
				t.Fatalf("after B's cursor the feed shows %v: A's event, committed later, was skipped", later)
			}
			return
		}
		if !slices.Equal(seen, []string{"aaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbb"}) {
			t.Fatalf("feed %v", seen)
		}
	})
}

// TestRetention: Cleanup deletes events older than 30 days and keeps younger ones.
func TestRetention(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		_, p := g.NewUser(t, "Ann")
		nb := "nnnnnnnnnnnnnnnnnnnnnnn1"
		emit := func(id string) {
			if err := g.Events.Emit(ctx, g.DB, p, noteEvent(id, nb)); err != nil {
				t.Fatal(err)
			}
		}
		emit("oooooooooooooooooooooooo")
		g.Clock.Advance(2 * 24 * time.Hour)
		emit("yyyyyyyyyyyyyyyyyyyyyyyy")
		if err := g.Events.Sequence(ctx); err != nil {
			t.Fatal(err)
		}
		g.Clock.Advance(events.Retention - 24*time.Hour) // the old one is 31 days old, the young one 29
		n, err := g.Events.Cleanup(ctx)
		if err != nil || n != 1 {
			t.Fatalf("cleanup deleted %d (%v), want 1", n, err)
		}
		if left, _ := resourceIDs(t, g, p, ""); !slices.Equal(left, []string{"yyyyyyyyyyyyyyyyyyyyyyyy"}) {
			t.Fatalf("left %v", left)
		}
	})
}

// TestIDs: ids sort as strings in feed order and read back; anything else is refused.
func TestIDs(t *testing.T) {
	prev := ""
	for _, seq := range []int64{0, 1, 9, 10, 999, 1 << 40, 1<<63 - 1} {
		id := events.FormatID(seq)
		if id <= prev {
			t.Fatalf("%s does not sort after %s", id, prev)
		}
		prev = id
		if back, ok := events.ParseID(id); !ok || back != seq {
			t.Fatalf("ParseID(%s) = %d, %v", id, back, ok)
		}
	}
	for _, bad := range []string{"", "evt_", "evt_1", "evt_-000000000000000001", "evt_+000000000000000001", "xvt_0000000000000000001", "evt_9999999999999999999"} {
		if _, ok := events.ParseID(bad); ok {
			t.Errorf("ParseID(%q) accepted", bad)
		}
	}
}
