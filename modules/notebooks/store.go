package notebooks

import (
	"context"

	"gorm.io/gorm"

	"folio/platform/paginate"
)

// Store holds every query of the notebooks module.
type Store struct{ db *gorm.DB }

// NewStore returns the notebooks store.
func NewStore(gdb *gorm.DB) *Store { return &Store{db: gdb} }

var keyset = paginate.Keyset{Table: "notebooks"}

// withRole loads a notebook and the user's role in its workspace in one query (a read-only join on
// the workspaces module's memberships table). ErrNotFound when there is no such notebook. Find,
// not Scan: GORM's Scan also renders the statement with its values for its logger, on every call,
// and this runs on every create and every list or write naming a notebook.
func (s *Store) withRole(ctx context.Context, tx *gorm.DB, id, userID string) (accessRow, error) {
	if tx == nil {
		tx = s.db
	}
	var rows []accessRow
	err := tx.WithContext(ctx).Table("notebooks").Select("notebooks.*, m.role AS role").
		Joins("LEFT JOIN memberships m ON m.workspace_id = notebooks.workspace_id AND m.user_id = ?", userID).
		Where("notebooks.id = ?", id).Limit(1).Find(&rows).Error
	if err != nil {
		return accessRow{}, err
	}
	if len(rows) == 0 {
		return accessRow{}, ErrNotFound
	}
	return rows[0], nil
}

// list returns a page of the notebooks matched by visible.
func (s *Store) list(ctx context.Context, visible func(*gorm.DB) *gorm.DB, p paginate.Params) ([]Notebook, *string, error) {
	scope := func() *gorm.DB { return visible(s.db.WithContext(ctx).Table("notebooks")) }
	return paginate.Find(scope(), scope(), keyset, p, func(n Notebook) string { return n.ID })
}

// all returns every notebook matched by visible (the settings UI's restriction choices).
func (s *Store) all(ctx context.Context, visible func(*gorm.DB) *gorm.DB) ([]Notebook, error) {
	var rows []Notebook
	err := visible(s.db.WithContext(ctx).Table("notebooks")).Find(&rows).Error
	return rows, err
}

func (s *Store) create(ctx context.Context, tx *gorm.DB, n *Notebook) error {
	return tx.WithContext(ctx).Create(n).Error
}
