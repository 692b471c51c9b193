package suggestions

import (
	"time"

	"folio/modules/content"
	"folio/modules/document"
	"folio/platform/db"
	"folio/platform/etag"
)

// Statuses of a suggestion. PENDING is the only state with a way out.
const (
	StatusPending    = "PENDING"
	StatusApproved   = "APPROVED"
	StatusRejected   = "REJECTED"
	StatusSuperseded = "SUPERSEDED"
)

// Suggestion is a proposed replacement of an item's content. Both documents are stored in the
// codec's form; OriginalContent is the item's content when the suggestion was made.
type Suggestion struct {
	ID               string  `gorm:"primaryKey;size:24"`
	ItemKind         string  `gorm:"size:10;not null;index:idx_suggestions_item,priority:1"`
	ItemID           string  `gorm:"size:24;not null;index:idx_suggestions_item,priority:2"`
	Status           string  `gorm:"size:12;not null"`
	OriginalContent  db.JSON `gorm:"not null"`
	SuggestedContent db.JSON `gorm:"not null"`
	// The two documents' canonical Markdown, stored with them (original_content_markdown, ...):
	// reads serve them.
	OriginalText  document.Written `gorm:"embedded;embeddedPrefix:original_content_"`
	SuggestedText document.Written `gorm:"embedded;embeddedPrefix:suggested_content_"`
	Rationale     string           `gorm:"size:8000;not null"`
	CreatedByID   string           `gorm:"size:24;not null"`
	// The key that proposed it (its name and display prefix), nil for a session: the review pages
	// show who proposed a change ("Research assistant", or the person).
	CreatedByKeyName   *string `gorm:"size:100"`
	CreatedByKeyPrefix *string `gorm:"size:20"`
	CreatedAt          time.Time
	ResolvedAt         *time.Time
	ResolvedByID       *string `gorm:"size:24"`
	// ItemVersion is the item's version (the counter its ETag is made of) when the suggestion was
	// made, read under the item's lock: the version the suggestion was made against. nil for a
	// suggestion made before it was recorded (migration 202612011000); the merge of an approval
	// does not need it either way, its base being OriginalContent.
	ItemVersion *int64
	// Version is 1 when suggested; superseding or resolving increments it in the same UPDATE. Its
	// ETag is made of it.
	Version int64 `gorm:"not null;default:1"`
	// response, set by Suggest (not a column), is the suggestion as the API answers it, built once
	// with the Markdown the request carried: the event's data, and what toSuggestionResponse gives
	// back as it is.
	response *content.Suggestion
}

// ETag is the suggestion's strong ETag (CONTRACT.md section 12).
func (sg Suggestion) ETag() string { return etag.Of(sg.Version) }
