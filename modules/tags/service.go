// Package tags is the tags module: the tag table scoped by space, the join table to notes and
// tasks, and the service that replaces an item's tags atomically and reads them back for a page
// of items in one query. It has no routes.
package tags

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"gorm.io/gorm"

	"folio/modules/items"
	"folio/platform/db"
	"folio/platform/ids"
	"folio/platform/markdown"
)

// Service manages tags.
type Service struct{ db *gorm.DB }

// NewService returns the tags service.
func NewService(gdb *gorm.DB) *Service { return &Service{db: gdb} }

// hashKey is the identity key of a lower-cased name: hex SHA-256, 64 characters whatever the
// name's length.
func hashKey(lowered string) string {
	sum := sha256.Sum256([]byte(lowered))
	return hex.EncodeToString(sum[:])
}

func nameKey(name string) string { return items.TagKey(name) }

// batch bounds the rows or values of one statement: a 100,000-character content holds some 15,000
// tags, and PostgreSQL takes at most 65,535 parameters per statement (SQLite 32,766).
const batch = 1000

// Replace makes found the tags of the item, inside the caller's transaction tx: missing tags of the
// space are created (concurrent creators agree through the unique identity index and ON CONFLICT
// DO NOTHING), the item's old attachments are removed and the new ones added.
//
// Every create and every content change runs it, so its statements are constant texts (one per
// number of rows) with their values, and the ids are scanned by hand: GORM's Create and Find fill
// and read the rows through reflection, which cost more than the statements' round trips.
func (s *Service) Replace(ctx context.Context, tx *gorm.DB, spaceID, itemKind, itemID string, itemCreatedAt time.Time, found []markdown.Tag) error {
	// Constant texts sent with db.Exec and db.Read: natively in the write's transaction on
	// PostgreSQL (every create and content change of an item runs these four).
	if _, err := db.Exec(ctx, tx, `DELETE FROM "item_tags" WHERE item_kind = ? AND item_id = ?`, itemKind, itemID); err != nil {
		return err
	}
	rows := make([]any, 0, 5*len(found))
	keys := map[string][]any{}
	seen := map[string]bool{}
	for _, t := range found {
		key := nameKey(t.Name)
		if seen[string(t.Sigil)+":"+key] {
			continue
		}
		seen[string(t.Sigil)+":"+key] = true
		rows = append(rows, ids.New(), spaceID, string(t.Sigil), key, t.Name)
		keys[string(t.Sigil)] = append(keys[string(t.Sigil)], key)
	}
	for part := range slices.Chunk(rows, 5*batch) {
		if _, err := db.Exec(ctx, tx, `INSERT INTO "tags" ("id","space_id","kind","name_key","name") VALUES `+db.ValueRows(5, len(part)/5)+
			" ON CONFLICT DO NOTHING", part...); err != nil {
			return err
		}
	}
	links := make([]any, 0, 4*len(rows)/5)
	// In a fixed order (by kind), so that a write sends the same statements every time.
	for _, kind := range slices.Sorted(maps.Keys(keys)) {
		for part := range slices.Chunk(keys[kind], batch) {
			err := db.Read(ctx, tx, `SELECT "id" FROM "tags" WHERE space_id = ? AND kind = ? AND name_key IN (?`+strings.Repeat(",?", len(part)-1)+")",
				append([]any{spaceID, kind}, part...), func(r db.RowScanner) error {
					var id string
					err := r.Scan(&id)
					links = append(links, itemKind, itemID, id, itemCreatedAt)
					return err
				})
			if err != nil {
				return err
			}
		}
	}
	for part := range slices.Chunk(links, 4*batch) {
		if _, err := db.Exec(ctx, tx, `INSERT INTO "item_tags" ("item_kind","item_id","tag_id","item_created_at") VALUES `+db.ValueRows(4, len(part)/4),
			part...); err != nil {
			return err
		}
	}
	return nil
}

// valueRows is n rows of width placeholders: "(?,?),(?,?)" for width 2 and n 2.

// ForItems returns the tags of each item, ordered by kind (TAG, then PERSON) and then by name,
// in one query, in tx (nil: outside a transaction).
func (s *Service) ForItems(ctx context.Context, tx *gorm.DB, itemKind string, itemIDs []string) (map[string][]items.Tag, error) {
	if tx == nil {
		tx = s.db
	}
	out := make(map[string][]items.Tag, len(itemIDs))
	if len(itemIDs) == 0 {
		return out, nil
	}
	type row struct{ ItemID, ID, Name, Kind, Key string }
	// A constant statement (one per number of items) with its rows scanned by hand, sent natively
	// outside a transaction on PostgreSQL (db.Query): this runs on every read of a note or a list,
	// and GORM's builder and reflection cost more than the query's own round trip.
	sql, args := itemTagsSQL(len(itemIDs)), make([]any, 0, 1+len(itemIDs))
	args = append(args, itemKind)
	for _, id := range itemIDs {
		args = append(args, id)
	}
	// Each row is scanned in place, into the slice's next element, through one destination list
	// reused for every row: a row variable and Scan's variadic list would both move to the heap,
	// two allocations per tag (about 120 on a page of 20 notes).
	rows := make([]row, 0, 4*len(itemIDs))
	dest := make([]any, 4)
	each := func(cur db.RowScanner) error {
		rows = append(rows, row{})
		r := &rows[len(rows)-1]
		dest[0], dest[1], dest[2], dest[3] = &r.ItemID, &r.ID, &r.Name, &r.Kind
		return cur.Scan(dest...)
	}
	if err := db.Read(ctx, tx, sql, args, each); err != nil {
		return nil, err
	}
	// Sorted in Go: SQL collations differ between the databases; lower-cased names compare alike.
	// Grouped by item first, so that each item's tags are one run of rows (in the same order
	// within the item) and the items share one array of tags.
	for i := range rows {
		rows[i].Key = strings.ToLower(rows[i].Name)
	}
	slices.SortFunc(rows, func(a, b row) int {
		if c := strings.Compare(a.ItemID, b.ItemID); c != 0 {
			return c
		}
		if a.Kind != b.Kind {
			switch string(markdown.SigilTag) {
			case a.Kind:
				return -1
			case b.Kind:
				return 1
			}
			return 0
		}
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	tags := make([]items.Tag, len(rows))
	for i, r := range rows {
		tags[i] = items.Tag{ID: r.ID, Name: r.Name, Kind: r.Kind}
	}
	for start := 0; start < len(rows); {
		end := start + 1
		for end < len(rows) && rows[end].ItemID == rows[start].ItemID {
			end++
		}
		// Capped at the run's end: an append by a caller copies rather than overwrite the next
		// item's tags.
		out[rows[start].ItemID] = tags[start:end:end]
		start = end
	}
	return out, nil
}

// itemTagsSQL is ForItems's statement for n items (texts for up to a page of 100 made once).
func itemTagsSQL(n int) string {
	if n < len(itemTagsTexts) {
		if s := itemTagsTexts[n].Load(); s != nil {
			return *s
		}
	}
	s := "SELECT it.item_id, t.id, t.name, t.kind FROM item_tags it JOIN tags t ON t.id = it.tag_id " +
		"WHERE it.item_kind = ? AND it.item_id IN (?" + strings.Repeat(",?", n-1) + ")"
	if n < len(itemTagsTexts) {
		itemTagsTexts[n].Store(&s)
	}
	return s
}

var itemTagsTexts [101]atomic.Pointer[string]
