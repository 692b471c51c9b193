package audit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.uber.org/fx"
	"gorm.io/gorm"

	"folio/modules/journal"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/ids"
	"folio/platform/paginate"
)

// Service records actions and reads the log back under the visibility rules of CONTRACT.md
// section 7.
type Service struct {
	store  *Store
	clock  clock.Clock
	events journal.Emitter
	types  []string // the declared resource types, sorted
	// actions are the declared actions, in declaration order within each type (types sorted).
	actions []string
}

// ServiceParams are the dependencies of NewService.
type ServiceParams struct {
	fx.In
	Store  *Store
	Clock  clock.Clock
	Events journal.Emitter
	// Types are the resource types the modules declare (journal.DeclareResourceType).
	Types []journal.ResourceType `group:"auditResourceTypes"`
}

// NewService returns the audit service.
func NewService(p ServiceParams) *Service {
	declared := slices.Clone(p.Types)
	slices.SortStableFunc(declared, func(a, b journal.ResourceType) int { return strings.Compare(a.Name, b.Name) })
	var types, actions []string
	for _, t := range declared {
		if !slices.Contains(types, t.Name) {
			types = append(types, t.Name)
		}
		for _, a := range t.Actions {
			if !slices.Contains(actions, a) {
				actions = append(actions, a)
			}
		}
	}
	return &Service{store: p.Store, clock: p.Clock, events: p.Events, types: types, actions: actions}
}

// errNoEvent refuses an audit entry that emits no event (see journal.Entry.Events).
var errNoEvent = errors.New("audit: an audited action must emit its events (journal.Entry.Events)")

// Record implements journal.Recorder: it writes the entry and emits its events, in the caller's
// transaction tx.
func (s *Service) Record(ctx context.Context, tx *gorm.DB, p *auth.Principal, e journal.Entry) error {
	if len(e.Events) == 0 {
		return fmt.Errorf("%w: %s", errNoEvent, e.Action)
	}
	row := Entry{
		Action: e.Action, ResourceType: e.ResourceType, ResourceID: e.ResourceID, ActorUserID: p.UserID,
		WorkspaceID: e.WorkspaceID, NotebookID: e.NotebookID, CreatedAt: s.clock.Now(),
	}
	if p.Credential == auth.CredentialKey {
		row.APIKeyID, row.APIKeyName, row.APIKeyPrefix = &p.KeyID, &p.KeyName, &p.KeyPrefix
	}
	if err := s.store.insert(ctx, tx, &row); err != nil {
		return err
	}
	return s.events.Emit(ctx, tx, p, e.Events...)
}

// Filter narrows the log.
type Filter struct {
	ResourceType *string // nil for all
	APIKeyID     string  // "" for all
}

// List returns a page of the entries the principal may see: a session or an unrestricted key the
// entries its user caused; a workspace-scoped key those on resources of its workspace; a
// notebook-scoped key those of its notebook. APIKeyID narrows to one key of the caller's own user
// (an id of somebody else's key, or of no key, gives an empty list).
func (s *Service) List(ctx context.Context, p *auth.Principal, f Filter, page paginate.Params) ([]Entry, *string, error) {
	if f.ResourceType != nil && !slices.Contains(s.types, *f.ResourceType) {
		return nil, nil, errResourceType(s.types)
	}
	if f.APIKeyID != "" && !ids.Valid(f.APIKeyID) {
		return nil, nil, ErrAPIKeyID
	}
	visible := func(q *gorm.DB) *gorm.DB { return journal.Visible(q, "audit_entries", p) }
	filters := func(q *gorm.DB) *gorm.DB {
		if f.ResourceType != nil {
			q = q.Where("audit_entries.resource_type = ?", *f.ResourceType)
		}
		if f.APIKeyID != "" {
			q = q.Where("audit_entries.api_key_id = ? AND audit_entries.actor_user_id = ?", f.APIKeyID, p.UserID)
		}
		return q
	}
	return s.store.list(ctx, visible, filters, page)
}
