package notes

import (
	"bytes"
	"context"
	"time"

	"go.uber.org/fx"
	"gorm.io/gorm"

	"folio/modules/notebooks"
	"folio/modules/tags"
	"folio/modules/versions"
	"folio/platform/auditlog"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/db"
	"folio/platform/ids"
	"folio/platform/markdown"
	"folio/platform/paginate"
)

// Kind is the item kind of notes in tags, snapshots, suggestions and the audit log.
const Kind = "note"

// Service holds the notes rules.
type Service struct {
	db       *gorm.DB
	store    *Store
	access   *notebooks.Access
	tags     *tags.Service
	versions *versions.Service
	audit    auditlog.Recorder
	clock    clock.Clock
}

// ServiceParams are the dependencies of NewService.
type ServiceParams struct {
	fx.In
	DB       *gorm.DB
	Store    *Store
	Access   *notebooks.Access
	Tags     *tags.Service
	Versions *versions.Service
	Audit    auditlog.Recorder
	Clock    clock.Clock
}

// NewService returns the notes service.
func NewService(p ServiceParams) *Service {
	return &Service{db: p.DB, store: p.Store, access: p.Access, tags: p.Tags, versions: p.Versions, audit: p.Audit, clock: p.Clock}
}

// View is a note with its tags.
type View struct {
	Note Note
	Tags []tags.View
}

// NewNote is a validated create request.
type NewNote struct {
	Content    markdown.Doc
	NotebookID string
	TargetAt   *time.Time
	FollowUpAt *time.Time
}

// Create stores a note in a notebook the principal may write, within the notebook's item limit.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in NewNote) (View, error) {
	doc, err := markdown.Encode(in.Content)
	if err != nil {
		return View{}, err
	}
	now := s.clock.Now()
	n := Note{ID: ids.New(), NotebookID: in.NotebookID, Content: doc, HasDecision: in.Content.HasDecision(),
		TargetAt: in.TargetAt, FollowUpAt: in.FollowUpAt, CreatedByID: p.UserID, CreatedAt: now, UpdatedAt: now}
	err = db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		nb, err := s.access.Notebook(ctx, tx, p, in.NotebookID)
		if err != nil {
			return err
		}
		if err := s.access.Reserve(ctx, tx, nb.ID, 1); err != nil {
			return err
		}
		if err := s.store.create(ctx, tx, &n); err != nil {
			return err
		}
		if err := s.tags.Replace(ctx, tx, notebooks.SpaceOf(nb), Kind, n.ID, in.Content.Tags()); err != nil {
			return err
		}
		return s.record(ctx, tx, p, "note.create", n, nb)
	})
	if err != nil {
		return View{}, err
	}
	return s.view(ctx, n)
}

func (s *Service) record(ctx context.Context, tx *gorm.DB, p *auth.Principal, action string, n Note, nb notebooks.Notebook) error {
	return s.audit.Record(ctx, tx, p, auditlog.Entry{Action: action, ResourceType: Kind, ResourceID: n.ID, WorkspaceID: nb.WorkspaceID, NotebookID: &nb.ID})
}

// view adds the note's tags.
func (s *Service) view(ctx context.Context, n Note) (View, error) {
	byItem, err := s.tags.ForItems(ctx, Kind, []string{n.ID})
	if err != nil {
		return View{}, err
	}
	return View{Note: n, Tags: byItem[n.ID]}, nil
}

// Get returns one note the principal may see, with its pending suggestion.
func (s *Service) Get(ctx context.Context, p *auth.Principal, id string) (View, error) {
	if !ids.Valid(id) {
		return View{}, ErrNotFound
	}
	n, err := s.store.get(ctx, nil, id, s.access.VisibleIDs(s.db, p), false)
	if err != nil {
		return View{}, err
	}
	return s.view(ctx, n)
}

// Filter narrows GET /notes.
type Filter struct {
	NotebookID *string
	Archived   bool
}

