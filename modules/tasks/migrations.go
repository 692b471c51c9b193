package tasks

import (
	"gorm.io/gorm"

	"folio/modules/items"
	"folio/platform/db"
)

func migrations() db.Migrations {
	return db.Migrations{{
		ID: "202611221120_tasks_init",
		Migrate: func(tx *gorm.DB) error {
			if err := tx.Migrator().CreateTable(&Task{}); err != nil {
				return err
			}
			return tx.Exec("CREATE INDEX idx_tasks_list ON tasks (notebook_id, archived, created_at DESC, id DESC) WHERE deleted_at IS NULL").Error
		},
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropTable(&Task{}) },
	},
		db.StoreDocumentAsText("202611221500_tasks_notes_json", "tasks", "notes"),
		db.AddVersionColumn("202611232300_tasks_version", "tasks"),
		// The search index (modules/search) of the tasks made before it existed.
		items.IndexExisting("202611241110_tasks_search_index", "tasks", shape()),
		items.StampTagTimes("202611261110_tasks_tag_times", "tasks", ItemKind),
		items.AddReminders("202611271100_tasks_reminders", "tasks", shape()),
		// The Focus view's indexes (GET /focus).
		items.FocusIndexes("202611271200_tasks_focus_indexes", focus()),
		// The notes' stored text (issue 35): empty and codec 0 on older rows, which the
		// re-render (modules/document) writes in the background.
		db.AddColumns("202612030000_tasks_text", &Task{}, "notes_markdown", "notes_codec"),
	}
}
