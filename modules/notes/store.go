package notes

import (
	"context"
	"database/sql"

	"gorm.io/gorm"

	"folio/platform/db"
	"folio/platform/items"
	"folio/platform/paginate"
)

// Store holds the notes module's own query: the list, read notebook by notebook on PostgreSQL.
// The queries every kind of item runs alike are in platform/items.
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
func (s *Store) list(ctx context.Context, visible func() *gorm.DB, f items.ListFilter, p paginate.Params) ([]Note, *string, error) {
	scope := func() *gorm.DB {
		return s.db.WithContext(ctx).Table("notes").Where("notes.notebook_id IN (?)", visible())
	}
	idOf := func(n Note) string { return n.ID }
	// A text query starts from the search index: its matches are few next to the notes walked
	// notebook by notebook to find them.
	if !db.IsPostgres(s.db) || f.Searching() {
		return paginate.Find(f.Where(scope(), "notes"), scope(), keyset, p, idOf)
	}
	var cursorScope *gorm.DB // read only with a cursor
	if p.Cursor != "" {
		cursorScope = scope()
	}
	perNotebook := f.Narrow(s.db.Table("notes").Select("notes.id, notes.created_at").
		Where("notes.notebook_id = nb.id AND notes.deleted_at IS NULL AND notes.archived = ?", f.Archived), "notes")
	perNotebook = keyset.Order(keyset.After(perNotebook, cursorScope, p.Cursor)).Limit(p.Limit + 1)
	notebooks := s.db.Table("(?) AS nb", visible())
	if f.NotebookID != nil {
		notebooks = notebooks.Where("nb.id = ?", *f.NotebookID)
	}
	page := notebooks.Select("page.id").Joins("CROSS JOIN LATERAL (?) AS page", perNotebook).
		Order("page.created_at DESC").Order("page.id DESC").Limit(p.Limit + 1)
	q := s.db.WithContext(ctx).Table("notes").Select(noteColumns).Where("notes.id IN (?)", page)
	if p.Cursor != "" {
		cursorScope = scope()
	}
	return paginate.FetchScan(keyset.Order(q), cursorScope, keyset, p, idOf, scanNote)
}

// noteColumns are the columns scanNote reads, in its order.
const noteColumns = "notes.id, notes.notebook_id, notes.content, notes.has_decision, notes.archived, notes.target_at, " +
	"notes.follow_up_at, notes.created_by_id, notes.created_at, notes.updated_at, notes.deleted_at, notes.version"

// scanNote reads a row of noteColumns without reflection (a page is 20 to 100 of them). It is
// used on PostgreSQL only, whose driver returns timestamps as time.Time.
func scanNote(rows *sql.Rows) (Note, error) {
	var n Note
	err := rows.Scan(&n.ID, &n.NotebookID, &n.Content, &n.HasDecision, &n.Archived, &n.TargetAt, &n.FollowUpAt,
		&n.CreatedByID, &n.CreatedAt, &n.UpdatedAt, &n.DeletedAt, &n.Version)
	return n, err
}
