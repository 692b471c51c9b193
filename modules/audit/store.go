package audit

import (
	"context"
	"strconv"

	"gorm.io/gorm"

	"folio/platform/paginate"
)

// Store holds every query of the audit module.
type Store struct{ db *gorm.DB }

// NewStore returns the audit store.
func NewStore(gdb *gorm.DB) *Store { return &Store{db: gdb} }

var keyset = paginate.Keyset{Table: "audit_entries", ByIDOnly: true}

func (s *Store) insert(ctx context.Context, tx *gorm.DB, e *Entry) error {
	return tx.WithContext(ctx).Create(e).Error
}

func (s *Store) list(ctx context.Context, visible, filters func(*gorm.DB) *gorm.DB, p paginate.Params) ([]Entry, *string, error) {
	scope := visible(s.db.WithContext(ctx).Table("audit_entries"))
	list := filters(visible(s.db.WithContext(ctx).Table("audit_entries")))
	return paginate.Find(list, scope, keyset, p, func(e Entry) string { return strconv.FormatInt(e.ID, 10) })
}
