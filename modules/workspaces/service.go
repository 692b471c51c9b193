package workspaces

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"go.uber.org/fx"
	"gorm.io/gorm"

	"folio/modules/journal"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/db"
	"folio/platform/ids"
	"folio/platform/paginate"
)

// UserDirectory finds accounts by email (the accounts module provides it).
type UserDirectory interface {
	UserIDByEmail(ctx context.Context, email string) (string, error)
}

// Service holds the workspace rules: who may see, create, invite and remove.
type Service struct {
	db        *gorm.DB
	store     *Store
	clock     clock.Clock
	users     UserDirectory
	authCache *auth.Cache
	events    journal.Emitter
	// Members answers RoleOf, MemberWorkspaceIDs and WorkspaceNames for the service too.
	*Members
}

// ServiceParams are the dependencies of NewService.
type ServiceParams struct {
	fx.In
	DB        *gorm.DB
	Store     *Store
	Clock     clock.Clock
	Users     UserDirectory
	AuthCache *auth.Cache
	Events    journal.Emitter
	Members   *Members
}

// NewService returns the workspaces service.
func NewService(p ServiceParams) *Service {
	return &Service{db: p.DB, store: p.Store, clock: p.Clock, users: p.Users, authCache: p.AuthCache, events: p.Events, Members: p.Members}
}

// View is a workspace as the caller sees it.
type View struct {
	Workspace Workspace
	Role      string
	Members   []memberRow
}

// List returns the page of workspaces the principal can access: all of its user's for a session
// or an unrestricted key, the key's own for a workspace-scoped key, none for a notebook-scoped key.
func (s *Service) List(ctx context.Context, p *auth.Principal, page paginate.Params) ([]View, *string, error) {
	if p.NotebookID != nil {
		if page.Cursor != "" {
			return nil, nil, apierr.Validation("query parameter \"cursor\" names no item of this list")
		}
		return []View{}, nil, nil
	}
	rows, next, err := s.store.list(ctx, p.UserID, p.WorkspaceID, page)
	if err != nil {
		return nil, nil, err
	}
	idsOnPage := make([]string, len(rows))
	for i, r := range rows {
		idsOnPage[i] = r.ID
	}
	members, err := s.store.members(ctx, nil, idsOnPage)
	if err != nil {
		return nil, nil, err
	}
	byWorkspace := map[string][]memberRow{}
	for _, m := range members {
		byWorkspace[m.WorkspaceID] = append(byWorkspace[m.WorkspaceID], m)
	}
	views := make([]View, len(rows))
	for i, r := range rows {
		views[i] = View{Workspace: r.Workspace, Role: r.Role, Members: byWorkspace[r.ID]}
	}
	return views, next, nil
}

// Create makes a workspace whose only member is its creator, as OWNER.
func (s *Service) Create(ctx context.Context, p *auth.Principal, name string) (View, error) {
	if !p.Unrestricted() {
		return View{}, ErrCreateByKey
	}
	if strings.TrimSpace(name) == "" || utf8.RuneCountInString(name) > 80 {
		return View{}, ErrName
	}
	now := s.clock.Now()
	w := Workspace{ID: ids.New(), Name: name, CreatedByID: p.UserID, CreatedAt: now, UpdatedAt: now}
	owner := Membership{WorkspaceID: w.ID, UserID: p.UserID, Role: RoleOwner, CreatedAt: now}
	var members []memberRow
	err := db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		if err := s.store.create(ctx, tx, &w, &owner); err != nil {
			return err
		}
		var err error
		members, err = s.store.members(ctx, tx, []string{w.ID})
		return err
	})
	if err != nil {
		return View{}, err
	}
	return View{Workspace: w, Role: RoleOwner, Members: members}, nil
}

// checkKeyReach applies what a restricted key may name: a notebook-scoped key manages no workspace,
// a workspace-scoped key only its own.
func checkKeyReach(p *auth.Principal, workspaceID string) error {
	if p.NotebookID != nil {
		return ErrKeyCannotDo
	}
	if p.WorkspaceID != nil && *p.WorkspaceID != workspaceID {
		return apierr.ErrKeyWorkspace
	}
	return nil
}

