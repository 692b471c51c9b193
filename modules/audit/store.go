package audit

import (
	"context"
	"strconv"

	"gorm.io/gorm"

	"folio/platform/db"
	"folio/platform/paginate"
)

// Store holds every query of the audit module.
type Store struct{ db *gorm.DB }

// NewStore returns the audit store.
func NewStore(gdb *gorm.DB) *Store { return &Store{db: gdb} }

var keyset = paginate.Keyset{Table: "audit_entries", ByIDOnly: true}

// insertEntrySQL writes one entry: a constant text rather than GORM's Create, which reflects over
// the row on every write (every write of the API records one). Nothing reads the new id back.
const insertEntrySQL = `INSERT INTO "audit_entries" ("action","resource_type","resource_id","actor_user_id",` +
	`"api_key_id","api_key_name","api_key_prefix","workspace_id","notebook_id","created_at") VALUES (?,?,?,?,?,?,?,?,?,?)`

func (s *Store) insert(ctx context.Context, tx *gorm.DB, e *Entry) error {
	_, err := db.Exec(ctx, tx, insertEntrySQL, e.Action, e.ResourceType, e.ResourceID, e.ActorUserID,
		e.APIKeyID, e.APIKeyName, e.APIKeyPrefix, e.WorkspaceID, e.NotebookID, e.CreatedAt)
	return err
}

func (s *Store) list(ctx context.Context, visible, filters func(*gorm.DB) *gorm.DB, p paginate.Params) ([]Entry, *string, error) {
	scope := visible(s.db.WithContext(ctx).Table("audit_entries"))
	list := filters(visible(s.db.WithContext(ctx).Table("audit_entries")))
	return paginate.Find(list, scope, keyset, p, func(e Entry) string { return strconv.FormatInt(e.ID, 10) })
}
