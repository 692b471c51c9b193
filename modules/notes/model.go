package notes

import (
	"folio/modules/items"
	"folio/platform/db"
	"folio/platform/markdown"
)

// Note is a Markdown note, stored as the codec's document (never as Markdown). HasDecision is
// derived from the content on every write. The columns every item has (id, notebook, archive,
// dates, soft delete) are the embedded items.Columns.
type Note struct {
	items.Columns
	Content     db.JSON `gorm:"not null"`
	HasDecision bool    `gorm:"not null"`
}

// derive keeps HasDecision in step with the content, on every write of it.
func (n *Note) derive(doc markdown.Doc) { n.HasDecision = doc.HasDecision() }

// document is the note's content column, for the shared item flows.
func (n *Note) document() *db.JSON { return &n.Content }
