package tasks

import (
	"context"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"folio/platform/paginate"
)

// Store holds the tasks module's own query, the list; what every item runs alike is in modules/items.
type Store struct{ db *gorm.DB }

// NewStore returns the tasks store.
func NewStore(gdb *gorm.DB) *Store { return &Store{db: gdb} }

// list returns a page of the live tasks in the notebooks of visible, newest first.
func (s *Store) list(ctx context.Context, visible clause.Expr, f Filter, p paginate.Params) ([]Task, *string, error) {
	scope := func() *gorm.DB {
		return s.db.WithContext(ctx).Table("tasks").Where("tasks.notebook_id IN (?)", visible)
	}
	q := f.Where(scope(), "tasks")
	if f.Status != nil {
		q = q.Where("tasks.status = ?", *f.Status)
	}
	return paginate.Find(q, scope(), paginate.Keyset{Table: "tasks"}, p, func(t Task) string { return t.ID })
}
