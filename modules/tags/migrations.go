package tags

import (
	"gorm.io/gorm"

	"folio/platform/db"
)

func migrations() db.Migrations {
	return db.Migrations{{
		ID:       "202611221100_tags_init",
		Migrate:  func(tx *gorm.DB) error { return tx.Migrator().CreateTable(&Tag{}, &ItemTag{}) },
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropTable(&ItemTag{}, &Tag{}) },
	}}
}
