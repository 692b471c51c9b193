package audit

import "time"

// Entry is one recorded action. The key's name and display prefix are copied at the time of the
// action, so the log stays true after a key is renamed, rotated or revoked.
type Entry struct {
	ID           int64   `gorm:"primaryKey;autoIncrement"`
	Action       string  `gorm:"size:40;not null"`
	ResourceType string  `gorm:"size:20;not null"`
	ResourceID   string  `gorm:"size:24;not null"`
	ActorUserID  string  `gorm:"size:24;not null"`
	APIKeyID     *string `gorm:"size:24"`
	APIKeyName   *string `gorm:"size:100"`
	APIKeyPrefix *string `gorm:"size:17"`
	WorkspaceID  *string `gorm:"size:24"`
	NotebookID   *string `gorm:"size:24"`
	CreatedAt    time.Time
}

// TableName keeps the table name stable.
func (Entry) TableName() string { return "audit_entries" }
