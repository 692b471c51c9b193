package items

import (
	"context"

	"gorm.io/gorm"

	"folio/platform/auth"
	"folio/platform/db"
)

// The queries every kind of item runs on its own table alike; GORM names the table after Row.
// Lists stay in the modules' stores (their filters and their query plans differ) but share
// ListFilter.Where.

// ListFilter is what every item list filters on: the query parameters notebookId and archived.
type ListFilter struct {
	NotebookID *string
	Archived   bool
}

// Where narrows q, a query on table, to the live items the filter asks for.
func (f ListFilter) Where(q *gorm.DB, table string) *gorm.DB {
	q = q.Where(table+".deleted_at IS NULL AND "+table+".archived = ?", f.Archived)
	if f.NotebookID != nil {
		q = q.Where(table+".notebook_id = ?", *f.NotebookID)
	}
	return q
}

// get loads a live item among the notebooks of visible (a subquery of notebook ids). With tx and
// lock, the row stays locked until tx ends.
func (s *Service[Row]) get(ctx context.Context, tx *gorm.DB, id string, visible *gorm.DB, lock bool) (Row, error) {
	if tx == nil {
		tx = s.db
	}
	q := tx.WithContext(ctx).Where("id = ? AND deleted_at IS NULL AND notebook_id IN (?)", id, visible)
	return db.Take[Row](q, lock, s.shape.NotFound)
}

// getInNotebook loads a live item as get does, and the notebook that holds it if the principal
// may use that notebook.
func (s *Service[Row]) getInNotebook(ctx context.Context, tx *gorm.DB, p *auth.Principal, id string, visible *gorm.DB, lock bool) (Row, Notebook, error) {
	row, err := s.get(ctx, tx, id, visible, lock)
	if err != nil {
		return row, Notebook{}, err
	}
	nb, err := s.notebooks.ItemNotebook(ctx, tx, p, s.shape.Columns(&row).NotebookID)
	return row, nb, err
}

func (s *Service[Row]) create(ctx context.Context, tx *gorm.DB, row *Row) error {
	return tx.WithContext(ctx).Create(row).Error
}

// save writes every column of row but those that never change, and the next version. The row was
// read under its lock in this transaction, so the version read plus one is the row's next one.
func (s *Service[Row]) save(ctx context.Context, tx *gorm.DB, row *Row) error {
	s.shape.Columns(row).Version++
	return tx.WithContext(ctx).Select("*").Omit("id", "created_at", "created_by_id").Updates(row).Error
}

// touch increments the version of the item id alone (its row is locked by the caller's transaction).
func (s *Service[Row]) touch(ctx context.Context, tx *gorm.DB, id string) error {
	var row Row
	return tx.WithContext(ctx).Model(&row).Where("id = ?", id).UpdateColumn("version", gorm.Expr("version + 1")).Error
}
