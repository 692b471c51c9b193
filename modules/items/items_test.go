package items_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"folio/modules/document"
	"folio/modules/items"
	"folio/modules/journal"
	"folio/modules/search"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/db"
	"folio/platform/etag"
	"folio/platform/ids"
	"folio/platform/markdown"
)

// Widget is an item kind of the tests' own: the flows must work on any row that embeds
// items.Columns.
type Widget struct {
	items.Columns
	Colour   string
	Body     db.JSON
	BodyText document.Written `gorm:"embedded;embeddedPrefix:body_"`
	Decided  bool             // derived from Body
}

func (w *Widget) document() *db.JSON { return &w.Body }

func (w *Widget) text() *document.Written { return &w.BodyText }

var (
	errWidgetNotFound   = errors.New("widget not found")
	errNotebookNotFound = errors.New("notebook not found")
	errItemLimit        = errors.New("item limit reached")
)

// notebooks are the notebooks the principal may use, each with its item count.
type notebooks struct {
	usable map[string]items.Notebook
	count  map[string]int
	limit  int
}

func (n *notebooks) ItemNotebook(_ context.Context, _ *gorm.DB, _ *auth.Principal, id string) (items.Notebook, error) {
	nb, ok := n.usable[id]
	if !ok {
		return items.Notebook{}, errNotebookNotFound
	}
	return nb, nil
}

func (n *notebooks) NotebookOf(_ context.Context, _ *gorm.DB, id string) (items.Notebook, error) {
	return n.ItemNotebook(context.Background(), nil, nil, id)
}

func (n *notebooks) VisibleIDs(*auth.Principal) clause.Expr {
	return clause.Expr{SQL: "SELECT id FROM notebooks"}
}

func (n *notebooks) VisibleSpaces(*auth.Principal) clause.Expr {
	return clause.Expr{SQL: "SELECT space_id FROM tags"}
}

func (n *notebooks) Reserve(_ context.Context, _ *gorm.DB, id string, k int) error {
	if n.count[id]+k > n.limit {
		return errItemLimit
	}
	n.count[id] += k
	return nil
}

func (n *notebooks) Release(_ context.Context, _ *gorm.DB, id string, k int) error {
	n.count[id] -= k
	return nil
}

// tagLog keeps each item's tags as the last Replace left them, and counts the Replaces.
type tagLog struct {
	byItem   map[string][]items.Tag
	space    map[string]string
	replaces int
}

func (l *tagLog) Replace(_ context.Context, _ *gorm.DB, spaceID, _, itemID string, _ time.Time, found []markdown.Tag) error {
	l.replaces++
	l.space[itemID] = spaceID
	l.byItem[itemID] = nil
	for _, t := range found {
		l.byItem[itemID] = append(l.byItem[itemID], items.Tag{ID: t.Name, Name: t.Name, Kind: string(t.Sigil)})
	}
	return nil
}

func (l *tagLog) ForItems(_ context.Context, _ *gorm.DB, _ string, itemIDs []string) (map[string][]items.Tag, error) {
	out := map[string][]items.Tag{}
	for _, id := range itemIDs {
		out[id] = l.byItem[id]
	}
	return out, nil
}

type snapshot struct{ document, reason string }

type versionLog struct{ saved []snapshot }

func (l *versionLog) Save(_ context.Context, _ *gorm.DB, _, _ string, tree []byte, _ document.Written, reason string, _ *auth.Principal) error {
	l.saved = append(l.saved, snapshot{string(tree), reason})
	return nil
}

type auditLog struct{ actions, events []string }

// Record keeps the entry in memory, and as a row written in the write's transaction, as the real
// recorder does: a rolled-back write leaves no row (committedAudit counts them).
func (l *auditLog) Record(_ context.Context, tx *gorm.DB, _ *auth.Principal, e journal.Entry) error {
	if err := tx.Exec("INSERT INTO fake_audit (action) VALUES (?)", e.Action).Error; err != nil {
		return err
	}
	l.actions = append(l.actions, e.Action+" "+e.ResourceID+" in "+*e.NotebookID)
	for _, ev := range e.Events {
		data, _ := json.Marshal(ev.Data)
		l.events = append(l.events, ev.Type+" "+string(data))
	}
	return nil
}

type fixture struct {
	svc      *items.Service[Widget]
	gdb      *gorm.DB
	nbs      *notebooks
	tags     *tagLog
	versions *versionLog
	audit    *auditLog
	clock    *clock.Fake
	p        *auth.Principal
}

