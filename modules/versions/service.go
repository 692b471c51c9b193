// Package versions is the versions module: a snapshot of an item's content is saved, in the same
// transaction, before anything overwrites it (a PATCH of note content or task notes, an approved
// suggestion), so that no content is ever lost. There is no read endpoint yet; the model keeps
// what one will need (item, document, why, who, when).
package versions

import (
	"context"
	"time"

	"gorm.io/gorm"

	"folio/platform/clock"
	"folio/platform/db"
	"folio/platform/ids"
)

// Snapshot is the content of an item as it was before an overwrite.
type Snapshot struct {
	ID          string  `gorm:"primaryKey;size:24"`
	ItemKind    string  `gorm:"size:10;not null;index:idx_snapshots_item,priority:1"`
	ItemID      string  `gorm:"size:24;not null;index:idx_snapshots_item,priority:2"`
	Document    db.JSON `gorm:"not null"`
	Reason      string  `gorm:"size:20;not null"`
	ActorUserID string  `gorm:"size:24;not null"`
	CreatedAt   time.Time
}

// Service saves snapshots.
type Service struct{ clock clock.Clock }

// NewService returns the versions service.
func NewService(clk clock.Clock) *Service { return &Service{clock: clk} }

func migrations() db.Migrations {
	return db.Migrations{{
		ID:       "202611221101_versions_init",
		Migrate:  func(tx *gorm.DB) error { return tx.Migrator().CreateTable(&Snapshot{}) },
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropTable(&Snapshot{}) },
	}}
}

// Save stores document as a snapshot of the item, in the caller's transaction tx.
func (s *Service) Save(ctx context.Context, tx *gorm.DB, itemKind, itemID string, document []byte, reason, actorUserID string) error {
	return tx.WithContext(ctx).Create(&Snapshot{
		ID: ids.New(), ItemKind: itemKind, ItemID: itemID, Document: document, Reason: reason, ActorUserID: actorUserID, CreatedAt: s.clock.Now(),
	}).Error
}

// List returns an item's snapshots, newest first (for tests and a later read endpoint).
func (s *Service) List(ctx context.Context, tx *gorm.DB, itemKind, itemID string) ([]Snapshot, error) {
	var out []Snapshot
	err := tx.WithContext(ctx).Where("item_kind = ? AND item_id = ?", itemKind, itemID).Order("created_at DESC, id DESC").Find(&out).Error
	return out, err
}
