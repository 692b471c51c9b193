package suggestions

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"folio/modules/document"
	"folio/platform/db"
	"folio/platform/paginate"
)

// Store holds every query of the suggestions module.
type Store struct{ db *gorm.DB }

// NewStore returns the suggestions store.
func NewStore(gdb *gorm.DB) *Store { return &Store{db: gdb} }

var keyset = paginate.Keyset{Table: "suggestions"}

func (s *Store) get(ctx context.Context, tx *gorm.DB, id string, lock bool) (Suggestion, error) {
	if tx == nil {
		tx = s.db
	}
	return db.Take[Suggestion](tx.WithContext(ctx).Where("id = ?", id), lock, ErrNotFound)
}

// supersedePending marks the item's PENDING suggestion (if any) SUPERSEDED.
func (s *Store) supersedePending(ctx context.Context, tx *gorm.DB, kind, itemID, by string, at time.Time) error {
	return tx.WithContext(ctx).Model(&Suggestion{}).
		Where("item_kind = ? AND item_id = ? AND status = ?", kind, itemID, StatusPending).
		Updates(map[string]any{"status": StatusSuperseded, "resolved_at": at, "resolved_by_id": by, "version": gorm.Expr("version + 1")}).Error
}

func (s *Store) create(ctx context.Context, tx *gorm.DB, sg *Suggestion) error {
	return tx.WithContext(ctx).Create(sg).Error
}

// resolve moves a PENDING suggestion to status; false when it was not PENDING any more.
func (s *Store) resolve(ctx context.Context, tx *gorm.DB, id, status, by string, at time.Time) (bool, error) {
	res := tx.WithContext(ctx).Model(&Suggestion{}).Where("id = ? AND status = ?", id, StatusPending).
		Updates(map[string]any{"status": status, "resolved_at": at, "resolved_by_id": by, "version": gorm.Expr("version + 1")})
	return res.RowsAffected == 1, res.Error
}

// pending returns the item's PENDING suggestion, or nil; read in tx (nil: outside a transaction).
// Every read of a note asks it (its pendingSuggestion), and the answer is nearly always none: on
// PostgreSQL, outside a transaction, it is a constant statement sent natively (db.Query) and
// scanned by hand (scanSuggestion); SQLite's driver returns times as text, which only GORM's Find
// converts.
func (s *Store) pending(ctx context.Context, tx *gorm.DB, kind, itemID string) (*Suggestion, error) {
	if tx == nil {
		tx = s.db
	}
	var found *Suggestion
	ok, err := db.Query(ctx, tx, pendingSQL, []any{kind, itemID, StatusPending}, func(r db.RowScanner) error {
		sg, err := scanSuggestion(r)
		found = &sg
		return err
	})
	if ok {
		return found, err
	}
	var rows []Suggestion
	q := tx.WithContext(ctx).Where("item_kind = ? AND item_id = ? AND status = ?", kind, itemID, StatusPending).Limit(1)
	if err := q.Find(&rows).Error; err != nil || len(rows) == 0 {
		return nil, err
	}
	return &rows[0], nil
}

// pendingSQL is pending's statement, sent natively (db.Query).
var pendingSQL = "SELECT " + suggestionColumns + " FROM suggestions WHERE item_kind = ? AND item_id = ? AND status = ? LIMIT 1"

// suggestionColumns are the columns scanSuggestion reads, in its order: each document's tree
// only where its stored text is not current (document.TreeIfStale), and the texts.
var suggestionColumns = "id, item_kind, item_id, status, " + document.TreeIfStale("suggestions", "original_content") + ", " +
	document.TreeIfStale("suggestions", "suggested_content") + ", original_content_markdown, original_content_codec, " +
	"suggested_content_markdown, suggested_content_codec, rationale, created_by_id, " +
	"created_by_key_name, created_by_key_prefix, created_at, resolved_at, resolved_by_id, version, item_version"

// scanSuggestion reads a row of suggestionColumns without reflection (PostgreSQL only, whose
// driver returns timestamps as time.Time).
func scanSuggestion(rows db.RowScanner) (Suggestion, error) {
	var sg Suggestion
	err := rows.Scan(&sg.ID, &sg.ItemKind, &sg.ItemID, &sg.Status, (*[]byte)(&sg.OriginalContent), (*[]byte)(&sg.SuggestedContent),
		&sg.OriginalText.Markdown, &sg.OriginalText.Codec, &sg.SuggestedText.Markdown, &sg.SuggestedText.Codec, &sg.Rationale,
		&sg.CreatedByID, &sg.CreatedByKeyName, &sg.CreatedByKeyPrefix, &sg.CreatedAt, &sg.ResolvedAt, &sg.ResolvedByID, &sg.Version, &sg.ItemVersion)
	return sg, err
}

func (s *Store) list(ctx context.Context, kind, itemID string, p paginate.Params) ([]Suggestion, *string, error) {
	scope := func() *gorm.DB {
		return s.db.WithContext(ctx).Table("suggestions").Where("suggestions.item_kind = ? AND suggestions.item_id = ?", kind, itemID)
	}
	return paginate.Find(scope(), scope(), keyset, p, func(sg Suggestion) string { return sg.ID })
}

// inbox is the suggestions on the items of readable (kind → subquery of the readable items with
// id, notebook_id and content), as one derived table named suggestions, with the columns of a
// suggestion plus notebook_id, item_content and its stored text, for InboxEntry.
func (s *Store) inbox(ctx context.Context, readable map[string]*gorm.DB) *gorm.DB {
	kinds := slices.Sorted(maps.Keys(readable))
	arms := make([]string, len(kinds))
	args := make([]any, len(kinds))
	for i, k := range kinds {
		arms[i] = "?"
		args[i] = s.db.Table("suggestions AS sg").
			Select("sg.*, it.notebook_id AS notebook_id, it.content AS item_content, it.content_markdown AS item_content_markdown, it.content_codec AS item_content_codec").
			Joins("JOIN (?) AS it ON it.id = sg.item_id", readable[k]).
			Where("sg.item_kind = ?", k)
	}
	return s.db.WithContext(ctx).Table("("+strings.Join(arms, " UNION ALL ")+") AS suggestions", args...)
}

// itemsOf returns, for the suggestions among ids, the item each is about (one constant
// statement, sent natively on PostgreSQL: the feed asks it for every page).
func (s *Store) itemsOf(ctx context.Context, ids []string) ([]Suggestion, error) {
	var rows []Suggestion
	text := "SELECT id, item_kind, item_id FROM suggestions WHERE " + db.InIDs(s.db, "id")
	err := db.Read(ctx, s.db, text, []any{db.IDsArg(s.db, ids)}, func(row db.RowScanner) error {
		var sg Suggestion
		if err := row.Scan(&sg.ID, &sg.ItemKind, &sg.ItemID); err != nil {
			return err
		}
		rows = append(rows, sg)
		return nil
	})
	return rows, err
}