// List returns a page of the notes the principal may see.
func (s *Service) List(ctx context.Context, p *auth.Principal, f Filter, page paginate.Params) ([]View, *string, error) {
	if f.NotebookID != nil {
		// Named notebooks get the access codes (KEY_NOTEBOOK_MISMATCH, 404, ...).
		if _, err := s.access.Notebook(ctx, nil, p, *f.NotebookID); err != nil {
			return nil, nil, err
		}
	}
	rows, next, err := s.store.list(ctx, func() *gorm.DB { return s.access.VisibleIDs(s.db, p) }, listFilter{NotebookID: f.NotebookID, Archived: f.Archived}, page)
	if err != nil {
		return nil, nil, err
	}
	itemIDs := make([]string, len(rows))
	for i, n := range rows {
		itemIDs[i] = n.ID
	}
	byItem, err := s.tags.ForItems(ctx, Kind, itemIDs)
	if err != nil {
		return nil, nil, err
	}
	views := make([]View, len(rows))
	for i, n := range rows {
		views[i] = View{Note: n, Tags: byItem[n.ID]}
	}
	return views, next, nil
}

// Patch is a validated PATCH: nil fields are absent.
type Patch struct {
	Content    *markdown.Doc
	NotebookID *string
	TargetAt   **time.Time // set to a nil *time.Time to clear
	FollowUpAt **time.Time
	Archived   *bool
}

// Update applies a PATCH. Content is snapshotted before it is overwritten, in the same
// transaction; a move needs write access to both notebooks and a free slot in the target.
func (s *Service) Update(ctx context.Context, p *auth.Principal, id string, patch Patch) (View, error) {
	if patch == (Patch{}) {
		// Nothing to change: no write, no snapshot, no audit entry, updatedAt unchanged.
		return s.Get(ctx, p, id)
	}
	if !ids.Valid(id) {
		return View{}, ErrNotFound
	}
	var n Note
	err := db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		var err error
		n, err = s.store.get(ctx, tx, id, s.access.VisibleIDs(tx, p), true)
		if err != nil {
			return err
		}
		nb, err := s.access.Notebook(ctx, tx, p, n.NotebookID)
		if err != nil {
			return err
		}
		spaceChanged := false
		if patch.NotebookID != nil && *patch.NotebookID != n.NotebookID {
			target, err := s.access.Notebook(ctx, tx, p, *patch.NotebookID)
			if err != nil {
				return err
			}
			if err := s.access.Reserve(ctx, tx, target.ID, 1); err != nil {
				return err
			}
			if err := s.access.Release(ctx, tx, nb.ID, 1); err != nil {
				return err
			}
			spaceChanged = notebooks.SpaceOf(target) != notebooks.SpaceOf(nb)
			n.NotebookID, nb = target.ID, target
		}
		contentChanged := false
		if patch.Content != nil {
			encoded, err := markdown.Encode(*patch.Content)
			if err != nil {
				return err
			}
			if !bytes.Equal(encoded, n.Content) {
				if err := s.versions.Save(ctx, tx, Kind, n.ID, n.Content, versions.ReasonUpdate, p.UserID); err != nil {
					return err
				}
				n.Content, n.HasDecision, contentChanged = encoded, patch.Content.HasDecision(), true
			}
		}
		if patch.TargetAt != nil {
			n.TargetAt = *patch.TargetAt
		}
		if patch.FollowUpAt != nil {
			n.FollowUpAt = *patch.FollowUpAt
		}
		if patch.Archived != nil {
			n.Archived = *patch.Archived
		}
		n.UpdatedAt = s.clock.Now()
		if err := s.store.save(ctx, tx, &n); err != nil {
			return err
		}
		if contentChanged || spaceChanged {
			doc, err := markdown.Decode(n.Content)
			if err != nil {
				return err
			}
			if err := s.tags.Replace(ctx, tx, notebooks.SpaceOf(nb), Kind, n.ID, doc.Tags()); err != nil {
				return err
			}
		}
		return s.record(ctx, tx, p, "note.update", n, nb)
	})
	if err != nil {
		return View{}, err
	}
	return s.view(ctx, n)
}

// Delete removes a note from every read at once; its row stays (soft delete) so that cursors and
// the audit log naming it stay valid. Its notebook slot is given back.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id string) error {
	if !ids.Valid(id) {
		return ErrNotFound
	}
	return db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		n, err := s.store.get(ctx, tx, id, s.access.VisibleIDs(tx, p), true)
		if err != nil {
			return err
		}
		nb, err := s.access.Notebook(ctx, tx, p, n.NotebookID)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		n.DeletedAt, n.UpdatedAt = &now, now
		if err := s.store.save(ctx, tx, &n); err != nil {
			return err
		}
		if err := s.access.Release(ctx, tx, nb.ID, 1); err != nil {
			return err
		}
		return s.record(ctx, tx, p, "note.delete", n, nb)
	})
}
