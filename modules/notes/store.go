package notes

import (
	"context"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"folio/modules/document"
	"folio/modules/items"
	"folio/platform/db"
	"folio/platform/paginate"
)

// Store holds the notes module's own query: the list, read notebook by notebook on PostgreSQL.
// The queries every kind of item runs alike are in modules/items.
type Store struct{ db *gorm.DB }

// NewStore returns the notes store.
func NewStore(gdb *gorm.DB) *Store { return &Store{db: gdb} }

var keyset = paginate.Keyset{Table: "notes"}

// list returns a page of the live notes in the notebooks of visible (a subquery of notebook ids
// with the column id), newest first.
//
// On PostgreSQL the page is read notebook by notebook: a LATERAL join takes, for each visible
// notebook, its first limit+1 entries after the cursor from idx_notes_list (notebook_id, archived,
// created_at DESC, id DESC), an index-only range scan, and the newest limit+1 of those are then
// loaded by primary key. The cost follows the number of notebooks the caller sees times the page
// size, not the number of notes: "notebook_id IN (...) ORDER BY created_at DESC" over the whole
// table cannot be served by that index (it is sorted within each notebook, not across them), so
// the planner reads every visible note and sorts them, or walks the whole table in time order.
// SQLite has no LATERAL; there the plain filter stays.
//
// A tag filter is read tag by tag instead (listByTag).
func (s *Store) list(ctx context.Context, visible clause.Expr, f items.ListFilter, p paginate.Params) ([]Note, *string, error) {
	scope := func() *gorm.DB {
		return s.db.WithContext(ctx).Table("notes").Where("notes.notebook_id IN (?)", visible)
	}
	idOf := func(n Note) string { return n.ID }
	// A text query starts from the search index: its matches are few next to the notes walked
	// notebook by notebook to find them.
	if !db.IsPostgres(s.db) || f.Searching() {
		return paginate.Find(f.Where(scope(), "notes"), scope(), keyset, p, idOf)
	}
	if len(f.Tags) > 0 {
		return s.listByTag(ctx, visible, scope, f, p)
	}
	var cursorScope *gorm.DB // read only with a cursor
	if p.Cursor != "" {
		cursorScope = scope()
	}
	// The statement's params: the visible notebooks' values, the notebook filter, the cursor.
	// Its text is built once per shape (db.Shapes) when the filter has nothing else.
	params, key := make([]string, 0, len(visible.Vars)+2), listShape(visible, f, p)
	for _, v := range visible.Vars {
		s, ok := v.(string)
		if !ok {
			key = "" // a value that is no string cannot be a param
		}
		params = append(params, s)
	}
	nv := len(params)
	params = append(params, "", p.Cursor)
	if f.NotebookID != nil {
		params[nv] = *f.NotebookID
	}
	build := func(params []string) *gorm.DB {
		vis := visible
		if key != "" { // the visible notebooks' values are params too (or their stand-ins)
			vis = clause.Expr{SQL: visible.SQL, Vars: make([]any, nv)}
			for i := range nv {
				vis.Vars[i] = params[i]
			}
		}
		notebookID, cursor := params[nv], params[nv+1]
		perNotebook := f.Narrow(s.db.Table("notes").Select("notes.id, notes.created_at").
			Where("notes.notebook_id = nb.id AND notes.deleted_at IS NULL AND notes.archived = ?", f.Archived), "notes")
		var position *gorm.DB // where the cursor note is, read only with a cursor
		if p.Cursor != "" {
			position = s.db.Table("notes").Where("notes.notebook_id IN (?)", vis)
		} else {
			cursor = ""
		}
		perNotebook = keyset.Order(keyset.After(perNotebook, position, cursor)).Limit(p.Limit + 1)
		notebooks := s.db.Table("(?) AS nb", vis)
		if f.NotebookID != nil {
			notebooks = notebooks.Where("nb.id = ?", notebookID)
		}
		page := notebooks.Select("page.id").Joins("CROSS JOIN LATERAL (?) AS page", perNotebook).
			Order("page.created_at DESC").Order("page.id DESC").Limit(p.Limit + 1)
		return keyset.Order(s.db.WithContext(ctx).Table("notes").Select(noteListColumns).Where("notes.id IN (?)", page))
	}
	return paginate.FetchShaped(paginate.Shaped{Shapes: &listShapes, DB: s.db.WithContext(ctx), Key: key,
		Params: params, Build: build}, cursorScope, keyset, p, idOf, scanNote)
}

// listShapes are the notes list's statements by shape (see db.Shapes).
var listShapes db.Shapes

// listShape is the key of the list statement's shape, or "" when the filter has values of its
// own beyond the params (people, dates, the module's conditions): then it is built every time.
func listShape(visible clause.Expr, f items.ListFilter, p paginate.Params) string {
	if len(f.People) > 0 || f.TargetFrom != nil || f.TargetTo != nil || len(f.Conditions) > 0 || len(f.Tags) > 0 || f.Text != nil {
		return ""
	}
	return fmt.Sprintf("%s|notebook=%t|archived=%t|cursor=%t|limit=%d", visible.SQL, f.NotebookID != nil, f.Archived, p.Cursor != "", p.Limit)
}

