package notes

import (
	"gorm.io/gorm"

	"folio/modules/items"
	"folio/platform/db"
)

func migrations() db.Migrations {
	return db.Migrations{{
		ID: "202611221110_notes_init",
		Migrate: func(tx *gorm.DB) error {
			if err := tx.Migrator().CreateTable(&Note{}); err != nil {
				return err
			}
			// The list's keyset order within the caller's notebooks, live items only; and the
			// plain order for cursor lookups by id (the primary key serves those).
			return tx.Exec("CREATE INDEX idx_notes_list ON notes (notebook_id, archived, created_at DESC, id DESC) WHERE deleted_at IS NULL").Error
		},
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropTable(&Note{}) },
	},
		db.StoreDocumentAsText("202611221210_notes_content_json", "notes", "content"),
		db.AddVersionColumn("202611232300_notes_version", "notes"),
		// The search index (modules/search) of the notes made before it existed.
		items.IndexExisting("202611241110_notes_search_index", "notes", shape()),
		items.StampTagTimes("202611261110_notes_tag_times", "notes", ItemKind),
		items.AddReminders("202611271100_notes_reminders", "notes", shape()),
		// The Focus view's indexes (GET /focus).
		items.FocusIndexes("202611271200_notes_focus_indexes", focus()),
		// The content's stored text (issue 35): empty and codec 0 on older rows, which the
		// re-render (modules/document) writes in the background.
		db.AddColumns("202612030000_notes_text", &Note{}, "content_markdown", "content_codec"),
	}
}