// Invite adds the account with this email to the workspace as MEMBER. created is false when it
// was a member already (the existing membership is returned).
func (s *Service) Invite(ctx context.Context, p *auth.Principal, workspaceID, email string) (m Membership, created bool, err error) {
	if err := checkKeyReach(p, workspaceID); err != nil {
		return Membership{}, false, err
	}
	if !ids.Valid(workspaceID) {
		return Membership{}, false, ErrNotFound
	}
	// The invitee is looked up first, outside the transaction: accounts are never deleted, and a
	// query inside the transaction must go through tx.
	userID, lookupErr := s.users.UserIDByEmail(ctx, email)
	var ae *apierr.Error
	if lookupErr != nil && !(errors.As(lookupErr, &ae) && ae.Status == 404) {
		return Membership{}, false, lookupErr
	}
	err = db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		role, err := s.store.roleOf(ctx, tx, workspaceID, p.UserID, true)
		if err != nil {
			return err
		}
		switch role {
		case "":
			return apierr.ErrNotMember
		case RoleMember:
			return ErrOwnerOnly
		}
		if lookupErr != nil {
			return ErrNoAccount
		}
		existing, err := s.store.roleOf(ctx, tx, workspaceID, userID, false)
		if err != nil {
			return err
		}
		if existing != "" {
			m = Membership{WorkspaceID: workspaceID, UserID: userID, Role: existing}
			return nil
		}
		m = Membership{WorkspaceID: workspaceID, UserID: userID, Role: RoleMember, CreatedAt: s.clock.Now()}
		created = true
		if err := s.store.addMember(ctx, tx, &m); err != nil {
			return err
		}
		// Member changes have no audit entry (CONTRACT.md section 7): they emit their event here.
		return s.events.Emit(ctx, tx, p, memberEvent(EventMemberAdded, workspaceID, membershipResponse{WorkspaceID: workspaceID, UserID: userID, Role: m.Role}))
	})
	if err == nil && created {
		// A key of the new member may be restricted to this workspace and cached with the verdict
		// NOT_WORKSPACE_MEMBER (it was removed before): forget every cached verdict, once the
		// membership is committed.
		db.AfterCommit(ctx, s.authCache.Purge)
	}
	return m, created, err
}

// Remove takes a user out of a workspace. An OWNER may remove anyone, a MEMBER only themselves,
// and the last OWNER cannot leave. The workspace row is locked, so two owners removing each other
// at once cannot leave the workspace without one.
func (s *Service) Remove(ctx context.Context, p *auth.Principal, workspaceID, userID string) error {
	if err := checkKeyReach(p, workspaceID); err != nil {
		return err
	}
	if !ids.Valid(workspaceID) {
		return ErrNotFound
	}
	err := db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		callerRole, err := s.store.roleOf(ctx, tx, workspaceID, p.UserID, true)
		if err != nil {
			return err
		}
		if callerRole == "" {
			return apierr.ErrNotMember
		}
		targetRole := callerRole
		if userID != p.UserID {
			if !ids.Valid(userID) {
				return ErrNotMemberUser
			}
			if targetRole, err = s.store.roleOf(ctx, tx, workspaceID, userID, false); err != nil {
				return err
			}
			if targetRole == "" {
				return ErrNotMemberUser
			}
			if callerRole != RoleOwner {
				return ErrRemoveOthers
			}
		}
		if targetRole == RoleOwner {
			n, err := s.store.countOwners(ctx, tx, workspaceID)
			if err != nil {
				return err
			}
			if n <= 1 {
				return ErrLastOwner
			}
		}
		if err := s.store.removeMember(ctx, tx, workspaceID, userID); err != nil {
			return err
		}
		return s.events.Emit(ctx, tx, p, memberEvent(EventMemberRemoved, workspaceID, removedMember{WorkspaceID: workspaceID, UserID: userID}))
	})
	if err == nil {
		// Keys of the removed user may be restricted to this workspace: forget every cached verdict,
		// once the removal is committed.
		db.AfterCommit(ctx, s.authCache.Purge)
	}
	return err
}

// memberEvent is a member change of a workspace: the workspace is the event's resource, and the
// membership (as POST /workspaces/:id/members answers it; removedMember for a removal) its data.
// The module's event types (CONTRACT.md section 18), declared in module.go.
const (
	EventMemberAdded   = "workspace.member_added"
	EventMemberRemoved = "workspace.member_removed"
)

func memberEvent(evType, workspaceID string, data any) journal.Event {
	return journal.Event{Type: evType, ResourceType: "workspace", ResourceID: workspaceID, WorkspaceID: &workspaceID, Data: data}
}
