package items

import (
	"context"
	"time"

	"gorm.io/gorm/clause"

	"folio/platform/auth"
	"folio/platform/markdown"
)

// CalendarItem is an item as a calendar shows it (the calendar module's feeds): its kind and id, its
// version (which changes with every write of the item, so that a feed's ETag can be made of the
// versions it shows), when it last changed, and its dates.
type CalendarItem struct {
	Kind       string // note, task
	ID         string
	Version    int64
	UpdatedAt  time.Time
	FollowUpAt *time.Time
	DueAt      *time.Time // a task's; nil for a kind without one
	TargetAt   *time.Time
	// Label is how a person recognises the item: a task's title, a note's first non-blank line of
	// text (its Markdown left out: `## **Plan** [link](x)` is "Plan link"), at most 120
	// characters. It decodes a note's document, so a caller that may not need it asks for it last.
	Label func() (string, error)
}

// DatedQuery is what one kind adds to the reading of its dated items: the condition that keeps
// the items it shows (one of its dates is set; a task is not DONE), and its own due date.
type DatedQuery[Row any] struct {
	Where Condition
	Due   func(row *Row) *time.Time // nil: the kind has no due date
}

// Dated returns at most limit live, unarchived items of the kind that the principal may see now
// and q.Where keeps, in notebookID when it is not nil, the most recently changed first. It reads
// them as every item list does (listRows: the notebook named is checked first and answers with
// the lists' access codes, and only the notebooks the principal may see are read), so a calendar
// feed never decides access by a rule of its own.
func (s *Service[Row]) Dated(ctx context.Context, p *auth.Principal, notebookID *string, limit int, q DatedQuery[Row]) ([]CalendarItem, error) {
	table, _, err := s.columns(s.db)
	if err != nil {
		return nil, err
	}
	f := ListFilter{NotebookID: notebookID, Conditions: []Condition{q.Where}}
	rows, _, err := s.listRows(ctx, p, f, func(visible clause.Expr, f ListFilter) ([]Row, *string, error) {
		var rows []Row
		err := f.Where(s.db.WithContext(ctx).Table(table).Where(table+".notebook_id IN (?)", visible), table).
			Order(table + ".updated_at DESC").Order(table + ".id DESC").Limit(limit).Find(&rows).Error
		return rows, nil, err
	})
	if err != nil {
		return nil, err
	}
	out := make([]CalendarItem, len(rows))
	for i := range rows {
		row := &rows[i]
		c := s.shape.Columns(row)
		d := CalendarItem{Kind: s.shape.Name, ID: c.ID, Version: c.Version, UpdatedAt: c.UpdatedAt, FollowUpAt: c.FollowUpAt, TargetAt: c.TargetAt,
			Label: func() (string, error) { return s.labelOf(row) }}
		if q.Due != nil {
			d.DueAt = q.Due(row)
		}
		out[i] = d
	}
	return out, nil
}

// labelOf is label, decoding the row's document only when the kind's label needs it.
func (s *Service[Row]) labelOf(row *Row) (string, error) {
	if s.shape.Label != nil {
		return s.shape.Label(row), nil
	}
	doc, err := markdown.Decode(*s.shape.Document(row))
	if err != nil {
		return "", err
	}
	return s.label(row, doc), nil
}
