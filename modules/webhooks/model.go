package webhooks

import "time"

// Statuses of a webhook.
const (
	StatusActive   = "active"
	StatusDisabled = "disabled" // every attempt failed for DisableAfter
)

// Webhook is one subscription. It sees what the key that created it saw: its user's own events,
// or, when the key was restricted, its workspace's or notebook's (CONTRACT.md sections 7 and 18).
type Webhook struct {
	ID          string  `gorm:"primaryKey;size:24"`
	UserID      string  `gorm:"size:24;not null;index"`
	WorkspaceID *string `gorm:"size:24"` // the creating key's restriction
	NotebookID  *string `gorm:"size:24"`
	URL         string  `gorm:"size:2048;not null"`
	Events      string  `gorm:"size:1000;not null"` // comma-separated types; "" for all
	Description string  `gorm:"size:500;not null"`
	// Secret signs the deliveries; it must be kept to sign, it is shown once (the create answer)
	// and never logged.
	Secret       string     `gorm:"size:60;not null"`
	Status       string     `gorm:"size:10;not null"`
	FailingSince *time.Time // the first failed attempt since the last success; nil when healthy
	CreatedAt    time.Time
}

// TableName keeps the table name stable.
func (Webhook) TableName() string { return "webhooks" }

// Attempt is one delivery attempt, as GET /webhooks/:id/deliveries shows it.
type Attempt struct {
	ID            int64  `gorm:"primaryKey;autoIncrement"`
	WebhookID     string `gorm:"size:24;not null"`
	EventID       string `gorm:"size:30;not null"`
	AttemptedAt   time.Time
	StatusCode    *int
	DurationMs    int64   `gorm:"not null"`
	Error         *string `gorm:"size:500"`
	NextAttemptAt *time.Time
}

// TableName keeps the table name stable.
func (Attempt) TableName() string { return "webhook_attempts" }
