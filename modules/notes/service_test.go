package notes_test

import (
	"context"
	"testing"
	"time"

	"folio/modules/notes"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/markdown"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestItemContract runs the rules notes share with tasks.
func TestItemContract(t *testing.T) {
	apitest.ItemContract(t, func(g *apitest.Graph) apitest.ItemService[notes.Note] {
		return apitest.ItemService[notes.Note]{
			Kind: notes.ItemKind, NotFound: notes.ErrNotFound, Service: g.Notes,
			Create: func(ctx context.Context, p *auth.Principal, notebookID string, doc markdown.Doc) (notes.View, error) {
				return g.Notes.Create(ctx, p, notes.NewNote{NotebookID: notebookID, Content: doc})
			},
			Patch: func(ctx context.Context, p *auth.Principal, id string, doc *markdown.Doc, notebookID *string) (notes.View, error) {
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
