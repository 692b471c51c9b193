package tasks

import (
	"time"

	"folio/modules/document"

	"folio/modules/items"
	"folio/platform/db"
)

// StatusDone is the status of a finished task: left out of the Focus lists, never reminded of.
const StatusDone = "DONE"

// Statuses and priorities, in their wire spelling.
var (
	Statuses   = []string{"TODO", "IN_PROGRESS", "BLOCKED", "DONE"}
	Priorities = []string{"LOW", "MEDIUM", "HIGH", "URGENT"}
)

// Task is a task; its notes are Markdown stored as the codec's document. A deleted task keeps its
// row (DeletedAt set) so that cursors and audit entries naming it stay valid.
type Task struct {
	items.Columns
	Title string  `gorm:"size:2000;not null"`
	Notes db.JSON `gorm:"not null"`
	// NotesText is the notes' canonical Markdown written at save time (notes_markdown,
	// notes_codec), which reads serve; Notes stays the source of truth.
	NotesText document.Written `gorm:"embedded;embeddedPrefix:notes_"`
	Status    string           `gorm:"size:12;not null"`
	Priority  string           `gorm:"size:8;not null"`
	DueAt     *time.Time
	// DueFiredAt is the due reminder's state (items.Reminder): the time it fired for or was
	// disarmed at, NULL while armed. Never on the wire.
	DueFiredAt *time.Time
}

// document is the task's notes column, for the shared item flows.
func (t *Task) document() *db.JSON { return &t.Notes }

// text is the task's stored text of its notes, for the shared item flows.
func (t *Task) text() *document.Written { return &t.NotesText }
