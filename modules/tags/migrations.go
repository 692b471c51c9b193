package tags

import (
	"gorm.io/gorm"

	"folio/platform/db"
)

func migrations() db.Migrations {
	return db.Migrations{{
		ID:       "202611221100_tags_init",
		Migrate:  func(tx *gorm.DB) error { return tx.Migrator().CreateTable(&Tag{}, &ItemTag{}) },
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropTable(&ItemTag{}, &Tag{}) },
	}, {
		// Names longer than 200 characters were a PostgreSQL 500 (varchar(200)), and long ones
		// cannot be in a B-tree index at all: the identity index now holds a hash of the
		// lower-cased name, first. Tables created by the first step from the current model
		// already have the new shape; older ones are widened, their keys rehashed and the index
		// rebuilt in the new column order.
		ID: "202611221200_tags_hashed_identity",
		Migrate: func(tx *gorm.DB) error {
			if db.IsPostgres(tx) {
				if err := tx.Exec("ALTER TABLE tags ALTER COLUMN name TYPE text, ALTER COLUMN name_key TYPE text").Error; err != nil {
					return err
				}
			}
			var rows []Tag
			if err := tx.Select("id", "name_key").Find(&rows).Error; err != nil {
				return err
			}
			for _, r := range rows {
				if err := tx.Model(&Tag{}).Where("id = ?", r.ID).UpdateColumn("name_key", hashKey(r.NameKey)).Error; err != nil {
					return err
				}
			}
			if db.IsPostgres(tx) {
				if err := tx.Exec("ALTER TABLE tags ALTER COLUMN name_key TYPE varchar(64)").Error; err != nil {
					return err
				}
			}
			if err := tx.Exec("DROP INDEX IF EXISTS idx_tags_identity").Error; err != nil {
				return err
			}
			return tx.Exec("CREATE UNIQUE INDEX idx_tags_identity ON tags (name_key, space_id, kind)").Error
		},
	}, {
		// A tag's items newest first (see ItemTag): the item's created_at beside each link, and
		// the index over it, which replaces the single-column index on tag_id. The notes and tasks
		// modules fill the column of their existing links (items.StampTagTimes), in their own
		// later migrations.
		ID: "202611261100_item_tags_time",
		Migrate: func(tx *gorm.DB) error {
			if !tx.Migrator().HasColumn(&ItemTag{}, "ItemCreatedAt") {
				if err := tx.Migrator().AddColumn(&ItemTag{}, "ItemCreatedAt"); err != nil {
					return err
				}
			}
			if !tx.Migrator().HasIndex(&ItemTag{}, "idx_item_tags_tag_time") {
				if err := tx.Migrator().CreateIndex(&ItemTag{}, "idx_item_tags_tag_time"); err != nil {
					return err
				}
			}
			return tx.Exec("DROP INDEX IF EXISTS idx_item_tags_tag_id").Error
		},
	}}
}
