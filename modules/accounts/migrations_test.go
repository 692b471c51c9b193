package accounts

import (
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"
	"gorm.io/gorm"

	"folio/platform/db"
	"folio/tests/testenv"
)

// oldAPIKey is the api_keys table as migration 202611221000 first created it: no expiry.
type oldAPIKey struct {
	ID            string  `gorm:"primaryKey;size:24"`
	UserID        string  `gorm:"size:24;not null;index"`
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
}

func (oldAPIKey) TableName() string { return "api_keys" }

// TestKeyExpiryMigration upgrades a key table of the first shape, holding a key, on both
// databases: the key gets no expiry (it keeps working), a new key can have one, and running the
// step again (as on a database created from the current model) changes nothing.
func TestKeyExpiryMigration(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			opts := db.Options{SQLitePath: filepath.Join(t.TempDir(), "keys.db"), MaxOpenConns: 4, MaxIdleConns: 4}
			if kind == "postgres" {
				opts.URL = testenv.PostgresDB(t, func(string) error { return nil })
			}
			gdb, err := db.Open(opts, zap.NewNop())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if sqlDB, err := gdb.DB(); err == nil {
					_ = sqlDB.Close()
				}
			})
			if err := gdb.Migrator().CreateTable(&oldAPIKey{}); err != nil {
				t.Fatal(err)
			}
			old := oldAPIKey{ID: "aaaaaaaaaaaaaaaaaaaaaaa1", UserID: "u1", Name: "old", Prefix: "AAAAAAAA", SecretHash: []byte{1}, Scope: 3, CreatedAt: time.Now()}
			if err := gdb.Create(&old).Error; err != nil {
				t.Fatal(err)
			}
			steps := migrations()
			if len(steps) < 2 || steps[1].ID != "202611260900_accounts_key_expiry" {
				t.Fatalf("migration steps %v", steps)
			}
			for range 2 {
				if err := gdb.Transaction(func(tx *gorm.DB) error { return steps[1].Migrate(tx) }); err != nil {
					t.Fatalf("migrate: %v", err)
				}
			}
			var got APIKey
			if err := gdb.Omit("User").Where("id = ?", old.ID).Take(&got).Error; err != nil || got.ExpiresAt != nil {
				t.Fatalf("the old key after the migration: %+v, %v", got, err)
			}
			at := time.Date(2032, 1, 2, 0, 0, 0, 0, time.UTC)
			if err := gdb.Model(&APIKey{}).Where("id = ?", old.ID).Update("expires_at", at).Error; err != nil {
				t.Fatal(err)
			}
			if err := gdb.Where("id = ?", old.ID).Take(&got).Error; err != nil || got.ExpiresAt == nil || !got.ExpiresAt.Equal(at) {
				t.Fatalf("expiry stored and read back: %+v, %v", got.ExpiresAt, err)
			}
		})
	}
}
