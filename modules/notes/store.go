package notes

import (
	"context"

	"gorm.io/gorm"

	"folio/platform/db"
	"folio/platform/paginate"
)

// Store holds every query of the notes module.
type Store struct{ db *gorm.DB }

// NewStore returns the notes store.
func NewStore(gdb *gorm.DB) *Store { return &Store{db: gdb} }

var keyset = paginate.Keyset{Table: "notes"}

// get loads a live note among the notebooks of visible (a subquery of notebook ids). With tx and
// lock, the row stays locked until tx ends.
func (s *Store) get(ctx context.Context, tx *gorm.DB, id string, visible *gorm.DB, lock bool) (Note, error) {
	if tx == nil {
		tx = s.db
	}
	q := tx.WithContext(ctx).Where("id = ? AND deleted_at IS NULL AND notebook_id IN (?)", id, visible)
	if lock {
		q = db.ForUpdate(q)
	}
	var n Note
	err := q.Take(&n).Error
	if db.IsNotFound(err) {
		return Note{}, ErrNotFound
	}
	return n, err
}

// listFilter narrows the list.
type listFilter struct {
	NotebookID *string
	Archived   bool
}

func (s *Store) list(ctx context.Context, visible func() *gorm.DB, f listFilter, p paginate.Params) ([]Note, *string, error) {
	scope := func() *gorm.DB {
		return s.db.WithContext(ctx).Table("notes").Where("notes.notebook_id IN (?)", visible())
	}
	q := scope().Where("notes.deleted_at IS NULL AND notes.archived = ?", f.Archived)
	if f.NotebookID != nil {
		q = q.Where("notes.notebook_id = ?", *f.NotebookID)
	}
	return paginate.Find(q, scope(), keyset, p, func(n Note) string { return n.ID })
}

func (s *Store) create(ctx context.Context, tx *gorm.DB, n *Note) error {
	return tx.WithContext(ctx).Create(n).Error
}

// save writes every column of n.
func (s *Store) save(ctx context.Context, tx *gorm.DB, n *Note) error {
	return tx.WithContext(ctx).Select("*").Omit("id", "created_at", "created_by_id").Updates(n).Error
}
