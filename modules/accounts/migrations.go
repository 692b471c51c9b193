package accounts

import (
	"gorm.io/gorm"

	"folio/platform/db"
)

// migrations are the accounts module's schema steps. A step never changes once released: a later
// change to a model is a new step.
func migrations() db.Migrations {
	return db.Migrations{{
		ID: "202611221000_accounts_init",
		Migrate: func(tx *gorm.DB) error {
			return tx.Migrator().CreateTable(&User{}, &APIKey{}, &Session{})
		},
		Rollback: func(tx *gorm.DB) error {
			return tx.Migrator().DropTable(&Session{}, &APIKey{}, &User{})
		},
	}, {
		// Keys may expire (CONTRACT.md section 19): a nullable expires_at, NULL for every existing
		// key (they never expire). A database whose first step ran after the column joined the
		// model already has it.
		ID: "202611260900_accounts_key_expiry",
		Migrate: func(tx *gorm.DB) error {
			if tx.Migrator().HasColumn(&APIKey{}, "ExpiresAt") {
				return nil
			}
			return tx.Migrator().AddColumn(&APIKey{}, "ExpiresAt")
		},
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropColumn(&APIKey{}, "ExpiresAt") },
	},
		// The web app's time zone of each user (CONTRACT.md section 23): "" for every existing
		// user (UTC until the browser or the settings tell).
		db.AddColumns("202612020000_accounts_time_zone", &User{}, "TimeZone"),
	}
}
