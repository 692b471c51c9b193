package calendar

import (
	"gorm.io/gorm"

	"folio/platform/db"
)

func migrations() db.Migrations {
	return db.Migrations{{
		ID:       "202612010000_calendar_feeds_init",
		Migrate:  func(tx *gorm.DB) error { return tx.Migrator().CreateTable(&Feed{}) },
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropTable(&Feed{}) },
	}}
}
