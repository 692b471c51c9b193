package tasks

import (
	"time"

	"folio/platform/db"
	"folio/platform/items"
)

// Statuses and priorities, in their wire spelling.
var (
	Statuses   = []string{"TODO", "IN_PROGRESS", "BLOCKED", "DONE"}
	Priorities = []string{"LOW", "MEDIUM", "HIGH", "URGENT"}
)

// Task is a task; its notes are Markdown stored as the codec's document. A deleted task keeps its
// row (DeletedAt set) so that cursors and audit entries naming it stay valid.
type Task struct {
	ID          string  `gorm:"primaryKey;size:24"`
	NotebookID  string  `gorm:"size:24;not null"`
	Title       string  `gorm:"size:2000;not null"`
	Notes       db.JSON `gorm:"not null"`
	Status      string  `gorm:"size:12;not null"`
	Priority    string  `gorm:"size:8;not null"`
	Archived    bool    `gorm:"not null"`
	DueAt       *time.Time
	TargetAt    *time.Time
	FollowUpAt  *time.Time
	CreatedByID string `gorm:"size:24;not null"`
	CreatedAt   time.Time
	// UpdatedAt is set by the service, from its clock (GORM's autoUpdateTime would overwrite it
	// with the wall clock on every save).
	UpdatedAt time.Time `gorm:"autoUpdateTime:false"`
	DeletedAt *time.Time
}

// columns shows a task's notes and the other columns every item has to the shared item flows.
func (t *Task) columns() items.Columns {
	return items.Columns{ID: &t.ID, NotebookID: &t.NotebookID, Document: &t.Notes, Archived: &t.Archived, TargetAt: &t.TargetAt,
		FollowUpAt: &t.FollowUpAt, CreatedByID: &t.CreatedByID, CreatedAt: &t.CreatedAt, UpdatedAt: &t.UpdatedAt, DeletedAt: &t.DeletedAt}
}
