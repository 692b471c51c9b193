package search

import (
	"gorm.io/gorm"

	"folio/platform/db"
)

// Migrations create the index. Existing items are indexed by the content modules' own migrations
// (they know how to read their text).
func Migrations() db.Migrations {
	return db.Migrations{{
		ID: "202611241101_search_index",
		Migrate: func(tx *gorm.DB) error {
			if db.IsPostgres(tx) {
				return tx.Exec(`CREATE TABLE search_index (item_kind varchar(10) NOT NULL, item_id varchar(24) NOT NULL, body text NOT NULL,
					PRIMARY KEY (item_kind, item_id));
				CREATE INDEX idx_search_index_body ON search_index USING gin (to_tsvector('simple', body))`).Error
			}
			for _, stmt := range []string{
				`CREATE TABLE search_index (rowid INTEGER PRIMARY KEY, item_kind TEXT NOT NULL, item_id TEXT NOT NULL, body TEXT NOT NULL,
					UNIQUE (item_kind, item_id))`,
				// An external-content FTS5 table over search_index, kept in step by triggers (the
				// documented pattern): the text is stored once. unicode61 tokenises on letters and
				// digits, like Parse; the text is already normalised.
				`CREATE VIRTUAL TABLE search_fts USING fts5(body, content='search_index', content_rowid='rowid', tokenize='unicode61')`,
				`CREATE TRIGGER search_index_ai AFTER INSERT ON search_index BEGIN
					INSERT INTO search_fts(rowid, body) VALUES (new.rowid, new.body); END`,
				`CREATE TRIGGER search_index_ad AFTER DELETE ON search_index BEGIN
					INSERT INTO search_fts(search_fts, rowid, body) VALUES ('delete', old.rowid, old.body); END`,
				`CREATE TRIGGER search_index_au AFTER UPDATE ON search_index BEGIN
					INSERT INTO search_fts(search_fts, rowid, body) VALUES ('delete', old.rowid, old.body);
					INSERT INTO search_fts(rowid, body) VALUES (new.rowid, new.body); END`,
			} {
				if err := tx.Exec(stmt).Error; err != nil {
					return err
				}
			}
			return nil
		},
		Rollback: func(tx *gorm.DB) error {
			if !db.IsPostgres(tx) {
				if err := tx.Exec("DROP TABLE IF EXISTS search_fts").Error; err != nil {
					return err
				}
			}
			return tx.Exec("DROP TABLE IF EXISTS search_index").Error
		},
	}}
}
