package notes_test

import (
	"context"
	"testing"
	"time"

	"folio/modules/document"
	"folio/modules/items"
	"folio/modules/notes"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestItemContract runs the rules notes share with tasks.
func TestItemContract(t *testing.T) {
	apitest.ItemContract(t, func(g *apitest.Graph) apitest.ItemService[notes.Note] {
		return apitest.ItemService[notes.Note]{
			Kind: notes.ItemKind, NotFound: notes.ErrNotFound, Service: g.Notes,
			Create: func(ctx context.Context, p *auth.Principal, notebookID string, doc document.Parsed) (notes.View, error) {
				return g.Notes.Create(ctx, p, notes.NewNote{NotebookID: notebookID, Content: doc})
			},
			Patch: func(ctx context.Context, p *auth.Principal, id string, doc *document.Parsed, notebookID *string) (notes.View, error) {
				return g.Notes.Update(ctx, p, id, notes.Patch{Content: doc, NotebookID: notebookID}, etag.IfMatch{})
			},
		}
	})
}

// TestNoteFields: hasDecision follows the content on every write; an empty patch writes nothing
// (updatedAt unchanged); archive and the dates are set and cleared.
func TestNoteFields(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		_, p := g.NewUser(t, "Ann")
		nb := g.NewNotebook(t, p, "Mine", "")
		target := time.Date(2030, 2, 1, 9, 0, 0, 0, time.UTC)
		v, err := g.Notes.Create(ctx, p, notes.NewNote{NotebookID: nb, Content: apitest.Doc(t, "> **Decision:** we ship"), TargetAt: &target})
		if err != nil || !v.Item.HasDecision || v.Item.TargetAt == nil || !v.Item.TargetAt.Equal(target) || v.Item.Archived {
			t.Fatalf("created %+v, %v", v.Item, err)
		}
		created := v.Item.UpdatedAt

		g.Clock.Advance(time.Hour)
		if v, err = g.Notes.Update(ctx, p, v.Item.ID, notes.Patch{}, etag.IfMatch{}); err != nil || !v.Item.UpdatedAt.Equal(created) {
			t.Fatalf("an empty patch: %+v, %v", v.Item, err)
		}
		archived, cleared := true, (*time.Time)(nil)
		v, err = g.Notes.Update(ctx, p, v.Item.ID, notes.Patch{Content: ptr(apitest.Doc(t, "no decision")), Archived: &archived, TargetAt: &cleared}, etag.IfMatch{})
		if err != nil || v.Item.HasDecision || !v.Item.Archived || v.Item.TargetAt != nil || !v.Item.UpdatedAt.Equal(g.Clock.Now()) {
			t.Fatalf("patched %+v, %v", v.Item, err)
		}
		got, err := g.Notes.Get(ctx, p, v.Item.ID)
		if err != nil || got.Item.HasDecision || !got.Item.Archived || got.Item.TargetAt != nil {
			t.Fatalf("read back %+v, %v", got.Item, err)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// TestNoteKeepsItsOwnDates: a note created with its own createdAt, updatedAt and archived (what an
// import gives) keeps them, read back too; and a follow-up already past is not a reminder to fire.
func TestNoteKeepsItsOwnDates(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		_, p := g.NewUser(t, "Ann")
		nb := g.NewNotebook(t, p, "Mine", "")
		created, updated := time.Date(2021, 3, 4, 5, 6, 7, 8e6, time.UTC), time.Date(2022, 1, 2, 3, 4, 5, 0, time.UTC)
		past := g.Clock.Now().Add(-time.Hour)
		v, err := g.Notes.Create(ctx, p, notes.NewNote{NotebookID: nb, Content: apitest.Doc(t, "old"), Archived: true, CreatedAt: created, UpdatedAt: updated, FollowUpAt: &past})
		if err != nil {
			t.Fatal(err)
		}
		got, err := g.Notes.Get(ctx, p, v.Item.ID)
		if err != nil || !got.Item.CreatedAt.Equal(created) || !got.Item.UpdatedAt.Equal(updated) || !got.Item.Archived {
			t.Fatalf("read back %+v, %v", got.Item, err)
		}
		var disarmed int64
		if err := g.DB.Raw("SELECT COUNT(*) FROM notes WHERE id = ? AND follow_up_fired_at IS NOT NULL", v.Item.ID).Scan(&disarmed).Error; err != nil || disarmed != 1 {
			t.Fatalf("the past follow-up is armed (%d disarmed), %v", disarmed, err)
		}
		// Without them: now, and live.
		v, err = g.Notes.Create(ctx, p, notes.NewNote{NotebookID: nb, Content: apitest.Doc(t, "new")})
		if err != nil || !v.Item.CreatedAt.Equal(g.Clock.Now()) || !v.Item.UpdatedAt.Equal(g.Clock.Now()) || v.Item.Archived {
			t.Fatalf("created %+v, %v", v.Item, err)
		}
	})
}

// TestTagLinksCarryTheNoteTime: every tag link of a note holds the note's created_at (the tag
// filter walks idx_item_tags_tag_time by it), on create and after an edit; and the migration step
// that stamps links made before the column existed fills exactly those.
func TestTagLinksCarryTheNoteTime(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		_, p := g.NewUser(t, "Ann")
		nb := g.NewNotebook(t, p, "Mine", "")
		v, err := g.Notes.Create(ctx, p, notes.NewNote{NotebookID: nb, Content: apitest.Doc(t, "#roadmap with @dana")})
		if err != nil {
			t.Fatal(err)
		}
		g.Clock.Advance(time.Hour)
		if _, err = g.Notes.Update(ctx, p, v.Item.ID, notes.Patch{Content: ptr(apitest.Doc(t, "#roadmap #budget with @dana"))}, etag.IfMatch{}); err != nil {
			t.Fatal(err)
		}
		times := func() (out []time.Time) {
			var rows []struct{ ItemCreatedAt *time.Time }
			if err := g.DB.Raw("SELECT item_created_at FROM item_tags WHERE item_kind = 'note' AND item_id = ?", v.Item.ID).Scan(&rows).Error; err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if r.ItemCreatedAt == nil {
					t.Fatalf("a link without its time: %+v", rows)
				}
				out = append(out, *r.ItemCreatedAt)
			}
			return out
		}
		check := func(when string) {
			t.Helper()
			got := times()
			if len(got) != 3 {
				t.Fatalf("%s: %d links, want 3", when, len(got))
			}
			for _, at := range got {
				if !at.Equal(v.Item.CreatedAt) {
					t.Fatalf("%s: a link's time %v, want the note's created_at %v", when, at, v.Item.CreatedAt)
				}
			}
		}
		check("after an edit")
		if err := g.DB.Exec("UPDATE item_tags SET item_created_at = NULL WHERE item_id = ?", v.Item.ID).Error; err != nil {
			t.Fatal(err)
		}
		if err := items.StampTagTimes("test", "notes", notes.ItemKind).Migrate(g.DB); err != nil {
			t.Fatal(err)
		}
		check("after the stamping migration")
	})
}
