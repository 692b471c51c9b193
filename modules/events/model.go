package events

import "time"

// Event is one row of the change feed. ID is the row's own id, in emission order within a
// transaction; Seq is its place in the feed, assigned only once the row is committed (see
// Service.Sequence): the wire id is made of Seq.
type Event struct {
	ID           int64   `gorm:"primaryKey;autoIncrement"`
	Seq          *int64  `gorm:"uniqueIndex:idx_events_seq"`
	Type         string  `gorm:"size:40;not null"`
	ResourceType string  `gorm:"size:20;not null"`
	ResourceID   string  `gorm:"size:24;not null"`
	NotebookID   *string `gorm:"size:24"`
	WorkspaceID  *string `gorm:"size:24"`
	ActorUserID  string  `gorm:"size:24;not null"`
	APIKeyName   *string `gorm:"size:100"`
	APIKeyPrefix *string `gorm:"size:17"`
	Data         string  `gorm:"type:text;not null"` // the resource's JSON, as the API returned it
	CreatedAt    time.Time
}

// TableName keeps the table name stable.
func (Event) TableName() string { return "events" }
