package calendar

import (
	"context"

	"gorm.io/gorm"

	"folio/platform/db"
	"folio/platform/holdings"
)

// Store holds every query of the calendar module; those every holdings table runs alike (create
// within the limit, list, a user's all, delete) are holdings.Store's.
type Store struct {
	db *gorm.DB
	holdings.Store[Feed]
}

// NewStore returns the calendar store.
func NewStore(gdb *gorm.DB) *Store {
	return &Store{db: gdb, Store: holdings.Store[Feed]{DB: gdb, Table: table, NotFound: ErrNotFound, ID: func(f Feed) string { return f.ID }}}
}

// table is the feeds' holdings table: who manages a feed, the per-user limit, and a rotated key's
// feeds moving to the new key (platform/holdings). The creating key's restriction has columns of
// its own: notebook_id is the feed's notebookId.
var table = holdings.Table{Name: "calendar_feeds", Workspace: "key_workspace_id", Notebook: "key_notebook_id", Lock: "foliocal:"}

// byTokenHash returns the feed whose token has this hash.
func (s *Store) byTokenHash(ctx context.Context, hash []byte) (Feed, error) {
	return db.Take[Feed](s.db.WithContext(ctx).Where("token_hash = ?", hash), false, ErrNotFound)
}
