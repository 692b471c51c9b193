package notebooks

import (
	"context"
	"errors"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"folio/modules/items"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/config"
	"folio/platform/db"
	"folio/platform/ids"
)

// Memberships is what the notebooks module needs to know about workspaces (the workspaces module
// provides it).
type Memberships interface {
	RoleOf(ctx context.Context, userID, workspaceID string) (string, error)
	// MemberWorkspaceIDs is a subquery of the ids of the user's workspaces (constant text).
	MemberWorkspaceIDs(userID string) clause.Expr
	// WorkspaceNames maps the id of every workspace the user belongs to to its name.
	WorkspaceNames(ctx context.Context, userID string) (map[string]string, error)
}

// Access answers, for every module that stores things in notebooks, "may this principal use this
// notebook?" and "which notebooks may it see?". Scope against method (read or write) is already
// checked by the API guard; inside its reach a principal may read and write alike (OWNER and
// MEMBER both edit a workspace's content).
type Access struct {
	store       *Store
	memberships Memberships
	itemLimit   int

	// visibleTexts is VisibleIDs' text for a user, per text of their workspaces' subquery.
	visibleTexts db.Texts
	// readableTexts is Readable's text, per text of VisibleIDs.
	readableTexts db.Texts
}

// NewAccess returns the access service.
func NewAccess(store *Store, memberships Memberships, cfg config.Config) *Access {
	return &Access{store: store, memberships: memberships, itemLimit: cfg.NotebookItemLimit}
}

// Notebook returns the notebook named by id if the principal may use it. The codes follow
// CONTRACT.md section 6:
//   - a malformed or unknown id, or a notebook the user cannot reach: 404 NOTEBOOK_NOT_FOUND;
//   - a notebook-scoped key naming another notebook: 403 KEY_NOTEBOOK_MISMATCH (decided before any
//     lookup, so it says nothing about whether the other notebook exists);
//   - a workspace-scoped key naming a notebook its user can reach but outside the key's
//     workspace: 403 KEY_WORKSPACE_MISMATCH.
//
// tx may be nil; pass the caller's transaction to read inside it.
func (a *Access) Notebook(ctx context.Context, tx *gorm.DB, p *auth.Principal, id string) (Notebook, error) {
	if !ids.Valid(id) {
		return Notebook{}, ErrNotFound
	}
	if p.NotebookID != nil && *p.NotebookID != id {
		return Notebook{}, apierr.ErrKeyNotebook
	}
	row, err := a.store.withRole(ctx, tx, id, p.UserID)
	if err != nil {
		return Notebook{}, err
	}
	if !reachable(row, p.UserID) {
		return Notebook{}, ErrNotFound
	}
	if p.WorkspaceID != nil && (row.WorkspaceID == nil || *row.WorkspaceID != *p.WorkspaceID) {
		return Notebook{}, apierr.ErrKeyWorkspace
	}
	return row.Notebook, nil
}

func reachable(row accessRow, userID string) bool {
	if row.WorkspaceID == nil {
		return row.OwnerID == userID
	}
	return row.Role != nil
}

// Visible narrows a query on the notebooks table to the notebooks the principal may see.
func (a *Access) Visible(p *auth.Principal) func(*gorm.DB) *gorm.DB {
	return func(q *gorm.DB) *gorm.DB {
		switch {
		case p.NotebookID != nil:
			return q.Where("notebooks.id = ?", *p.NotebookID)
		case p.WorkspaceID != nil:
			return q.Where("notebooks.workspace_id = ?", *p.WorkspaceID)
		default:
			return q.Where("(notebooks.workspace_id IS NULL AND notebooks.owner_id = ?) OR notebooks.workspace_id IN (?)",
				p.UserID, a.memberships.MemberWorkspaceIDs(p.UserID))
		}
	}
}

// VisibleIDs is a subquery of the ids of the notebooks the principal may see, for content modules'
// list filters: `WHERE notebook_id IN (?)`, or a derived table `(?) AS nb` with the column id.
//
// For an unrestricted principal it is two index lookups joined by UNION ALL (personal notebooks
// by owner_id; workspace notebooks by workspace_id), not Visible's single OR: PostgreSQL cannot
// serve "(personal AND owner) OR workspace_id IN (...)" from an index, so it scans the notebooks
// table, and it misjudges the result (thousands of rows where there are ten), which in turn makes
// it scan and sort the whole notes table for a list instead of reading each notebook's newest
// notes from the list index. The two arms are disjoint (workspace_id is NULL in one and not in
// the other), so nothing is counted twice.
//
// It is constant text with its arguments (one text per kind of principal), flattened: a read
// embeds it without building a subquery (GORM renders a clause.Expr by copying it), and a native
// read (db.WithNative) sends it as it is.
func (a *Access) VisibleIDs(p *auth.Principal) clause.Expr {
	switch {
	case p.NotebookID != nil:
		return clause.Expr{SQL: "SELECT notebooks.id FROM notebooks WHERE notebooks.id = ?", Vars: []any{*p.NotebookID}}
	case p.WorkspaceID != nil:
		return clause.Expr{SQL: "SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id = ?", Vars: []any{*p.WorkspaceID}}
	}
	m := a.memberships.MemberWorkspaceIDs(p.UserID)
	return clause.Expr{
		SQL: a.visibleTexts.Of(m.SQL, func(member string) string {
			return "SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IS NULL AND notebooks.owner_id = ?" +
				" UNION ALL SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IN (" + member + ")"
		}),
		Vars: append([]any{p.UserID}, m.Vars...),
	}
}

