package workspaces

import (
	"context"

	"gorm.io/gorm/clause"

	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/ids"
)

// Members answers who belongs to which workspace, for other modules' access decisions
// (notebooks.Memberships) and the access rule (a workspace is readable by its members). It only
// reads, and depends on nothing but the store: the access rule, which webhook dispatch asks, must
// not depend on the service that emits events (workspaces.Service), or the graph would be a cycle.
type Members struct{ store *Store }

// NewMembers returns the membership reader.
func NewMembers(store *Store) *Members { return &Members{store: store} }

// RoleOf returns the user's role in the workspace: ErrNotFound for a malformed or unknown id,
// 403 NOT_WORKSPACE_MEMBER when the user is not a member.
func (m *Members) RoleOf(ctx context.Context, userID, workspaceID string) (string, error) {
	if !ids.Valid(workspaceID) {
		return "", ErrNotFound
	}
	role, err := m.store.roleOf(ctx, nil, workspaceID, userID, false)
	if err != nil {
		return "", err
	}
	if role == "" {
		return "", apierr.ErrNotMember
	}
	return role, nil
}

// MemberWorkspaceIDs is a subquery of the ids of every workspace userID belongs to, for other
// modules' access filters.
func (m *Members) MemberWorkspaceIDs(userID string) clause.Expr {
	return m.store.memberWorkspaceIDs(userID)
}

// WorkspaceNames maps the id of every workspace the user belongs to to its name.
func (m *Members) WorkspaceNames(ctx context.Context, userID string) (map[string]string, error) {
	return m.store.names(ctx, userID)
}

// ResourceType implements auth.Reader.
func (m *Members) ResourceType() string { return "workspace" }

// Readable implements auth.Reader: a workspace is readable by its members, through a session or
// an unrestricted key, or a key restricted to that workspace (GET /workspaces/:id's rule; a
// notebook-scoped key sees no workspace).
func (m *Members) Readable(ctx context.Context, _ *auth.Rule, p *auth.Principal, wsIDs []string) (map[string]bool, error) {
	out := map[string]bool{}
	if p.NotebookID != nil {
		return out, nil
	}
	member, err := m.store.memberOf(ctx, p.UserID, wsIDs)
	if err != nil {
		return nil, err
	}
	for _, id := range member {
		if p.WorkspaceID == nil || *p.WorkspaceID == id {
			out[id] = true
		}
	}
	return out, nil
}