// Notebooks "mine" and "mine-too" share the tag space "ann"; "team" is in the space "team".
func newFixture(t *testing.T) *fixture {
	t.Helper()
	gdb, err := db.Open(db.Options{SQLitePath: filepath.Join(t.TempDir(), "items.db"), MaxOpenConns: 1, MaxIdleConns: 1}, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sqlDB, err := gdb.DB(); err == nil {
			_ = sqlDB.Close()
		}
	})
	for _, m := range search.Migrations() { // the flows keep the search index current
		if err := m.Migrate(gdb); err != nil {
			t.Fatal(err)
		}
	}
	if err := gdb.AutoMigrate(&Widget{}); err != nil {
		t.Fatal(err)
	}
	if err := gdb.Exec("CREATE TABLE fake_audit (action TEXT NOT NULL)").Error; err != nil {
		t.Fatal(err)
	}
	team := "team"
	usable := map[string]items.Notebook{
		"mine":     {ID: "mine", TagSpace: "ann"},
		"mine-too": {ID: "mine-too", TagSpace: "ann"},
		"team":     {ID: "team", WorkspaceID: &team, TagSpace: "team"},
	}
	if err := gdb.Exec("CREATE TABLE notebooks (id TEXT PRIMARY KEY)").Error; err != nil {
		t.Fatal(err)
	}
	for id := range usable {
		if err := gdb.Exec("INSERT INTO notebooks (id) VALUES (?)", id).Error; err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{
		gdb:      gdb,
		nbs:      &notebooks{usable: usable, count: map[string]int{}, limit: 2},
		tags:     &tagLog{byItem: map[string][]items.Tag{}, space: map[string]string{}},
		versions: &versionLog{},
		audit:    &auditLog{},
		clock:    clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)),
		p:        &auth.Principal{UserID: "ann"},
	}
	shape := items.Shape[Widget]{Name: "widget", NotFound: errWidgetNotFound, Columns: (*Widget).ItemColumns, Document: (*Widget).document, Text: (*Widget).text,
		Derive: func(w *Widget, doc markdown.Doc) { w.Decided = doc.HasDecision() },
		Response: func(v items.View[Widget], text string) any {
			return map[string]any{"id": v.Item.ID, "tags": len(v.Tags), "text": text}
		}}
	f.svc = items.NewService(shape, items.ServiceParams{DB: gdb, Notebooks: f.nbs, Tags: f.tags, Versions: f.versions, Audit: f.audit, Clock: f.clock})
	return f
}

