// Package tags is the tags module: the tag table scoped by space, the join table to notes and
// tasks, and the service that replaces an item's tags atomically and reads them back for a page
// of items in one query. It has no routes.
package tags

import (
	"context"
	"sort"
	"strings"

	"go.uber.org/fx"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"folio/platform/ids"
	"folio/platform/markdown"
)

// Service manages tags.
type Service struct{ db *gorm.DB }

// NewService returns the tags service.
func NewService(gdb *gorm.DB) *Service { return &Service{db: gdb} }

// Module wires the tags module.
var Module = fx.Module("tags",
	fx.Provide(
		NewService,
		fx.Annotate(migrations, fx.ResultTags(`group:"migrations"`)),
	),
)

// Replace makes found the tags of the item, inside the caller's transaction tx: missing tags of the
// space are created (concurrent creators agree through the unique identity index and ON CONFLICT
// DO NOTHING), the item's old attachments are removed and the new ones added.
func (s *Service) Replace(ctx context.Context, tx *gorm.DB, spaceID, itemKind, itemID string, found []markdown.Tag) error {
	tx = tx.WithContext(ctx)
	if err := tx.Where("item_kind = ? AND item_id = ?", itemKind, itemID).Delete(&ItemTag{}).Error; err != nil {
		return err
	}
	if len(found) == 0 {
		return nil
	}
	rows := make([]Tag, 0, len(found))
	keys := map[string][]string{}
	for _, t := range found {
		key := strings.ToLower(t.Name)
		rows = append(rows, Tag{ID: ids.New(), SpaceID: spaceID, Kind: string(t.Kind), NameKey: key, Name: t.Name})
		keys[string(t.Kind)] = append(keys[string(t.Kind)], key)
	}
	if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&rows).Error; err != nil {
		return err
	}
	var existing []Tag
	q := tx.Where("space_id = ?", spaceID)
	cond := tx.Where("1 = 0")
	for kind, names := range keys {
		cond = cond.Or("kind = ? AND name_key IN ?", kind, names)
	}
	if err := q.Where(cond).Find(&existing).Error; err != nil {
		return err
	}
	links := make([]ItemTag, len(existing))
	for i, t := range existing {
		links[i] = ItemTag{ItemKind: itemKind, ItemID: itemID, TagID: t.ID}
	}
	return tx.Create(&links).Error
}

// ForItems returns the tags of each item, ordered by kind (TAG, then PERSON) and then by name,
// in one query.
func (s *Service) ForItems(ctx context.Context, itemKind string, itemIDs []string) (map[string][]View, error) {
	out := make(map[string][]View, len(itemIDs))
	if len(itemIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		ItemID string
		ID     string
		Name   string
		Kind   string
		Key    string
	}
	err := s.db.WithContext(ctx).Table("item_tags it").
		Select("it.item_id, t.id, t.name, t.kind, t.name_key AS key").
		Joins("JOIN tags t ON t.id = it.tag_id").
		Where("it.item_kind = ? AND it.item_id IN ?", itemKind, itemIDs).
		Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	// Sorted in Go: SQL collations differ between the databases; lower-cased names compare alike.
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Kind != b.Kind {
			return a.Kind == string(markdown.KindTag)
		}
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		return a.ID < b.ID
	})
	for _, r := range rows {
		out[r.ItemID] = append(out[r.ItemID], View{ID: r.ID, Name: r.Name, Kind: r.Kind})
	}
	return out, nil
}
