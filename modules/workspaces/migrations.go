package workspaces

import (
	"gorm.io/gorm"

	"folio/platform/db"
)

func migrations() db.Migrations {
	return db.Migrations{{
		ID: "202611221010_workspaces_init",
		Migrate: func(tx *gorm.DB) error {
			if err := tx.Migrator().CreateTable(&Workspace{}, &Membership{}); err != nil {
				return err
			}
			// Lists order workspaces by (created_at, id); members are found by workspace then role.
			return tx.Exec("CREATE INDEX idx_workspaces_created ON workspaces (created_at DESC, id DESC)").Error
		},
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropTable(&Membership{}, &Workspace{}) },
	}}
}
