package notebooks

import (
	"context"
	"slices"
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

// ResourceType is the notebooks' resource type in the audit log.
const ResourceType = "notebook"

// EventCreated is the module's one event type (CONTRACT.md section 18), declared in module.go.
const EventCreated = "notebook.created"

// Service holds the notebook rules.
type Service struct {
	db          *gorm.DB
	store       *Store
	access      *Access
	memberships Memberships
	audit       journal.Recorder
	clock       clock.Clock
}

// ServiceParams are the dependencies of NewService.
type ServiceParams struct {
	fx.In
	DB          *gorm.DB
	Store       *Store
	Access      *Access
	Memberships Memberships
	Audit       journal.Recorder
	Clock       clock.Clock
}

// NewService returns the notebooks service.
func NewService(p ServiceParams) *Service {
	return &Service{db: p.DB, store: p.Store, access: p.Access, memberships: p.Memberships, audit: p.Audit, clock: p.Clock}
}

// NewNotebook is a validated create request. WorkspaceID nil with WorkspaceSet false means "not
// given"; WorkspaceSet true with nil means an explicit null (personal).
type NewNotebook struct {
	Name         string
	Color        string
	WorkspaceID  *string
	WorkspaceSet bool
}

// Validate checks the shape of the request (400s), before any access check.
func (in *NewNotebook) Validate() error {
	if strings.TrimSpace(in.Name) == "" || utf8.RuneCountInString(in.Name) > 40 {
		return ErrName
	}
	if in.Color == "" {
		in.Color = Colors[0]
	} else if !slices.Contains(Colors, in.Color) {
		return ErrColor
	}
	return nil
}

// Create makes a notebook: personal, or in a workspace its user belongs to. For a
// workspace-scoped key an omitted workspaceId means the key's workspace.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in NewNotebook) (Notebook, error) {
	if p.NotebookID != nil {
		return Notebook{}, ErrCreateByKey
	}
	if err := in.Validate(); err != nil {
		return Notebook{}, err
	}
	if p.WorkspaceID != nil {
		switch {
		case !in.WorkspaceSet:
			in.WorkspaceID = p.WorkspaceID
		case in.WorkspaceID == nil || *in.WorkspaceID != *p.WorkspaceID:
			return Notebook{}, apierr.ErrKeyWorkspace
		}
	}
	if in.WorkspaceID != nil {
		if !ids.Valid(*in.WorkspaceID) {
			return Notebook{}, ErrWorkspaceAbsent
		}
		if _, err := s.memberships.RoleOf(ctx, p.UserID, *in.WorkspaceID); err != nil {
			return Notebook{}, err
		}
	}
	now := s.clock.Now()
	n := Notebook{ID: ids.New(), Name: in.Name, Color: in.Color, WorkspaceID: in.WorkspaceID, OwnerID: p.UserID, CreatedAt: now, UpdatedAt: now, Version: 1}
	err := db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		if err := s.store.create(ctx, tx, &n); err != nil {
			return err
		}
		created := journal.Event{Type: EventCreated, ResourceType: ResourceType, ResourceID: n.ID, NotebookID: &n.ID, WorkspaceID: n.WorkspaceID, Data: toNotebookResponse(n)}
		return s.audit.Record(ctx, tx, p, journal.Entry{Action: ResourceType + ".create", ResourceType: ResourceType, ResourceID: n.ID, WorkspaceID: n.WorkspaceID, NotebookID: &n.ID, Events: []journal.Event{created}})
	})
	return n, err
}

// Get returns one notebook the principal may see.
func (s *Service) Get(ctx context.Context, p *auth.Principal, id string) (Notebook, error) {
	return s.access.Notebook(ctx, nil, p, id)
}

// List returns a page of the notebooks the principal may see.
func (s *Service) List(ctx context.Context, p *auth.Principal, page paginate.Params) ([]Notebook, *string, error) {
	return s.store.list(ctx, s.access.Visible(p), page)
}
