package tasks

import (
	"context"

	"gorm.io/gorm"

	"folio/platform/db"
	"folio/platform/paginate"
)

// Store holds every query of the tasks module.
type Store struct{ db *gorm.DB }

// NewStore returns the tasks store.
func NewStore(gdb *gorm.DB) *Store { return &Store{db: gdb} }

var keyset = paginate.Keyset{Table: "tasks"}

// get loads a live task among the notebooks of visible (a subquery of notebook ids). With tx and
// lock, the row stays locked until tx ends.
func (s *Store) get(ctx context.Context, tx *gorm.DB, id string, visible *gorm.DB, lock bool) (Task, error) {
	if tx == nil {
		tx = s.db
	}
	q := tx.WithContext(ctx).Where("id = ? AND deleted_at IS NULL AND notebook_id IN (?)", id, visible)
	if lock {
		q = db.ForUpdate(q)
	}
	var t Task
	err := q.Take(&t).Error
	if db.IsNotFound(err) {
		return Task{}, ErrNotFound
	}
	return t, err
}

// listFilter narrows the list.
type listFilter struct {
	NotebookID *string
	Status     *string
	Archived   bool
}

func (s *Store) list(ctx context.Context, visible func() *gorm.DB, f listFilter, p paginate.Params) ([]Task, *string, error) {
	scope := func() *gorm.DB {
		return s.db.WithContext(ctx).Table("tasks").Where("tasks.notebook_id IN (?)", visible())
	}
	q := scope().Where("tasks.deleted_at IS NULL AND tasks.archived = ?", f.Archived)
	if f.NotebookID != nil {
		q = q.Where("tasks.notebook_id = ?", *f.NotebookID)
	}
	if f.Status != nil {
		q = q.Where("tasks.status = ?", *f.Status)
	}
	return paginate.Find(q, scope(), keyset, p, func(t Task) string { return t.ID })
}

func (s *Store) create(ctx context.Context, tx *gorm.DB, t *Task) error {
	return tx.WithContext(ctx).Create(t).Error
}

// save writes every column of t.
func (s *Store) save(ctx context.Context, tx *gorm.DB, t *Task) error {
	return tx.WithContext(ctx).Select("*").Omit("id", "created_at", "created_by_id").Updates(t).Error
}
