// Package versions is the versions module: a snapshot of an item's content is saved, in the same
// transaction, before anything overwrites it (a PATCH of note content or task notes, an approved
// suggestion, a restore), so that no content is ever lost; and the endpoints that list, read and
// restore them (CONTRACT.md section 15).
package versions

import (
	"context"
	"maps"
	"slices"
	"strings"

	"go.uber.org/fx"

	"folio/modules/content"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/markdown"
	"folio/platform/paginate"
)

// Service is the versions module's use cases for a principal: list, read and restore an item's
// versions, the item reached through its content target (read access, the kind's 404; write
// access for a restore), the versions through the Store. The API's handler, the MCP server's
// get_history tool and the review pages call it.
type Service struct {
	store   *Store
	targets map[string]content.Target
}

// ServiceParams are the dependencies of NewService.
type ServiceParams struct {
	fx.In
	Store   *Store
	Targets []content.Target `group:"contentTargets"`
}

// NewService returns the versions service.
func NewService(p ServiceParams) *Service {
	s := &Service{store: p.Store, targets: map[string]content.Target{}}
	for _, t := range p.Targets {
		s.targets[t.Kind()] = t
	}
	return s
}

// Kinds are the kinds of items with versions.
func (s *Service) Kinds() []string { return slices.Sorted(maps.Keys(s.targets)) }

// List returns a page of the versions of the item kind/id, newest first.
func (s *Service) List(ctx context.Context, p *auth.Principal, kind, id string, page paginate.Params) ([]Snapshot, *string, error) {
	t, ok := s.targets[kind]
	if !ok {
		return nil, nil, apierr.Validation("kind must be one of %s", strings.Join(s.Kinds(), ", "))
	}
	item, err := t.Get(ctx, p, id)
	if err != nil {
		return nil, nil, err
	}
	return s.store.Page(ctx, kind, item.ID, page)
}

// Get returns one version of the item kind/id.
func (s *Service) Get(ctx context.Context, p *auth.Principal, kind, id, versionID string) (Snapshot, error) {
	t, ok := s.targets[kind]
	if !ok {
		return Snapshot{}, apierr.Validation("kind must be one of %s", strings.Join(s.Kinds(), ", "))
	}
	item, err := t.Get(ctx, p, id)
	if err != nil {
		return Snapshot{}, err
	}
	return s.store.Get(ctx, kind, item.ID, versionID)
}

// Restore makes the version the item's content: the version is read first (read access), then the
// item's target restores it under the item's lock, checking write access and ifMatch. It answers
// the item as the API renders it, and its new ETag. The API and the review pages restore through it.
func (s *Service) Restore(ctx context.Context, p *auth.Principal, kind, id, versionID string, ifMatch etag.IfMatch) (any, string, error) {
	v, err := s.Get(ctx, p, kind, id, versionID)
	if err != nil {
		return nil, "", err
	}
	doc, err := markdown.Decode(v.Document)
	if err != nil {
		return nil, "", err
	}
	return s.targets[kind].Restore(ctx, p, id, doc, ifMatch)
}
