package idempotency

import (
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"
	"gorm.io/gorm"

	"folio/platform/db"
	"folio/tests/testenv"
)

// oldRecord is the idempotency_keys table as migration 202611232310 first created it: keys
// belonged to the user.
type oldRecord struct {
	ID          string    `gorm:"primaryKey;size:24"`
	UserID      string    `gorm:"size:24;not null;uniqueIndex:idx_idempotency_user_key,priority:1"`
	IdemKey     string    `gorm:"column:idem_key;size:255;not null;uniqueIndex:idx_idempotency_user_key,priority:2"`
	Fingerprint []byte    `gorm:"not null"`
	Token       string    `gorm:"size:24;not null"`
	LeaseUntil  time.Time `gorm:"not null"`
	Status      int       `gorm:"not null;default:0"`
	Header      string    `gorm:"not null;default:''"`
	Body        []byte
	CreatedAt   time.Time `gorm:"not null;autoCreateTime:false;index:idx_idempotency_created"`
}

func (oldRecord) TableName() string { return "idempotency_keys" }

// TestCredentialMigration upgrades a table of the first shape in which two users used the same
// key (the new unique index is per credential, and the old records name none), on both
// databases: the step succeeds, the old records are gone, two credentials may then hold the same
// key, and running the step again (as on a database created from the current model) changes
// nothing.
func TestCredentialMigration(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			opts := db.Options{SQLitePath: filepath.Join(t.TempDir(), "idem.db"), MaxOpenConns: 4, MaxIdleConns: 4}
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
			if err := gdb.Migrator().CreateTable(&oldRecord{}); err != nil {
				t.Fatal(err)
			}
			now := time.Now()
			for i, user := range []string{"u1", "u2"} {
				old := oldRecord{ID: "aaaaaaaaaaaaaaaaaaaaaaa" + string(rune('1'+i)), UserID: user, IdemKey: "retry-1", Fingerprint: []byte{1},
					Token: "t", LeaseUntil: now, Status: 201, CreatedAt: now}
				if err := gdb.Create(&old).Error; err != nil {
					t.Fatal(err)
				}
			}
			steps := Migrations()
			if len(steps) != 2 || steps[1].ID != "202611262310_idempotency_credential" {
				t.Fatalf("migration steps %v", steps)
			}
			for range 2 {
				if err := gdb.Transaction(func(tx *gorm.DB) error { return steps[1].Migrate(tx) }); err != nil {
					t.Fatalf("migrate: %v", err)
				}
			}
			var n int64
			if err := gdb.Model(&record{}).Count(&n).Error; err != nil || n != 0 {
				t.Fatalf("%d old records left (%v), want 0", n, err)
			}
			for i, cred := range []string{"key:k1", "key:k2", "key:k1"} {
				r := record{ID: "bbbbbbbbbbbbbbbbbbbbbbb" + string(rune('1'+i)), UserID: "u1", Credential: cred, IdemKey: "retry-1",
					Fingerprint: []byte{1}, Token: "t", LeaseUntil: now, CreatedAt: now}
				err := gdb.Create(&r).Error
				if (i < 2) != (err == nil) {
					t.Fatalf("record %d (%s): %v; two credentials may hold the same key, one credential only once", i, cred, err)
				}
			}
		})
	}
}

func TestMain(m *testing.M) { testenv.Main(m) }