func parse(t *testing.T, src string) document.Parsed {
	t.Helper()
	doc, err := document.Parse("content", src)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func tagNames(tags []items.Tag) []string {
	var out []string
	for _, t := range tags {
		out = append(out, t.Name)
	}
	return out
}

func (f *fixture) create(t *testing.T, notebookID, src string) items.View[Widget] {
	t.Helper()
	v, err := f.svc.Create(context.Background(), f.p, notebookID, parse(t, src), Widget{Colour: "red"})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCreateSetsTheSharedColumnsAndKeepsTheModulesOwn(t *testing.T) {
	f := newFixture(t)
	v := f.create(t, "mine", "ship #launch\n\n> **Decision:** ship it")
	w := v.Item
	if !ids.Valid(w.ID) || w.NotebookID != "mine" || w.CreatedByID != "ann" || !w.CreatedAt.Equal(f.clock.Now()) || !w.UpdatedAt.Equal(w.CreatedAt) {
		t.Fatalf("shared columns not set: %+v", w)
	}
	if w.Colour != "red" || !w.Decided {
		t.Fatalf("the module's own column or the derived one is wrong: %+v", w)
	}
	if got := tagNames(v.Tags); !slices.Equal(got, []string{"launch"}) || f.tags.space[w.ID] != "ann" {
		t.Fatalf("tags %v in space %q", got, f.tags.space[w.ID])
	}
	if f.nbs.count["mine"] != 1 || !slices.Equal(f.audit.actions, []string{"widget.create " + w.ID + " in mine"}) {
		t.Fatalf("count %d, audit %v", f.nbs.count["mine"], f.audit.actions)
	}
	// The audit entry carries the event, whose data is the item rendered by the module.
	if want := []string{`widget.created {"id":"` + w.ID + `","tags":1,"text":"ship #launch\n\n\u003e **Decision:** ship it"}`}; !slices.Equal(f.audit.events, want) {
		t.Fatalf("events %v, want %v", f.audit.events, want)
	}
	got, err := f.svc.Get(context.Background(), f.p, w.ID)
	if err != nil || got.Item.Colour != "red" || string(got.Item.Body) != string(w.Body) {
		t.Fatalf("Get: %+v, %v", got.Item, err)
	}
}

func TestCreateFailsWhole(t *testing.T) {
	f := newFixture(t)
	f.create(t, "mine", "one")
	f.create(t, "mine", "two")
	for _, tc := range []struct {
		name, notebook string
		want           error
	}{
		{"a full notebook", "mine", errItemLimit},
		{"a notebook out of reach", "elsewhere", errNotebookNotFound},
	} {
		if _, err := f.svc.Create(context.Background(), f.p, tc.notebook, parse(t, "three"), Widget{}); !errors.Is(err, tc.want) {
			t.Fatalf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
	// Nothing of the failed creates stays: the over-limit one is refused at its last step (the
	// item slot is reserved last, see Create), after its row and audit entry were written, and
	// its transaction undoes them.
	var n, audited int64
	f.gdb.Model(&Widget{}).Count(&n)
	f.gdb.Raw("SELECT count(*) FROM fake_audit").Scan(&audited)
	if n != 2 || audited != 2 {
		t.Fatalf("%d rows and %d audit entries after the failed creates, want 2 and 2", n, audited)
	}
}

func TestUpdate(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	w := f.create(t, "mine", "first #a").Item
	stored := string(w.Body)
	same, changed := parse(t, "first #a"), parse(t, "second #b\n\n> **Decision:** yes")
	day := time.Date(2030, 2, 1, 0, 0, 0, 0, time.UTC)
	dayPtr, noDate, yes := &day, (*time.Time)(nil), true
	mineToo, team := "mine-too", "team"

	// The same document: nothing to snapshot and nothing to re-tag, but the other fields apply.
	f.clock.Advance(time.Minute)
	v, err := f.svc.Update(ctx, f.p, w.ID, items.Change{Document: &same, Archived: &yes, TargetAt: &dayPtr}, func(w *Widget) { w.Colour = "blue" })
	if err != nil {
		t.Fatal(err)
	}
	if len(f.versions.saved) != 0 || f.tags.replaces != 1 {
		t.Fatalf("an unchanged document was snapshotted (%v) or re-tagged (%d replaces)", f.versions.saved, f.tags.replaces)
	}
	if got := v.Item; !got.Archived || got.TargetAt == nil || !got.TargetAt.Equal(day) || got.Colour != "blue" || !got.UpdatedAt.Equal(f.clock.Now()) {
		t.Fatalf("fields not applied: %+v", got)
	}

	// A new document: the old one is snapshotted first, the tags and the derived column follow.
	v, err = f.svc.Update(ctx, f.p, w.ID, items.Change{Document: &changed, TargetAt: &noDate}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.versions.saved, []snapshot{{stored, items.ReasonUpdate}}) {
		t.Fatalf("snapshots %v", f.versions.saved)
	}
	if !v.Item.Decided || v.Item.TargetAt != nil || !slices.Equal(tagNames(v.Tags), []string{"b"}) {
		t.Fatalf("after the new document: %+v, tags %v", v.Item, tagNames(v.Tags))
	}
	// The answer is built once, with the Markdown the change carried, and is the event's data.
	answer, _ := json.Marshal(v.Response)
	want, _ := json.Marshal(map[string]any{"id": w.ID, "tags": 1, "text": changed.Markdown})
	if string(answer) != string(want) || f.audit.events[len(f.audit.events)-1] != "widget.updated "+string(want) {
		t.Fatalf("answer %s, last event %q; want %s", answer, f.audit.events[len(f.audit.events)-1], want)
	}

	// A move within the tag space keeps the tags; a move to another space re-tags from the stored
	// document. Each move takes a slot in the target and gives one back.
	replaces := f.tags.replaces
	if v, err = f.svc.Update(ctx, f.p, w.ID, items.Change{NotebookID: &mineToo}, nil); err != nil {
		t.Fatal(err)
	}
	// Without a new document, the answer carries the stored one's Markdown.
	if text := v.Response.(map[string]any)["text"]; text != changed.Markdown {
		t.Fatalf("a move answers the text %q, want %q", text, changed.Markdown)
	}
	if f.tags.replaces != replaces || f.nbs.count["mine"] != 0 || f.nbs.count["mine-too"] != 1 {
		t.Fatalf("move within the space: %d replaces, counts %v", f.tags.replaces-replaces, f.nbs.count)
	}
	if _, err := f.svc.Update(ctx, f.p, w.ID, items.Change{NotebookID: &team}, nil); err != nil {
		t.Fatal(err)
	}
	if f.tags.space[w.ID] != "team" || !slices.Equal(tagNames(f.tags.byItem[w.ID]), []string{"b"}) || f.nbs.count["team"] != 1 {
		t.Fatalf("move to the team: space %q, tags %v, counts %v", f.tags.space[w.ID], f.tags.byItem[w.ID], f.nbs.count)
	}
	if got := f.audit.actions[len(f.audit.actions)-1]; got != "widget.update "+w.ID+" in team" {
		t.Fatalf("last audit entry %q", got)
	}

	for _, tc := range []struct {
		name, id string
		change   items.Change
		want     error
	}{
		{"a malformed id", "nope", items.Change{Archived: &yes}, errWidgetNotFound},
		{"an unknown id", ids.New(), items.Change{Archived: &yes}, errWidgetNotFound},
		{"a move out of reach", w.ID, items.Change{NotebookID: ptr("elsewhere")}, errNotebookNotFound},
	} {
		if _, err := f.svc.Update(ctx, f.p, tc.id, tc.change, nil); !errors.Is(err, tc.want) {
			t.Fatalf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestDeleteIsSoftAndGivesTheSlotBack(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	w := f.create(t, "team", "gone soon").Item
	if err := f.svc.Delete(ctx, f.p, w.ID, etag.IfMatch{}); err != nil {
		t.Fatal(err)
	}
	if f.nbs.count["team"] != 0 || f.audit.actions[len(f.audit.actions)-1] != "widget.delete "+w.ID+" in team" {
		t.Fatalf("counts %v, audit %v", f.nbs.count, f.audit.actions)
	}
	var row Widget
	if err := f.gdb.Take(&row, "id = ?", w.ID).Error; err != nil || row.DeletedAt == nil {
		t.Fatalf("the row should stay, marked deleted: %+v, %v", row, err)
	}
	if _, err := f.svc.Get(ctx, f.p, w.ID); !errors.Is(err, errWidgetNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
	if err := f.svc.Delete(ctx, f.p, w.ID, etag.IfMatch{}); !errors.Is(err, errWidgetNotFound) {
		t.Fatalf("second Delete: %v", err)
	}
}

func TestListChecksTheNamedNotebookAndAddsTags(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	a, b := f.create(t, "mine", "a #x").Item, f.create(t, "team", "b #y").Item
	page := func(ctx context.Context, visible clause.Expr, _ items.ListFilter) ([]Widget, *string, error) {
		var rows []Widget
		err := items.ListFilter{}.Where(f.gdb.WithContext(ctx).Table("widgets").Where("widgets.notebook_id IN (?)", visible), "widgets").
			Order("widgets.id").Find(&rows).Error
		return rows, nil, err
	}
	views, _, err := f.svc.List(ctx, f.p, items.ListFilter{}, page)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, v := range views {
		got[v.Item.ID] = tagNames(v.Tags)
	}
	if len(got) != 2 || !slices.Equal(got[a.ID], []string{"x"}) || !slices.Equal(got[b.ID], []string{"y"}) {
		t.Fatalf("list %v", got)
	}
	called := false
	_, _, err = f.svc.List(ctx, f.p, items.ListFilter{NotebookID: ptr("elsewhere")}, func(context.Context, clause.Expr, items.ListFilter) ([]Widget, *string, error) {
		called = true
		return nil, nil, nil
	})
	if !errors.Is(err, errNotebookNotFound) || called {
		t.Fatalf("a notebook out of reach: %v (query ran: %v)", err, called)
	}
}

func TestTargetReplaceAlwaysSnapshots(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	w := f.create(t, "team", "kept #k").Item
	target := f.svc.Target()
	if target.Kind() != "widget" || !errors.Is(target.NotFound(), errWidgetNotFound) {
		t.Fatalf("kind %q, not found %v", target.Kind(), target.NotFound())
	}
	err := db.Transaction(ctx, f.gdb, func(tx *gorm.DB) error {
		item, err := target.Lock(ctx, tx, f.p, w.ID)
		if err != nil {
			return err
		}
		if item.NotebookID != "team" || item.WorkspaceID == nil || *item.WorkspaceID != "team" {
			t.Errorf("locked item %+v", item)
		}
		return target.Replace(ctx, tx, f.p, item, document.Of(item.Content), "suggestion", "widget.approve")
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.versions.saved, []snapshot{{string(w.Body), "suggestion"}}) {
		t.Fatalf("snapshots %v", f.versions.saved)
	}
	if got := f.audit.actions[len(f.audit.actions)-1]; got != "widget.approve "+w.ID+" in team" {
		t.Fatalf("last audit entry %q", got)
	}
	if _, err := target.Get(ctx, f.p, "nope"); !errors.Is(err, errWidgetNotFound) {
		t.Fatalf("Get of a malformed id: %v", err)
	}
}