// listByTag is list with a tag filter, on PostgreSQL: the page is read tag by tag rather than
// notebook by notebook. A tag name has one tag per space, and the caller's notebooks lie in a
// few spaces (theirs and their workspaces'); for each of those tags a LATERAL join walks
// idx_item_tags_tag_time (tag_id, item_kind, item_created_at DESC, item_id DESC), the tag's notes
// newest first, checks each link's note by primary key for the list's other conditions (visible
// notebook, live, archived, the other filters) and stops at limit+1. The newest limit+1 of those
// are the page. The cost follows the page size and how many of the tag's newest notes fail the
// other conditions, not how rare the tag is: walking notebook by notebook instead reads every
// note until limit+1 carry the tag (about 15 notes per match for a tag on one note in 15).

func (s *Store) listByTag(ctx context.Context, visible clause.Expr, scope func() *gorm.DB, f items.ListFilter, p paginate.Params) ([]Note, *string, error) {
	idOf := func(n Note) string { return n.ID }
	rest := f
	rest.Tags = f.Tags[1:] // the walked tag needs no EXISTS of its own
	// The note of each link, checked by a per-link probe of its primary key: the other conditions
	// of the list, with the visible notebooks as an ARRAY (read once). OFFSET 0 keeps the EXISTS a
	// probe: pulled up into a join, PostgreSQL's generic plan hashed the caller's 44,000 visible
	// notes (or every link of the tag) and sorted, instead of stopping after limit+1 links.
	note := s.db.Table("notes").Select("1").
		Where("notes.id = it.item_id AND notes.notebook_id = ANY (ARRAY(?)) AND notes.deleted_at IS NULL AND notes.archived = ?",
			visible, f.Archived)
	if f.NotebookID != nil {
		note = note.Where("notes.notebook_id = ?", *f.NotebookID)
	}
	perTag := s.db.Table("item_tags it").Select("it.item_id AS id, it.item_created_at AS created_at").
		Where("it.tag_id = tg.id AND it.item_kind = ?", ItemKind).
		Where("EXISTS (? OFFSET 0)", rest.Narrow(note, "notes"))
	var cursorScope *gorm.DB // read only with a cursor
	if p.Cursor != "" {
		// The cursor note's position, as keyset.After finds it, compared with the link's copy of
		// created_at, so that the range starts inside the index.
		pos := scope().Select("notes.created_at").Where("notes.id = ?", p.Cursor)
		perTag = perTag.Where("(it.item_created_at, it.item_id) < ((?), ?)", pos, p.Cursor)
		cursorScope = scope()
	}
	perTag = perTag.Order("it.item_created_at DESC").Order("it.item_id DESC").Limit(p.Limit + 1)
	page := s.db.Table("unnest(ARRAY(?)) AS tg(id)", f.TagIDs(s.db, f.Tags[0], "TAG")).Select("page.id").
		Joins("CROSS JOIN LATERAL (?) AS page", perTag).
		Order("page.created_at DESC").Order("page.id DESC").Limit(p.Limit + 1)
	q := s.db.WithContext(ctx).Table("notes").Select(noteListColumns).Where("notes.id IN (?)", page)
	return paginate.FetchScan(keyset.Order(q), cursorScope, keyset, p, idOf, scanNote)
}

// noteColumns are the columns scanNote reads, in its order: a single note's read, which has its
// tree (the web app's page renders it as HTML).
var noteColumns = selectNote("notes.content")

// noteListColumns are noteColumns for pages and the Focus lists: the tree only where the stored
// text is not current (a response needs the text alone).
var noteListColumns = selectNote(document.TreeIfStale("notes", "content"))

func selectNote(tree string) string {
	return "notes.id, notes.notebook_id, " + tree + ", notes.content_markdown, notes.content_codec, notes.has_decision, " +
		"notes.archived, notes.target_at, notes.follow_up_at, notes.created_by_id, notes.created_at, notes.updated_at, " +
		"notes.deleted_at, notes.version"
}

// scanNote reads a row of noteColumns without reflection (a page is 20 to 100 of them). It is
// used on PostgreSQL only, whose driver returns timestamps as time.Time.
func scanNote(rows db.RowScanner) (Note, error) {
	var n Note
	// The document into its bytes directly: through db.JSON's Scan, pgx would copy it twice.
	err := rows.Scan(&n.ID, &n.NotebookID, (*[]byte)(&n.Content), &n.ContentText.Markdown, &n.ContentText.Codec, &n.HasDecision, &n.Archived, &n.TargetAt, &n.FollowUpAt,
		&n.CreatedByID, &n.CreatedAt, &n.UpdatedAt, &n.DeletedAt, &n.Version)
	return n, err
}
