package notes

import (
	"time"

	"folio/platform/db"
)

// Note is a Markdown note, stored as the codec's document (never as Markdown). HasDecision is
// derived from the content on every write. A deleted note keeps its row (DeletedAt set) so that
// cursors and audit entries naming it stay valid; every read filters it out.
type Note struct {
	ID          string  `gorm:"primaryKey;size:24"`
	NotebookID  string  `gorm:"size:24;not null"`
	Content     db.JSON `gorm:"not null"`
	HasDecision bool    `gorm:"not null"`
	Archived    bool    `gorm:"not null"`
	TargetAt    *time.Time
	FollowUpAt  *time.Time
	CreatedByID string `gorm:"size:24;not null"`
	CreatedAt   time.Time
	// UpdatedAt is set by the service, from its clock (GORM's autoUpdateTime would overwrite it
	// with the wall clock on every save).
	UpdatedAt time.Time `gorm:"autoUpdateTime:false"`
	DeletedAt *time.Time
}
