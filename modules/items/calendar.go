package items

import (
	"context"
	"strings"
	"time"

	"go.uber.org/fx"
	"gorm.io/gorm/clause"

	"folio/platform/auth"
	"folio/platform/markdown"
)

// The calendar feeds (CONTRACT.md section 21, modules/calendar) over one kind of item: the items
// with a follow-up, a due or a target date. A kind that shows there joins the "calendarSources"
// value group with the source its Service makes (AsCalendarSource, Service.CalendarSource),
// described by the same value as its Focus lists (Focus: which items are open, its due date), so
// that a feed and the Focus view cannot disagree on which items count. The source reads through
// the item lists' own checks (listRows), so a feed never decides access by a rule of its own.

// CalendarItem is an item as a calendar feed shows it: its kind and id, its version (which
// changes with every write of the item, so that a feed's ETag can be made of the versions it
// shows), when it last changed, and its dates.
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

// CalendarSource is a kind of item in the calendar feeds.
type CalendarSource interface {
	// Calendar returns at most limit items of the kind that principal p may see now, live, not
	// archived, open and with at least one date, in notebookID when it is not nil (checked first,
	// with the item lists' access codes), the most recently changed first.
	Calendar(ctx context.Context, p *auth.Principal, notebookID *string, limit int) ([]CalendarItem, error)
}

// AsCalendarSource annotates a constructor whose result implements CalendarSource so that it joins
// the "calendarSources" value group the calendar module reads:
// fx.Provide(items.AsCalendarSource(NewCalendarSource)).
func AsCalendarSource(constructor any) any {
	return fx.Annotate(constructor, fx.As(new(CalendarSource)), fx.ResultTags(`group:"calendarSources"`))
}

// CalendarSource returns the kind's source for the calendar feeds, described by f (its Focus
// lists' description: its table, what an open item is, its due date).
func (s *Service[Row]) CalendarSource(f Focus[Row]) CalendarSource {
	return calendarSource[Row]{s: s, f: f}
}

type calendarSource[Row any] struct {
	s *Service[Row]
	f Focus[Row]
}

// Calendar implements CalendarSource: one read of at most limit rows, through listRows.
func (cs calendarSource[Row]) Calendar(ctx context.Context, p *auth.Principal, notebookID *string, limit int) ([]CalendarItem, error) {
	s, table := cs.s, cs.f.Table
	var dated []string
	for _, c := range cs.f.columns() {
		dated = append(dated, table+"."+c.name+" IS NOT NULL")
	}
	cond := "(" + strings.Join(dated, " OR ") + ")"
	if cs.f.Open != "" {
		cond = cs.f.Open + " AND " + cond
	}
	f := ListFilter{NotebookID: notebookID, Conditions: []Condition{{SQL: cond}}}
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
		it := CalendarItem{Kind: s.shape.Name, ID: c.ID, Version: c.Version, UpdatedAt: c.UpdatedAt, FollowUpAt: c.FollowUpAt, TargetAt: c.TargetAt,
			Label: func() (string, error) { return s.labelOf(row) }}
		if cs.f.DueAt != nil {
			it.DueAt = cs.f.DueAt(row)
		}
		out[i] = it
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
