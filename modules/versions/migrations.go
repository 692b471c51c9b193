package versions

import (
	"github.com/go-gormigrate/gormigrate/v2"
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
		addKeyColumns("202611241001_versions_key", "APIKeyName", "APIKeyPrefix"),
	}
}

// addKeyColumns adds the model's fields as columns, unless the table was created with them.
func addKeyColumns(id string, fields ...string) *gormigrate.Migration {
	return &gormigrate.Migration{
		ID: id,
		Migrate: func(tx *gorm.DB) error {
			for _, f := range fields {
				if !tx.Migrator().HasColumn(&Snapshot{}, f) {
					if err := tx.Migrator().AddColumn(&Snapshot{}, f); err != nil {
						return err
					}
				}
			}
			return nil
		},
		Rollback: func(tx *gorm.DB) error {
			for _, f := range fields {
				if err := tx.Migrator().DropColumn(&Snapshot{}, f); err != nil {
					return err
				}
			}
			return nil
		},
	}
}
