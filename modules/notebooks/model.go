package notebooks

import (
	"time"

	"folio/platform/etag"
)

// Notebook holds notes and tasks. WorkspaceID nil means personal: it belongs to OwnerID alone.
// For a workspace notebook OwnerID is its creator and access follows workspace membership.
type Notebook struct {
	ID          string  `gorm:"primaryKey;size:24"`
	Name        string  `gorm:"size:160;not null"`
	Color       string  `gorm:"size:16;not null"`
	WorkspaceID *string `gorm:"size:24;index"`
	OwnerID     string  `gorm:"size:24;not null;index"`
	// ItemCount is the number of notes and tasks (archived included, deleted not) in the
	// notebook. It is changed only by a conditional UPDATE inside the writer's transaction, so the
	// database itself holds the item limit under concurrent creates and moves.
	ItemCount int `gorm:"not null;default:0"`
	CreatedAt time.Time
	// UpdatedAt is set by the service, from its clock. Not GORM's autoUpdateTime: that would stamp
	// the wall clock on every UPDATE, including the item count's, which is bookkeeping and not a
	// change of the notebook.
	UpdatedAt time.Time `gorm:"autoUpdateTime:false"`
	// Version is 1 when created; an UPDATE of the notebook's own fields increments it in the same
	// statement (the item count's bookkeeping does not). Its ETag is made of it.
	Version int64 `gorm:"not null;default:1"`
}

// ETag is the notebook's strong ETag (CONTRACT.md section 12).
func (n Notebook) ETag() string { return etag.Of(n.Version) }

// Colors a notebook may have; the first is the default.
var Colors = []string{"gray", "red", "orange", "yellow", "green", "teal", "blue", "purple", "pink", "brown"}

// accessRow is a notebook with the caller's role in its workspace ("" when not a member or personal).
type accessRow struct {
	Notebook
	Role *string
}
