package workspaces

import (
	"context"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"folio/platform/db"
	"folio/platform/paginate"
)

// Store holds every query of the workspaces module.
type Store struct{ db *gorm.DB }

// NewStore returns the workspaces store.
func NewStore(gdb *gorm.DB) *Store { return &Store{db: gdb} }

var keyset = paginate.Keyset{Table: "workspaces"}

// list returns a page of the workspaces userID belongs to, with the user's role; onlyID narrows it
// to one workspace (a workspace-scoped key).
func (s *Store) list(ctx context.Context, userID string, onlyID *string, p paginate.Params) ([]workspaceRow, *string, error) {
	scope := func() *gorm.DB {
		q := s.db.WithContext(ctx).Table("workspaces").
			Joins("JOIN memberships m ON m.workspace_id = workspaces.id AND m.user_id = ?", userID)
		if onlyID != nil {
			q = q.Where("workspaces.id = ?", *onlyID)
		}
		return q
	}
	list := scope().Select("workspaces.*, m.role AS role")
	return paginate.Find(list, scope(), keyset, p, func(r workspaceRow) string { return r.ID })
}

// members returns the members of the given workspaces joined with their names and emails,
// owners first, then by name. Names compare case-insensitively (LOWER, then the exact name and the
// id to break ties), so that the order is what a reader expects and the same on SQLite (binary
// collation) and PostgreSQL (whatever the database's locale).
func (s *Store) members(ctx context.Context, tx *gorm.DB, workspaceIDs []string) ([]memberRow, error) {
	var rows []memberRow
	if len(workspaceIDs) == 0 {
		return rows, nil
	}
	if tx == nil {
		tx = s.db
	}
	err := tx.WithContext(ctx).Table("memberships m").
		Select("m.workspace_id, m.user_id, u.name, u.email, m.role").
		Joins("JOIN users u ON u.id = m.user_id").
		Where("m.workspace_id IN ?", workspaceIDs).
		Order("CASE m.role WHEN 'OWNER' THEN 0 ELSE 1 END, LOWER(u.name), u.name, u.id").
		Scan(&rows).Error
	return rows, err
}

// roleOf looks up a workspace and the user's role in it in one query. It returns ErrNotFound when
// the workspace does not exist and role "" when the user is not a member. With lock, the
// workspace row is locked until the transaction ends (membership changes serialise on it).
func (s *Store) roleOf(ctx context.Context, tx *gorm.DB, workspaceID, userID string, lock bool) (string, error) {
	if tx == nil {
		tx = s.db
	}
	tx = tx.WithContext(ctx)
	if lock {
		if _, err := db.Take[Workspace](tx.Where("id = ?", workspaceID), true, ErrNotFound); err != nil {
			return "", err
		}
		var m Membership
		err := tx.Where("workspace_id = ? AND user_id = ?", workspaceID, userID).Take(&m).Error
		if db.IsNotFound(err) {
			return "", nil
		}
		return m.Role, err
	}
	var rows []struct {
		ID   string
		Role *string
	}
	err := tx.Table("workspaces w").Select("w.id, m.role").
		Joins("LEFT JOIN memberships m ON m.workspace_id = w.id AND m.user_id = ?", userID).
		Where("w.id = ?", workspaceID).Limit(1).Scan(&rows).Error
	if err != nil {
		return "", err
	}
	if len(rows) == 0 {
		return "", ErrNotFound
	}
	if rows[0].Role == nil {
		return "", nil
	}
	return *rows[0].Role, nil
}

func (s *Store) create(ctx context.Context, tx *gorm.DB, w *Workspace, owner *Membership) error {
	if err := tx.WithContext(ctx).Create(w).Error; err != nil {
		return err
	}
	return tx.WithContext(ctx).Create(owner).Error
}

func (s *Store) addMember(ctx context.Context, tx *gorm.DB, m *Membership) error {
	return tx.WithContext(ctx).Create(m).Error
}

func (s *Store) removeMember(ctx context.Context, tx *gorm.DB, workspaceID, userID string) error {
	return tx.WithContext(ctx).Where("workspace_id = ? AND user_id = ?", workspaceID, userID).Delete(&Membership{}).Error
}

func (s *Store) countOwners(ctx context.Context, tx *gorm.DB, workspaceID string) (int64, error) {
	var n int64
	err := tx.WithContext(ctx).Model(&Membership{}).Where("workspace_id = ? AND role = ?", workspaceID, RoleOwner).Count(&n).Error
	return n, err
}

// memberWorkspaceIDs is a subquery of the ids of the workspaces userID belongs to: constant
// text, which reads embed without building it (see items.Notebooks.VisibleIDs).
func (s *Store) memberWorkspaceIDs(userID string) clause.Expr {
	return clause.Expr{SQL: "SELECT memberships.workspace_id FROM memberships WHERE memberships.user_id = ?", Vars: []any{userID}}
}

// names maps the id of every workspace userID belongs to to its name.
func (s *Store) names(ctx context.Context, userID string) (map[string]string, error) {
	var rows []Workspace
	if err := s.db.WithContext(ctx).Select("id", "name").Where("id IN (?)", s.memberWorkspaceIDs(userID)).Find(&rows).Error; err != nil {
		return nil, err
	}
	out := make(map[string]string, len(rows))
	for _, w := range rows {
		out[w.ID] = w.Name
	}
	return out, nil
}

// memberOf returns which of the workspaces userID belongs to (one constant statement).
func (s *Store) memberOf(ctx context.Context, userID string, workspaceIDs []string) ([]string, error) {
	var out []string
	text := "SELECT workspace_id FROM memberships WHERE user_id = ? AND " + db.InIDs(s.db, "workspace_id")
	err := db.Read(ctx, s.db, text, []any{userID, db.IDsArg(s.db, workspaceIDs)}, func(row db.RowScanner) error {
		var id string
		if err := row.Scan(&id); err != nil {
			return err
		}
		out = append(out, id)
		return nil
	})
	return out, err
}
