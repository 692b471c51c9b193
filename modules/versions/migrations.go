package versions

import (
	"gorm.io/gorm"

	"folio/platform/db"
)

func migrations() db.Migrations {
	return db.Migrations{
		{
			ID:       "202611221101_versions_init",
			Migrate:  func(tx *gorm.DB) error { return tx.Migrator().CreateTable(&Snapshot{}) },
			Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropTable(&Snapshot{}) },
		},
		// Who replaced the content, shown by GET /<kind>s/:id/versions (CONTRACT.md section 15).
		db.AddColumns("202611241001_versions_key", &Snapshot{}, "APIKeyName", "APIKeyPrefix"),
		// The document's stored text (issue 35): empty and codec 0 on older rows, which the
		// re-render (modules/document) writes in the background.
		db.AddColumns("202612030000_versions_text", &Snapshot{}, "document_markdown", "document_codec"),
	}
}
