package suggestions

import (
	"gorm.io/gorm"

	"folio/platform/db"
)

func migrations() db.Migrations {
	return db.Migrations{{
		ID: "202611221130_suggestions_init",
		Migrate: func(tx *gorm.DB) error {
			if err := tx.Migrator().CreateTable(&Suggestion{}); err != nil {
				return err
			}
			// At most one PENDING suggestion per item, held by the database itself.
			return tx.Exec("CREATE UNIQUE INDEX idx_suggestions_one_pending ON suggestions (item_kind, item_id) WHERE status = 'PENDING'").Error
		},
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropTable(&Suggestion{}) },
	},
		db.AddVersionColumn("202611232300_suggestions_version", "suggestions"),
		db.AddColumns("202611261000_suggestions_key", &Suggestion{}, "CreatedByKeyName", "CreatedByKeyPrefix"),
		// Suggestions made before it have none (NULL): see Suggestion.ItemVersion.
		db.AddColumns("202612011000_suggestions_item_version", &Suggestion{}, "ItemVersion"),
		// The documents' stored texts (issue 35): empty and codec 0 on older rows, which the
		// re-render (modules/document) writes in the background.
		db.AddColumns("202612030000_suggestions_text", &Suggestion{}, "original_content_markdown", "original_content_codec",
			"suggested_content_markdown", "suggested_content_codec"),
	}
}
