package tasks

import (
	"time"

	"folio/modules/items"
)

// focus is how tasks show in the Focus view (GET /focus) and the calendar feeds: by their targetAt
// and followUpAt, and by their dueAt (the due list); a DONE task in no list and no feed. The
// status is a literal in the SQL (see items.Focus.Open).
func focus() items.Focus[Task] {
	return items.Focus[Task]{Table: "tasks", Open: "status <> 'DONE'", DueColumn: "due_at",
		DueAt: func(t *Task) *time.Time { return t.DueAt }}
}

// NewFocusSource returns the tasks' source for the Focus view: the focus module reads the tasks'
// lists through it.
func NewFocusSource(svc *Service) items.FocusSource { return svc.items.FocusSource(focus()) }

// NewCalendarSource returns the tasks' source for the calendar feeds, described as for the Focus
// view (focus), so that a feed and the Focus view count the same items: the calendar module reads
// the tasks' dates through it.
func NewCalendarSource(svc *Service) items.CalendarSource { return svc.items.CalendarSource(focus()) }
