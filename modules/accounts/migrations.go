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
	}}
}
