package notes

import (
	"folio/modules/document"
	"folio/modules/items"
	"folio/platform/db"
	"folio/platform/markdown"
)

// Note is a Markdown note, stored as the codec's document, the source of truth, with beside it
// the canonical Markdown written from it at save time (ContentText: the columns content_markdown
// and content_codec), which reads serve. HasDecision is derived from the content on every write.
// The columns every item has (id, notebook, archive, dates, soft delete) are the embedded
// items.Columns.
type Note struct {
	items.Columns
	Content     db.JSON          `gorm:"not null"`
	ContentText document.Written `gorm:"embedded;embeddedPrefix:content_"`
	HasDecision bool             `gorm:"not null"`
}

// derive keeps HasDecision in step with the content, on every write of it.
func (n *Note) derive(doc markdown.Doc) { n.HasDecision = doc.HasDecision() }

// document is the note's content column, for the shared item flows.
func (n *Note) document() *db.JSON { return &n.Content }

// text is the note's stored text, for the shared item flows.
func (n *Note) text() *document.Written { return &n.ContentText }
