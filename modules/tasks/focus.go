package tasks

import (
	"time"

	"folio/modules/items"
)

// focus is how tasks show in the Focus view (GET /focus): by their targetAt and followUpAt, and in
// the due list by their dueAt; a DONE task in no list. The status is a literal in the SQL (see
// items.Focus.Open).
func focus() items.Focus[Task] {
	return items.Focus[Task]{Table: "tasks", Open: "status <> 'DONE'", DueColumn: "due_at",
		DueAt: func(t *Task) *time.Time { return t.DueAt }}
}

// NewFocusSource returns the tasks' source for the Focus view: the focus module reads the tasks'
// lists through it.
func NewFocusSource(svc *Service) items.FocusSource { return svc.items.FocusSource(focus()) }
