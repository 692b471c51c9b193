package accounts

import "time"

// User is an account. Email is stored lower-cased and is unique.
type User struct {
	ID           string `gorm:"primaryKey;size:24"`
	Email        string `gorm:"size:320;not null;uniqueIndex"`
	Name         string `gorm:"size:200;not null"`
	PasswordHash string `gorm:"size:200;not null;default:''"` // empty: the user cannot sign in
	// TimeZone is the IANA zone the web app shows the user's day in (its Focus page): learned
	// from the browser, editable in the settings; "" until then (UTC).
	TimeZone  string `gorm:"size:64;not null;default:''"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

// APIKey is a key's stored form: its public prefix and only a hash of its secret.
type APIKey struct {
	ID            string  `gorm:"primaryKey;size:24"`
	UserID        string  `gorm:"size:24;not null;index"`
	User          *User   `gorm:"constraint:OnDelete:CASCADE"`
	Name          string  `gorm:"size:100;not null"`
	Prefix        string  `gorm:"size:8;not null;uniqueIndex"`
	SecretHash    []byte  `gorm:"not null"`
	Scope         int     `gorm:"not null"`
	WorkspaceID   *string `gorm:"size:24"`
	NotebookID    *string `gorm:"size:24"`
	RotatedFromID *string `gorm:"size:24"`
	CreatedAt     time.Time
	LastUsedAt    *time.Time
	RevokedAt     *time.Time
	ExpiresAt     *time.Time // nil: never expires; from this instant on the key is refused
}

// Expired reports whether the key has an expiry and it has passed at now.
func (k APIKey) Expired(now time.Time) bool { return k.ExpiresAt != nil && !now.Before(*k.ExpiresAt) }

// TableName keeps the table name stable whatever the struct is called.
func (APIKey) TableName() string { return "api_keys" }

// Session is a signed-in web session. Only a hash of its token is stored.
type Session struct {
	ID        string `gorm:"primaryKey;size:24"`
	UserID    string `gorm:"size:24;not null;index"`
	User      *User  `gorm:"constraint:OnDelete:CASCADE"`
	TokenHash []byte `gorm:"not null;uniqueIndex"`
	CSRFToken string `gorm:"size:64;not null"`
	CreatedAt time.Time
	ExpiresAt time.Time `gorm:"not null"`
}
