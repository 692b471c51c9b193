package versions

import (
	"context"

	"gorm.io/gorm"

	"folio/modules/document"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/db"
	"folio/platform/ids"
	"folio/platform/paginate"
)

// Store saves and reads snapshots: the module's table, with no rule of its own (who may read
// an item's versions is Service's question).
type Store struct {
	db    *gorm.DB
	clock clock.Clock
}

// NewStore returns the snapshot store (db may be nil for a store that only saves, in the
// caller's transactions).
func NewStore(gdb *gorm.DB, clk clock.Clock) *Store { return &Store{db: gdb, clock: clk} }

// Save stores tree, with its stored text, as a snapshot of the item, in the caller's transaction
// tx: p replaced it, for reason.
func (s *Store) Save(ctx context.Context, tx *gorm.DB, itemKind, itemID string, tree []byte, text document.Written, reason string, p *auth.Principal) error {
	snap := Snapshot{ID: ids.New(), ItemKind: itemKind, ItemID: itemID, Document: tree, Text: text, Reason: reason, ActorUserID: p.UserID, CreatedAt: s.clock.Now()}
	if p.Credential == auth.CredentialKey {
		snap.APIKeyName, snap.APIKeyPrefix = &p.KeyName, &p.KeyPrefix
	}
	return tx.WithContext(ctx).Create(&snap).Error
}

// List returns all of an item's snapshots, newest first, read in tx (for tests).
func (s *Store) List(ctx context.Context, tx *gorm.DB, itemKind, itemID string) ([]Snapshot, error) {
	var out []Snapshot
	err := tx.WithContext(ctx).Where("item_kind = ? AND item_id = ?", itemKind, itemID).Order("created_at DESC, id DESC").Find(&out).Error
	return out, err
}

var keyset = paginate.Keyset{Table: "snapshots"}

// Page returns a page of an item's snapshots, newest first. The caller has checked that the
// principal may read the item.
func (s *Store) Page(ctx context.Context, itemKind, itemID string, page paginate.Params) ([]Snapshot, *string, error) {
	scope := func() *gorm.DB {
		return s.db.WithContext(ctx).Table("snapshots").Where("snapshots.item_kind = ? AND snapshots.item_id = ?", itemKind, itemID)
	}
	return paginate.Find(scope(), scope(), keyset, page, func(v Snapshot) string { return v.ID })
}

// Get returns one snapshot of the item: VERSION_NOT_FOUND for an unknown id or another item's.
func (s *Store) Get(ctx context.Context, itemKind, itemID, versionID string) (Snapshot, error) {
	if !ids.Valid(versionID) {
		return Snapshot{}, ErrNotFound
	}
	return db.Take[Snapshot](s.db.WithContext(ctx).Where("id = ? AND item_kind = ? AND item_id = ?", versionID, itemKind, itemID), false, ErrNotFound)
}
