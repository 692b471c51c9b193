package apitest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"folio/modules/audit"
	"folio/modules/document"
	"folio/modules/items"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/config"
	"folio/platform/etag"
	"folio/platform/markdown"
	"folio/platform/paginate"
)

// item is one note or task as ItemContract sees it.
type item struct {
	ID, NotebookID string
	UpdatedAt      time.Time
	Tags           []items.Tag
}

// ItemService adapts a content module's service (notes, tasks) to ItemContract.
type ItemService[Row any] struct {
	Kind     string        // the item kind: "note"
	NotFound *apierr.Error // the kind's 404
	Service  interface {
		Get(ctx context.Context, p *auth.Principal, id string) (items.View[Row], error)
		Delete(ctx context.Context, p *auth.Principal, id string, ifMatch etag.IfMatch) error
	}
	Create func(ctx context.Context, p *auth.Principal, notebookID string, doc document.Parsed) (items.View[Row], error)
	// Patch replaces the item's document (a note's content, a task's notes) and moves it to
	// another notebook; nil leaves either as it is.
	Patch func(ctx context.Context, p *auth.Principal, id string, doc *document.Parsed, notebookID *string) (items.View[Row], error)
}

// itemLimit is the notebook item limit ItemContract runs under.
const itemLimit = 3

