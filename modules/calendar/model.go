package calendar

import (
	"time"

	"folio/platform/auth"
)

// Feed is a calendar feed: a secret address (its token) that serves the dated items its
// credential can read, as an iCalendar. It belongs to the credential that created it (CONTRACT.md
// sections 20 and 21) and reads what that credential reads now, resolved at every fetch: it dies
// with the key or session, and a rotation moves it to the new key (Store.MoveKey). Only a hash of
// the token is stored (auth.Hasher, as for keys).
type Feed struct {
	ID     string `gorm:"primaryKey;size:24"`
	UserID string `gorm:"size:24;not null;index"`
	Name   string `gorm:"size:80;not null"`
	// NotebookID restricts the feed to one notebook (the API's notebookId); nil: every notebook
	// its credential reads.
	NotebookID *string `gorm:"size:24"`
	TokenHash  []byte  `gorm:"not null;uniqueIndex"`
	// KeyWorkspaceID and KeyNotebookID are the creating key's restriction: a restricted key
	// manages only the feeds made under its own (owned).
	KeyWorkspaceID *string `gorm:"size:24"`
	KeyNotebookID  *string `gorm:"size:24"`
	// CredentialKind and CredentialID name the credential it belongs to (auth.CredentialRef).
	CredentialKind string `gorm:"size:10;not null;index:idx_calendar_feeds_credential,priority:1"`
	CredentialID   string `gorm:"size:24;not null;index:idx_calendar_feeds_credential,priority:2"`
	CreatedAt      time.Time
}

// TableName keeps the table name stable.
func (Feed) TableName() string { return "calendar_feeds" }

// Credential is the credential the feed belongs to.
func (f Feed) Credential() auth.CredentialRef {
	return auth.CredentialRef{Kind: auth.Credential(f.CredentialKind), ID: f.CredentialID}
}
