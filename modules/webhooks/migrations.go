package webhooks

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"gorm.io/gorm"

	"folio/platform/auth"
	"folio/platform/db"
)

func migrations() db.Migrations {
	return db.Migrations{{
		ID: "202611240000_webhooks_init",
		Migrate: func(tx *gorm.DB) error {
			if err := tx.Migrator().CreateTable(&Webhook{}, &Attempt{}); err != nil {
				return err
			}
			if err := tx.Exec("CREATE INDEX idx_webhook_attempts ON webhook_attempts (webhook_id, id DESC)").Error; err != nil {
				return err
			}
			return migrateRiver(tx)
		},
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropTable(&Webhook{}, &Attempt{}) },
	}, {
		// Webhooks belong to their credential (CONTRACT.md section 20). Those made before have no
		// recorded credential, and which key made one cannot be known: they are disabled
		// (ACCESS_LOST) rather than left delivering for a key that may have been revoked since.
		// Their owner sees them so in GET /webhooks and the settings UI, and makes them again. A
		// database whose first step ran after the columns joined the model already has them.
		ID: "202611262300_webhooks_credential",
		Migrate: func(tx *gorm.DB) error {
			m := tx.Migrator()
			for _, col := range []string{"CredentialKind", "CredentialID", "DisabledReason"} {
				if m.HasColumn(&Webhook{}, col) {
					continue
				}
				if err := m.AddColumn(&Webhook{}, col); err != nil {
					return err
				}
			}
			if !m.HasIndex(&Webhook{}, "idx_webhooks_credential") {
				if err := m.CreateIndex(&Webhook{}, "idx_webhooks_credential"); err != nil {
					return err
				}
			}
			// First the ones already disabled for failing, which keep that reason; then the rest.
			if err := tx.Exec("UPDATE webhooks SET disabled_reason = ? WHERE status = ? AND disabled_reason IS NULL", ReasonFailing, StatusDisabled).Error; err != nil {
				return err
			}
			return tx.Exec("UPDATE webhooks SET status = ?, disabled_reason = ? WHERE credential_id = '' AND status = ?", StatusDisabled, auth.DeadAccessLost, StatusActive).Error
		},
	}}
}

// migrateRiver creates River's tables (its job queue) as a step of folio's migrations, so they are
// serialised across instances like them. On SQLite they run in the step's own transaction. On
// PostgreSQL they cannot (a River migration adds an enum value and uses it, which PostgreSQL
// refuses within one transaction): River runs each of its versions in a transaction of its own on
// the pool, while this step's connection holds folio's migration lock, so other instances still
// wait; River records what it applied (river_migration), so a rerun after a failure goes on.
// River's own migrations are versioned; a River upgrade that adds one is a new step here.
func migrateRiver(tx *gorm.DB) error {
	ctx := context.Background()
	if db.IsPostgres(tx) {
		pool, ok := tx.Config.ConnPool.(*sql.DB)
		if !ok {
			return fmt.Errorf("webhooks: no connection pool for River's migrations")
		}
		m, err := rivermigrate.New(riverdatabasesql.New(pool), nil)
		if err != nil {
			return err
		}
		_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		return err
	}
	sqlTx, ok := tx.Statement.ConnPool.(*sql.Tx)
	if !ok {
		return fmt.Errorf("webhooks: River's migrations must run in the migration's transaction")
	}
	m, err := rivermigrate.New(riversqlite.New(nil), nil)
	if err != nil {
		return err
	}
	// SQLite can take River's versions in one transaction (the deprecation is about PostgreSQL's
	// enum rule), and it must: this step's transaction holds the database's write lock, so River
	// migrating on other connections would wait for it.
	//lint:ignore SA1019 see above
	_, err = m.MigrateTx(ctx, sqlTx, rivermigrate.DirectionUp, nil)
	return err
}
