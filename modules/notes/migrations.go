package notes

import (
	"gorm.io/gorm"

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
	}, {
		// PostgreSQL: content becomes json, not jsonb. Nothing queries inside the document; it is
		// written whole and read whole on every GET and list, and jsonb pays for its binary form
		// on every read (each row's tree is serialised back to text, about a third of the
		// database's time for a page of 20 notes), while json returns the stored text as it is.
		// The rewrite of the table is a one-off.
		ID: "202611221210_notes_content_json",
		Migrate: func(tx *gorm.DB) error {
			if !db.IsPostgres(tx) {
				return nil
			}
			return tx.Exec("ALTER TABLE notes ALTER COLUMN content TYPE json USING content::json").Error
		},
		Rollback: func(tx *gorm.DB) error {
			if !db.IsPostgres(tx) {
				return nil
			}
			return tx.Exec("ALTER TABLE notes ALTER COLUMN content TYPE jsonb USING content::jsonb").Error
		},
	}}
}
