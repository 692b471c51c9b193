package notes

import (
	"time"

	"folio/platform/db"
	"folio/platform/items"
	"folio/platform/markdown"
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

// derive keeps HasDecision in step with the content, on every write of it.
func (n *Note) derive(doc markdown.Doc) { n.HasDecision = doc.HasDecision() }

// columns shows a note's content and the other columns every item has to the shared item flows.
func (n *Note) columns() items.Columns {
	return items.Columns{ID: &n.ID, NotebookID: &n.NotebookID, Document: &n.Content, Archived: &n.Archived, TargetAt: &n.TargetAt,
		FollowUpAt: &n.FollowUpAt, CreatedByID: &n.CreatedByID, CreatedAt: &n.CreatedAt, UpdatedAt: &n.UpdatedAt, DeletedAt: &n.DeletedAt}
}
