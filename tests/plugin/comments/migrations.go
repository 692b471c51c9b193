package comments

import (
	"gorm.io/gorm"

	"folio/platform/db"
)

func migrations() db.Migrations {
	return db.Migrations{{
		ID:       "209901010000_comments_init",
		Migrate:  func(tx *gorm.DB) error { return tx.Migrator().CreateTable(&Comment{}) },
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropTable(&Comment{}) },
	}}
}
