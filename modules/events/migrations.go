package events

import (
	"gorm.io/gorm"

	"folio/platform/db"
)

func migrations() db.Migrations {
	return db.Migrations{{
		ID: "202611232330_events_init",
		Migrate: func(tx *gorm.DB) error {
			if err := tx.Migrator().CreateTable(&Event{}); err != nil {
				return err
			}
			for _, stmt := range []string{
				// What the sequencer looks for: committed rows without a place in the feed.
				"CREATE INDEX idx_events_unsequenced ON events (id) WHERE seq IS NULL",
				// One index per visibility rule, each serving the feed's seq order.
				"CREATE INDEX idx_events_actor ON events (actor_user_id, seq)",
				"CREATE INDEX idx_events_workspace ON events (workspace_id, seq)",
				"CREATE INDEX idx_events_notebook ON events (notebook_id, seq)",
				// Retention.
				"CREATE INDEX idx_events_created ON events (created_at)",
			} {
				if err := tx.Exec(stmt).Error; err != nil {
					return err
				}
			}
			return nil
		},
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropTable(&Event{}) },
	}, {
		// The reminders' visibility rule (no actor, a notebook the reader sees), in seq order.
		ID: "202611271300_events_reminders",
		Migrate: func(tx *gorm.DB) error {
			return tx.Exec("CREATE INDEX idx_events_reminders ON events (notebook_id, seq) WHERE actor_user_id = ''").Error
		},
		Rollback: func(tx *gorm.DB) error { return tx.Exec("DROP INDEX idx_events_reminders").Error },
	}}
}
