// Package comments is a test-only module that proves "adding a module is a folder and one line":
// tests/plugin's test plugs it into the app with one fx option, and it brings its routes, its
// migration, its audit resource type, its event type, its error code and its OpenAPI part
// without an edit anywhere else. A comment is a short text on a notebook the caller can read.
package comments

import "time"

// Comment is one comment.
type Comment struct {
	ID         string    `gorm:"primaryKey;size:36"`
	NotebookID string    `gorm:"size:36;not null;index"`
	UserID     string    `gorm:"size:36;not null"`
	Body       string    `gorm:"not null"`
	CreatedAt  time.Time `gorm:"not null"`
}
