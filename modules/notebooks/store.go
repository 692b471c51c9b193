package notebooks

import (
	"context"

	"gorm.io/gorm"

	"folio/platform/db"
	"folio/platform/paginate"
)

// Store holds every query of the notebooks module.
type Store struct{ db *gorm.DB }

// NewStore returns the notebooks store.
func NewStore(gdb *gorm.DB) *Store { return &Store{db: gdb} }

var keyset = paginate.Keyset{Table: "notebooks"}

// withRoleSQL loads a notebook and the user's role in its workspace in one query (a read-only
// join on the workspaces module's memberships table). A constant text scanned by hand (scanAccess)
// rather than GORM's builder and reflecting scanner: it runs on every create and every list or
// write naming a notebook. Its columns are scanAccess's, in that order.
const withRoleSQL = `SELECT notebooks.id, notebooks.name, notebooks.color, notebooks.workspace_id, notebooks.owner_id, ` +
	`notebooks.item_count, notebooks.created_at, notebooks.updated_at, notebooks.version, m.role ` +
	`FROM notebooks LEFT JOIN memberships m ON m.workspace_id = notebooks.workspace_id AND m.user_id = ? ` +
	`WHERE notebooks.id = ? LIMIT 1`

func scanAccess(r db.RowScanner) (accessRow, error) {
	var a accessRow
	n := &a.Notebook
	err := r.Scan(&n.ID, &n.Name, &n.Color, &n.WorkspaceID, &n.OwnerID, &n.ItemCount, &n.CreatedAt, &n.UpdatedAt, &n.Version, &a.Role)
	return a, err
}

// withRole is the notebook id and userID's role in its workspace (withRoleSQL), in tx (nil:
// outside a transaction). ErrNotFound when there is no such notebook.
func (s *Store) withRole(ctx context.Context, tx *gorm.DB, id, userID string) (accessRow, error) {
	if tx == nil {
		tx = s.db
	}
	var (
		row   accessRow
		found bool
	)
	err := db.Read(ctx, tx, withRoleSQL, []any{userID, id}, func(r db.RowScanner) (err error) {
		row, err = scanAccess(r)
		found = true
		return err
	})
	if err == nil && !found {
		err = ErrNotFound
	}
	return row, err
}

// list returns a page of the notebooks matched by visible.
func (s *Store) list(ctx context.Context, visible func(*gorm.DB) *gorm.DB, p paginate.Params) ([]Notebook, *string, error) {
	scope := func() *gorm.DB { return visible(s.db.WithContext(ctx).Table("notebooks")) }
	return paginate.Find(scope(), scope(), keyset, p, func(n Notebook) string { return n.ID })
}

// all returns every notebook matched by visible (the settings UI's restriction choices).
func (s *Store) all(ctx context.Context, visible func(*gorm.DB) *gorm.DB) ([]Notebook, error) {
	var rows []Notebook
	err := visible(s.db.WithContext(ctx).Table("notebooks")).Find(&rows).Error
	return rows, err
}

func (s *Store) create(ctx context.Context, tx *gorm.DB, n *Notebook) error {
	return tx.WithContext(ctx).Create(n).Error
}