// VisibleSpaces implements items.Notebooks: the spaces of every notebook the user may see (their
// own personal space and their workspaces'), whatever the key's restriction, which VisibleIDs
// applies to the notebooks themselves.
func (a *Access) VisibleSpaces(p *auth.Principal) clause.Expr {
	m := a.memberships.MemberWorkspaceIDs(p.UserID)
	return clause.Expr{
		SQL:  "SELECT CAST(? AS VARCHAR(24)) UNION ALL " + m.SQL,
		Vars: append([]any{p.UserID}, m.Vars...),
	}
}

// CheckRestriction implements auth.RestrictionChecker: a restricted key works only while its
// workspace or notebook is within its user's reach. A workspace the user was removed from gives
// 403 NOT_WORKSPACE_MEMBER on every call.
func (a *Access) CheckRestriction(ctx context.Context, userID string, workspaceID, notebookID *string) error {
	if workspaceID != nil {
		_, err := a.memberships.RoleOf(ctx, userID, *workspaceID)
		var ae *apierr.Error
		if err != nil && errors.As(err, &ae) && ae.Status == 404 {
			return apierr.ErrNotMember
		}
		return err
	}
	if notebookID != nil {
		if !ids.Valid(*notebookID) {
			return ErrNotFound
		}
		row, err := a.store.withRole(ctx, nil, *notebookID, userID)
		if err != nil {
			return err
		}
		if !reachable(row, userID) {
			if row.WorkspaceID != nil {
				return apierr.ErrNotMember
			}
			return ErrNotFound
		}
	}
	return nil
}

// Reserve takes n item slots in a notebook inside the caller's transaction tx: one conditional
// UPDATE, so concurrent creates and moves cannot pass the limit together. A full notebook gives
// 403 ITEM_LIMIT_REACHED.
func (a *Access) Reserve(ctx context.Context, tx *gorm.DB, notebookID string, n int) error {
	// Constant texts, not GORM's Update: one of them runs in every create, move and delete.
	affected, err := db.Exec(ctx, tx, `UPDATE "notebooks" SET "item_count"=item_count + ? WHERE id = ? AND item_count + ? <= ?`,
		n, notebookID, n, a.itemLimit)
	if err != nil {
		return err
	}
	if affected == 0 {
		return apierr.ErrItemLimit.WithMessage("the notebook holds its maximum of %d notes and tasks", a.itemLimit)
	}
	return nil
}

// Release gives back n item slots (an item was deleted or moved out).
func (a *Access) Release(ctx context.Context, tx *gorm.DB, notebookID string, n int) error {
	_, err := db.Exec(ctx, tx, `UPDATE "notebooks" SET "item_count"=item_count - ? WHERE id = ?`, n, notebookID)
	return err
}

// ItemNotebook implements items.Notebooks: Notebook, reduced to what the shared flows of notes and
// tasks need (modules/items cannot know this module's types).
func (a *Access) ItemNotebook(ctx context.Context, tx *gorm.DB, p *auth.Principal, id string) (items.Notebook, error) {
	nb, err := a.Notebook(ctx, tx, p, id)
	if err != nil {
		return items.Notebook{}, err
	}
	return items.Notebook{ID: nb.ID, WorkspaceID: nb.WorkspaceID, TagSpace: SpaceOf(nb)}, nil
}

// NotebookOf implements items.Notebooks: the notebook id whoever asks (a reminder's event, which
// no principal writes), reduced as ItemNotebook reduces it.
func (a *Access) NotebookOf(ctx context.Context, tx *gorm.DB, id string) (items.Notebook, error) {
	if tx == nil {
		tx = a.store.db
	}
	var nb Notebook
	if err := tx.WithContext(ctx).Where("id = ?", id).Take(&nb).Error; err != nil {
		return items.Notebook{}, err
	}
	return items.Notebook{ID: nb.ID, WorkspaceID: nb.WorkspaceID, TagSpace: SpaceOf(nb)}, nil
}

// SpaceOf is the tag space of a notebook: its workspace, or its owner for a personal notebook.
func SpaceOf(n Notebook) string {
	if n.WorkspaceID != nil {
		return *n.WorkspaceID
	}
	return n.OwnerID
}

// ResourceType implements auth.Reader: notebooks.
func (a *Access) ResourceType() string { return "notebook" }

// Readable implements auth.Reader: the notebooks among ids that the principal may see now (one
// constant statement per kind of principal).
func (a *Access) Readable(ctx context.Context, _ *auth.Rule, p *auth.Principal, nbIDs []string) (map[string]bool, error) {
	visible := a.VisibleIDs(p)
	gdb := a.store.db
	text := a.readableTexts.Of(visible.SQL, func(part string) string {
		return "SELECT n.id FROM notebooks n WHERE " + db.InIDs(gdb, "n.id") + " AND n.id IN (" + part + ")"
	})
	out := make(map[string]bool, len(nbIDs))
	err := db.Read(ctx, gdb, text, append([]any{db.IDsArg(gdb, nbIDs)}, visible.Vars...), func(row db.RowScanner) error {
		var id string
		if err := row.Scan(&id); err != nil {
			return err
		}
		out[id] = true
		return nil
	})
	return out, err
}
