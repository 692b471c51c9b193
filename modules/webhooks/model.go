package webhooks

import (
	"time"

	"folio/platform/auth"
	"folio/platform/holdings"
)

// Statuses of a webhook.
const (
	StatusActive   = holdings.StatusActive
	StatusDisabled = holdings.StatusDisabled // every attempt failed for DisableAfter, or its credential reads nothing
)

// ReasonFailing is the stored disabledReason of a webhook whose every attempt failed for
// DisableAfter; the other reasons (auth.DeadKeyRevoked, ...) are decided live from its credential.
const ReasonFailing = "FAILING"

// Webhook is one subscription. It belongs to the credential that created it (CONTRACT.md section
// 20) and sees what that credential sees now: its user's own events, or, for a restricted key, its
// workspace's or notebook's (sections 7 and 18), and of those only the ones whose resource it can
// still read. A rotation moves it to the new key (MoveKey).
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
	Secret string `gorm:"size:60;not null"`
	// CredentialKind and CredentialID name the credential it belongs to (auth.CredentialRef): a
	// key's id or a web session's id.
	CredentialKind string `gorm:"size:10;not null;default:'';index:idx_webhooks_credential,priority:1"`
	CredentialID   string `gorm:"size:24;not null;default:'';index:idx_webhooks_credential,priority:2"`
	Status         string `gorm:"size:10;not null"`
	// DisabledReason is the stored reason of a stored disabled status (ReasonFailing, or
	// auth.DeadAccessLost for a webhook made before webhooks recorded their credential).
	DisabledReason *string    `gorm:"size:20"`
	FailingSince   *time.Time // the first failed attempt since the last success; nil when healthy
	CreatedAt      time.Time
}

// TableName keeps the table name stable.
func (Webhook) TableName() string { return "webhooks" }

// Credential is the credential the webhook belongs to.
func (w Webhook) Credential() auth.CredentialRef {
	return auth.CredentialRef{Kind: auth.Credential(w.CredentialKind), ID: w.CredentialID}
}

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