// ItemContract runs the rules every kind of item keeps through modules/items, on both databases:
// create, a document update with its snapshot, a move between tag spaces, the notebook item limit,
// delete, the reach of other principals and the audit entries. svc builds the adapter on a graph.
func ItemContract[Row any, R interface {
	*Row
	ItemColumns() *items.Columns
}](t *testing.T, adapter func(g *Graph) ItemService[Row]) {
	ForEachGraph(t, func(t *testing.T, g *Graph) {
		s := itemOps(adapter(g), func(v items.View[Row]) item {
			c := R(&v.Item).ItemColumns()
			return item{ID: c.ID, NotebookID: c.NotebookID, UpdatedAt: c.UpdatedAt, Tags: v.Tags}
		})
		ctx := context.Background()
		ann, annP := g.NewUser(t, "Ann")
		_, carlP := g.NewUser(t, "Carl")
		team := g.NewWorkspace(t, annP, "Team")
		personal, teamNB := g.NewNotebook(t, annP, "Mine", ""), g.NewNotebook(t, annP, "Team notes", team)
		teamKey := g.NewKey(t, ann.ID, auth.ScopeReadWrite, KeyOpts{Notebook: teamNB})
		count := func(id string) int {
			t.Helper()
			nb, err := g.Notebooks.Get(ctx, annP, id)
			if err != nil {
				t.Fatal(err)
			}
			return nb.ItemCount
		}
		tagNames := func(it item) string {
			out := ""
			for _, tg := range it.Tags {
				out += tg.Kind + ":" + tg.Name + " "
			}
			return out
		}

		// Create: tagged in the notebook's space, one slot taken.
		it, err := s.Create(ctx, annP, personal, Doc(t, "first #alpha @bob"))
		if err != nil {
			t.Fatal(err)
		}
		if it.NotebookID != personal || tagNames(it) != "TAG:alpha PERSON:bob " || !it.UpdatedAt.Equal(g.Clock.Now()) || count(personal) != 1 {
			t.Fatalf("created %+v (tags %q), notebook holds %d", it, tagNames(it), count(personal))
		}
		personalAlpha := it.Tags[0].ID

		// A new document: the old one is snapshotted, the tags follow; the same document again
		// writes no snapshot.
		g.Clock.Advance(time.Minute)
		it, err = s.SetDocument(ctx, annP, it.ID, Doc(t, "second #beta"))
		if err != nil || tagNames(it) != "TAG:beta " || !it.UpdatedAt.Equal(g.Clock.Now()) {
			t.Fatalf("updated %+v (tags %q), %v", it, tagNames(it), err)
		}
		if _, err := s.SetDocument(ctx, annP, it.ID, Doc(t, "second #beta")); err != nil {
			t.Fatal(err)
		}
		snaps, err := g.Versions.List(ctx, g.DB, s.Kind, it.ID)
		if err != nil || len(snaps) != 1 || snaps[0].Reason != items.ReasonUpdate || snaps[0].ActorUserID != ann.ID {
			t.Fatalf("snapshots %+v (%v), want the first document's", snaps, err)
		}
		if old, err := markdown.Decode(snaps[0].Document); err != nil || markdown.Render(old) != markdown.Render(Doc(t, "first #alpha @bob").Doc) {
			t.Fatalf("snapshot holds %q (%v)", markdown.Render(old), err)
		}

		// A move to the workspace's notebook: slots follow, the tags move to the workspace's space.
		it, err = s.SetDocument(ctx, annP, it.ID, Doc(t, "third #alpha"))
		if err != nil || it.Tags[0].ID != personalAlpha {
			t.Fatalf("alpha again in the personal space: %+v, %v", it, err)
		}
		it, err = s.Move(ctx, annP, it.ID, teamNB)
		if err != nil || it.NotebookID != teamNB || len(it.Tags) != 1 || it.Tags[0].Name != "alpha" || it.Tags[0].ID == personalAlpha {
			t.Fatalf("moved %+v, %v", it, err)
		}
		if count(personal) != 0 || count(teamNB) != 1 {
			t.Fatalf("after the move the notebooks hold %d and %d", count(personal), count(teamNB))
		}

		// The item limit holds for creates and moves; a refused move leaves the item where it was.
		for range itemLimit - 1 {
			if _, err := s.Create(ctx, teamKey, teamNB, Doc(t, "filler")); err != nil {
				t.Fatal(err)
			}
		}
		full := apierr.ErrItemLimit.WithMessage("the notebook holds its maximum of %d notes and tasks", itemLimit)
		_, err = s.Create(ctx, annP, teamNB, Doc(t, "one too many"))
		WantErr(t, err, full)
		other, err := s.Create(ctx, annP, personal, Doc(t, "to move"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Move(ctx, annP, other.ID, teamNB)
		WantErr(t, err, full)
		if got, err := s.Get(ctx, annP, other.ID); err != nil || got.NotebookID != personal || count(personal) != 1 || count(teamNB) != itemLimit {
			t.Fatalf("after a refused move: %+v (%v), notebooks hold %d and %d", got, err, count(personal), count(teamNB))
		}

		// Other principals: an outsider and a key of another notebook do not reach the item.
		_, err = s.Get(ctx, carlP, it.ID)
		WantErr(t, err, s.NotFound)
		_, err = s.SetDocument(ctx, carlP, it.ID, Doc(t, "by Carl"))
		WantErr(t, err, s.NotFound)
		_, err = s.Move(ctx, teamKey, it.ID, personal)
		WantErr(t, err, apierr.ErrKeyNotebook)
		WantErr(t, s.Delete(ctx, carlP, it.ID), s.NotFound)
		if _, err := s.Get(ctx, teamKey, it.ID); err != nil {
			t.Fatalf("the team notebook's key reads the item: %v", err)
		}

		// Delete: gone from reads, its slot given back, once.
		if err := s.Delete(ctx, annP, it.ID); err != nil {
			t.Fatal(err)
		}
		_, err = s.Get(ctx, annP, it.ID)
		WantErr(t, err, s.NotFound)
		WantErr(t, s.Delete(ctx, annP, it.ID), s.NotFound)
		if count(teamNB) != itemLimit-1 {
			t.Fatalf("after the delete the notebook holds %d", count(teamNB))
		}

		// Every write above left its audit entry.
		entries, _, err := g.Audit.List(ctx, annP, audit.Filter{ResourceType: &s.Kind}, paginate.Params{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		actions := map[string]int{}
		for _, e := range entries {
			if e.ResourceID == it.ID {
				actions[e.Action]++
			}
		}
		want := map[string]int{s.Kind + ".create": 1, s.Kind + ".update": 4, s.Kind + ".delete": 1}
		if fmt.Sprint(actions) != fmt.Sprint(want) {
			t.Fatalf("audit entries of the item %v, want %v", actions, want)
		}
	}, func(c *config.Config) { c.NotebookItemLimit = itemLimit })
}

// itemOpsOf are the operations ItemContract runs, on items as it sees them.
type itemOpsOf struct {
	Kind        string
	NotFound    *apierr.Error
	Create      func(ctx context.Context, p *auth.Principal, notebookID string, doc document.Parsed) (item, error)
	Get         func(ctx context.Context, p *auth.Principal, id string) (item, error)
	SetDocument func(ctx context.Context, p *auth.Principal, id string, doc document.Parsed) (item, error)
	Move        func(ctx context.Context, p *auth.Principal, id, notebookID string) (item, error)
	Delete      func(ctx context.Context, p *auth.Principal, id string) error
}

func itemOps[Row any](a ItemService[Row], view func(items.View[Row]) item) itemOpsOf {
	wrap := func(v items.View[Row], err error) (item, error) { return view(v), err }
	return itemOpsOf{
		Kind: a.Kind, NotFound: a.NotFound,
		Delete: func(ctx context.Context, p *auth.Principal, id string) error {
			return a.Service.Delete(ctx, p, id, etag.IfMatch{})
		},
		Create: func(ctx context.Context, p *auth.Principal, notebookID string, doc document.Parsed) (item, error) {
			return wrap(a.Create(ctx, p, notebookID, doc))
		},
		Get: func(ctx context.Context, p *auth.Principal, id string) (item, error) {
			return wrap(a.Service.Get(ctx, p, id))
		},
		SetDocument: func(ctx context.Context, p *auth.Principal, id string, doc document.Parsed) (item, error) {
			return wrap(a.Patch(ctx, p, id, &doc, nil))
		},
		Move: func(ctx context.Context, p *auth.Principal, id, notebookID string) (item, error) {
			return wrap(a.Patch(ctx, p, id, nil, &notebookID))
		},
	}
}
