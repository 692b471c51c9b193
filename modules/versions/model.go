package versions

import (
	"time"

	"folio/modules/document"

	"folio/platform/db"
)

// Snapshot is the content of an item as it was before an overwrite.
type Snapshot struct {
	ID       string  `gorm:"primaryKey;size:24"`
	ItemKind string  `gorm:"size:10;not null;index:idx_snapshots_item,priority:1"`
	ItemID   string  `gorm:"size:24;not null;index:idx_snapshots_item,priority:2"`
	Document db.JSON `gorm:"not null"`
	// Text is the document's canonical Markdown, stored with it (document_markdown,
	// document_codec): a version's read serves it.
	Text        document.Written `gorm:"embedded;embeddedPrefix:document_"`
	Reason      string           `gorm:"size:20;not null"` // what replaced this content: update, suggestion, restore
	ActorUserID string           `gorm:"size:24;not null"`
	// The key that replaced this content, as the audit log names it; null for a session (and for
	// snapshots taken before the columns existed).
	APIKeyName   *string `gorm:"column:api_key_name;size:100"`
	APIKeyPrefix *string `gorm:"column:api_key_prefix;size:32"`
	CreatedAt    time.Time
}
