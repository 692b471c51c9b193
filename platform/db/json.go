package db

import (
	"database/sql/driver"
	"fmt"

	"github.com/go-gormigrate/gormigrate/v2"
	"gorm.io/gorm"
	"gorm.io/gorm/schema"
)

// JSON is a JSON document column: JSONB on PostgreSQL (json after StoreDocumentAsText), TEXT on
// SQLite.
type JSON []byte

// GormDBDataType picks the column type per database.
func (JSON) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	if db.Dialector.Name() == "postgres" {
		return "JSONB"
	}
	return "TEXT"
}

// Value implements driver.Valuer.
func (j JSON) Value() (driver.Value, error) {
	if j == nil {
		return nil, nil
	}
	return string(j), nil
}

// Scan implements sql.Scanner.
func (j *JSON) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*j = nil
	case []byte:
		*j = append((*j)[:0], v...)
	case string:
		*j = JSON(v)
	default:
		return fmt.Errorf("db.JSON: cannot scan %T", src)
	}
	return nil
}

// StoreDocumentAsText is a migration step that turns a JSON column on PostgreSQL from jsonb into
// json (SQLite keeps TEXT). It is for documents that are written whole and read whole on every
// GET and list and never queried inside: jsonb pays for its binary form on every read (each row's
// tree is serialised back to text, about a third of the database's time for a page of 20 notes),
// while json returns the stored text as it is. The rewrite of the table is a one-off. table and
// column are written into the SQL as they are: pass constants, never input. The column's Go type
// stays JSON, whose GormDBDataType still says JSONB: a later AutoMigrate or AlterColumn on it
// would turn it back, so such a step must keep json.
func StoreDocumentAsText(id, table, column string) *gormigrate.Migration {
	alter := func(tx *gorm.DB, typ string) error {
		if !IsPostgres(tx) {
			return nil
		}
		return tx.Exec(fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s TYPE %s USING %s::%s", table, column, typ, column, typ)).Error
	}
	return &gormigrate.Migration{
		ID:       id,
		Migrate:  func(tx *gorm.DB) error { return alter(tx, "json") },
		Rollback: func(tx *gorm.DB) error { return alter(tx, "jsonb") },
	}
}

// AddVersionColumn is a migration step that adds the version counter an ETag is made of
// (`version BIGINT NOT NULL DEFAULT 1`: every existing row starts at version 1) to table. A
// database created after the column joined the model already has it from the table's first step,
// which creates the table from the model; the step then has nothing to do. table is written into
// the SQL as it is: pass a constant.
func AddVersionColumn(id, table string) *gormigrate.Migration {
	return &gormigrate.Migration{
		ID: id,
		Migrate: func(tx *gorm.DB) error {
			if tx.Migrator().HasColumn(table, "version") {
				return nil
			}
			return tx.Exec(fmt.Sprintf("ALTER TABLE %s ADD COLUMN version BIGINT NOT NULL DEFAULT 1", table)).Error
		},
		Rollback: func(tx *gorm.DB) error { return tx.Migrator().DropColumn(table, "version") },
	}
}

// AddColumns is a migration step adding the model's fields as columns, each unless the table
// already has it (a database created after the fields joined the model has them from the table's
// first step, which creates the table from the model).
func AddColumns(id string, model any, fields ...string) *gormigrate.Migration {
	return &gormigrate.Migration{
		ID: id,
		Migrate: func(tx *gorm.DB) error {
			for _, f := range fields {
				if !tx.Migrator().HasColumn(model, f) {
					if err := tx.Migrator().AddColumn(model, f); err != nil {
						return err
					}
				}
			}
			return nil
		},
		Rollback: func(tx *gorm.DB) error {
			for _, f := range fields {
				if err := tx.Migrator().DropColumn(model, f); err != nil {
					return err
				}
			}
			return nil
		},
	}
}
