package notes

import (
	"context"

	"gorm.io/gorm"

	"folio/modules/notebooks"
	"folio/platform/auth"
	"folio/platform/content"
	"folio/platform/ids"
	"folio/platform/markdown"
)

// Target lets the suggestions module read and replace a note's content (content.Target).
type Target struct{ svc *Service }

// NewTarget returns the notes' content target.
func NewTarget(svc *Service) *Target { return &Target{svc: svc} }

// Kind implements content.Target.
func (t *Target) Kind() string { return Kind }

// NotFound implements content.Target.
func (t *Target) NotFound() error { return ErrNotFound }

// Get implements content.Target.
func (t *Target) Get(ctx context.Context, p *auth.Principal, id string) (content.Item, error) {
	return t.load(ctx, nil, p, id, false)
}

// Lock implements content.Target.
func (t *Target) Lock(ctx context.Context, tx *gorm.DB, p *auth.Principal, id string) (content.Item, error) {
	return t.load(ctx, tx, p, id, true)
}

func (t *Target) load(ctx context.Context, tx *gorm.DB, p *auth.Principal, id string, lock bool) (content.Item, error) {
	if !ids.Valid(id) {
		return content.Item{}, ErrNotFound
	}
	s := t.svc
	n, err := s.store.get(ctx, tx, id, s.access.VisibleIDs(t.svc.db, p), lock)
	if err != nil {
		return content.Item{}, err
	}
	nb, err := s.access.Notebook(ctx, tx, p, n.NotebookID)
	if err != nil {
		return content.Item{}, err
	}
	doc, err := markdown.Decode(n.Content)
	if err != nil {
		return content.Item{}, err
	}
	return content.Item{Kind: Kind, ID: n.ID, NotebookID: nb.ID, WorkspaceID: nb.WorkspaceID, Content: doc}, nil
}

// Replace implements content.Target.
func (t *Target) Replace(ctx context.Context, tx *gorm.DB, p *auth.Principal, item content.Item, doc markdown.Doc, reason, action string) error {
	s := t.svc
	n, err := s.store.get(ctx, tx, item.ID, s.access.VisibleIDs(tx, p), false)
	if err != nil {
		return err
	}
	nb, err := s.access.Notebook(ctx, tx, p, n.NotebookID)
	if err != nil {
		return err
	}
	encoded, err := markdown.Encode(doc)
	if err != nil {
		return err
	}
	if err := s.versions.Save(ctx, tx, Kind, n.ID, n.Content, reason, p.UserID); err != nil {
		return err
	}
	n.Content, n.HasDecision, n.UpdatedAt = encoded, doc.HasDecision(), s.clock.Now()
	if err := s.store.save(ctx, tx, &n); err != nil {
		return err
	}
	if err := s.tags.Replace(ctx, tx, notebooks.SpaceOf(nb), Kind, n.ID, doc.Tags()); err != nil {
		return err
	}
	return s.record(ctx, tx, p, action, n, nb)
}

var _ content.Target = (*Target)(nil)
