package notebooks

import (
	"gorm.io/gorm"

	"folio/platform/db"
)

func migrations() db.Migrations {
	return db.Migrations{{
		ID: "202611221020_notebooks_init",
		Migrate: func(tx *gorm.DB) error {
			if err := tx.Migrator().CreateTable(&Notebook{}); err != nil {
				return err
			}
			return tx.Exec("CREATE INDEX idx_notebooks_created ON notebooks (created_at DESC, id DESC)").Error
		},
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropTable(&Notebook{}) },
	},
		db.AddVersionColumn("202611232300_notebooks_version", "notebooks"),
	}
}
