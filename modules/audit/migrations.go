package audit

import (
	"gorm.io/gorm"

	"folio/platform/db"
)

func migrations() db.Migrations {
	return db.Migrations{{
		ID: "202611221030_audit_init",
		Migrate: func(tx *gorm.DB) error {
			if err := tx.Migrator().CreateTable(&Entry{}); err != nil {
				return err
			}
			// One index per visibility rule, each serving the id DESC order of the log.
			for _, stmt := range []string{
				"CREATE INDEX idx_audit_actor ON audit_entries (actor_user_id, id DESC)",
				"CREATE INDEX idx_audit_workspace ON audit_entries (workspace_id, id DESC)",
				"CREATE INDEX idx_audit_notebook ON audit_entries (notebook_id, id DESC)",
			} {
				if err := tx.Exec(stmt).Error; err != nil {
					return err
				}
			}
			return nil
		},
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropTable(&Entry{}) },
	}}
}
