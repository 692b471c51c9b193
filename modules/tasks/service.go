package tasks

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

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

// Kind is the item kind of tasks in tags, snapshots, suggestions and the audit log.
const Kind = "task"

// Service holds the tasks rules.
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

// NewService returns the tasks service.
func NewService(p ServiceParams) *Service {
	return &Service{db: p.DB, store: p.Store, access: p.Access, tags: p.Tags, versions: p.Versions, audit: p.Audit, clock: p.Clock}
}

// View is a task with its tags.
type View struct {
	Task Task
	Tags []tags.View
}

// NewTask is a create request; Validate checks it.
type NewTask struct {
	Title      string
	NotebookID string
	Notes      markdown.Doc
	Status     string
	Priority   string
	DueAt      *time.Time
	TargetAt   *time.Time
	FollowUpAt *time.Time
}

// ValidTitle checks a title: 1 to 500 characters, not blank.
func ValidTitle(title string) error {
	if strings.TrimSpace(title) == "" || utf8.RuneCountInString(title) > 500 {
		return ErrTitle
	}
	return nil
}

// Validate checks the request's shape and fills the defaults.
func (in *NewTask) Validate() error {
	if err := ValidTitle(in.Title); err != nil {
		return err
	}
	if in.Status == "" {
		in.Status = "TODO"
	} else if !slices.Contains(Statuses, in.Status) {
		return ErrStatus
	}
	if in.Priority == "" {
		in.Priority = "MEDIUM"
	} else if !slices.Contains(Priorities, in.Priority) {
		return ErrPriority
	}
	return nil
}

// Create stores a task in a notebook the principal may write, within the notebook's item limit.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in NewTask) (View, error) {
	if err := in.Validate(); err != nil {
		return View{}, err
	}
	notes, err := markdown.Encode(in.Notes)
	if err != nil {
		return View{}, err
	}
	now := s.clock.Now()
	t := Task{ID: ids.New(), NotebookID: in.NotebookID, Title: in.Title, Notes: notes, Status: in.Status, Priority: in.Priority,
		DueAt: in.DueAt, TargetAt: in.TargetAt, FollowUpAt: in.FollowUpAt, CreatedByID: p.UserID, CreatedAt: now, UpdatedAt: now}
	err = db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		nb, err := s.access.Notebook(ctx, tx, p, in.NotebookID)
		if err != nil {
			return err
		}
		if err := s.access.Reserve(ctx, tx, nb.ID, 1); err != nil {
			return err
		}
		if err := s.store.create(ctx, tx, &t); err != nil {
			return err
		}
		if err := s.tags.Replace(ctx, tx, notebooks.SpaceOf(nb), Kind, t.ID, in.Notes.Tags()); err != nil {
			return err
		}
		return s.record(ctx, tx, p, "task.create", t, nb)
	})
	if err != nil {
		return View{}, err
	}
	return s.view(ctx, t)
}

func (s *Service) record(ctx context.Context, tx *gorm.DB, p *auth.Principal, action string, t Task, nb notebooks.Notebook) error {
	return s.audit.Record(ctx, tx, p, auditlog.Entry{Action: action, ResourceType: Kind, ResourceID: t.ID, WorkspaceID: nb.WorkspaceID, NotebookID: &nb.ID})
}

func (s *Service) view(ctx context.Context, t Task) (View, error) {
	byItem, err := s.tags.ForItems(ctx, Kind, []string{t.ID})
	if err != nil {
		return View{}, err
	}
	return View{Task: t, Tags: byItem[t.ID]}, nil
}

// Get returns one task the principal may see.
func (s *Service) Get(ctx context.Context, p *auth.Principal, id string) (View, error) {
	if !ids.Valid(id) {
		return View{}, ErrNotFound
	}
	t, err := s.store.get(ctx, nil, id, s.access.VisibleIDs(s.db, p), false)
	if err != nil {
		return View{}, err
	}
	return s.view(ctx, t)
}

// Filter narrows GET /tasks.
type Filter struct {
	NotebookID *string
	Status     *string
	Archived   bool
}

// List returns a page of the tasks the principal may see.
func (s *Service) List(ctx context.Context, p *auth.Principal, f Filter, page paginate.Params) ([]View, *string, error) {
	if f.Status != nil && !slices.Contains(Statuses, *f.Status) {
		return nil, nil, ErrQStatus
	}
	if f.NotebookID != nil {
		if _, err := s.access.Notebook(ctx, nil, p, *f.NotebookID); err != nil {
			return nil, nil, err
		}
	}
	rows, next, err := s.store.list(ctx, func() *gorm.DB { return s.access.VisibleIDs(s.db, p) }, listFilter(f), page)
	if err != nil {
		return nil, nil, err
	}
	itemIDs := make([]string, len(rows))
	for i, t := range rows {
		itemIDs[i] = t.ID
	}
	byItem, err := s.tags.ForItems(ctx, Kind, itemIDs)
	if err != nil {
		return nil, nil, err
	}
	views := make([]View, len(rows))
	for i, t := range rows {
		views[i] = View{Task: t, Tags: byItem[t.ID]}
	}
	return views, next, nil
}

// Patch is a validated PATCH: nil fields are absent.
type Patch struct {
	Title      *string
	Notes      *markdown.Doc
	Status     *string
	Priority   *string
	DueAt      **time.Time
	TargetAt   **time.Time
	FollowUpAt **time.Time
	Archived   *bool
	NotebookID *string
}

// Validate checks the fields' shapes.
func (p Patch) Validate() error {
	if p.Title != nil {
		if err := ValidTitle(*p.Title); err != nil {
			return err
		}
	}
	if p.Status != nil && !slices.Contains(Statuses, *p.Status) {
		return ErrStatus
	}
	if p.Priority != nil && !slices.Contains(Priorities, *p.Priority) {
		return ErrPriority
	}
	return nil
}

// Update applies a PATCH. The notes are snapshotted before they are overwritten, in the same
// transaction; a move needs write access to both notebooks and a free slot in the target.
func (s *Service) Update(ctx context.Context, p *auth.Principal, id string, patch Patch) (View, error) {
	if err := patch.Validate(); err != nil {
		return View{}, err
	}
	if patch == (Patch{}) {
		// Nothing to change: no write, no snapshot, no audit entry, updatedAt unchanged.
		return s.Get(ctx, p, id)
	}
	if !ids.Valid(id) {
		return View{}, ErrNotFound
	}
	var t Task
	err := db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		var err error
		t, err = s.store.get(ctx, tx, id, s.access.VisibleIDs(tx, p), true)
		if err != nil {
			return err
		}
		nb, err := s.access.Notebook(ctx, tx, p, t.NotebookID)
		if err != nil {
			return err
		}
		spaceChanged := false
		if patch.NotebookID != nil && *patch.NotebookID != t.NotebookID {
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
			t.NotebookID, nb = target.ID, target
		}
		notesChanged := false
		if patch.Notes != nil {
			encoded, err := markdown.Encode(*patch.Notes)
			if err != nil {
				return err
			}
			if !bytes.Equal(encoded, t.Notes) {
				if err := s.versions.Save(ctx, tx, Kind, t.ID, t.Notes, versions.ReasonUpdate, p.UserID); err != nil {
					return err
				}
				t.Notes, notesChanged = encoded, true
			}
		}
		applyFields(&t, patch)
		t.UpdatedAt = s.clock.Now()
		if err := s.store.save(ctx, tx, &t); err != nil {
			return err
		}
		if notesChanged || spaceChanged {
			doc, err := markdown.Decode(t.Notes)
			if err != nil {
				return err
			}
			if err := s.tags.Replace(ctx, tx, notebooks.SpaceOf(nb), Kind, t.ID, doc.Tags()); err != nil {
				return err
			}
		}
		return s.record(ctx, tx, p, "task.update", t, nb)
	})
	if err != nil {
		return View{}, err
	}
	return s.view(ctx, t)
}

// applyFields copies the plain fields of a patch onto the task.
func applyFields(t *Task, patch Patch) {
	if patch.Title != nil {
		t.Title = *patch.Title
	}
	if patch.Status != nil {
		t.Status = *patch.Status
	}
	if patch.Priority != nil {
		t.Priority = *patch.Priority
	}
	if patch.DueAt != nil {
		t.DueAt = *patch.DueAt
	}
	if patch.TargetAt != nil {
		t.TargetAt = *patch.TargetAt
	}
	if patch.FollowUpAt != nil {
		t.FollowUpAt = *patch.FollowUpAt
	}
	if patch.Archived != nil {
		t.Archived = *patch.Archived
	}
}

// Delete removes a task from every read at once (soft delete) and gives its notebook slot back.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id string) error {
	if !ids.Valid(id) {
		return ErrNotFound
	}
	return db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		t, err := s.store.get(ctx, tx, id, s.access.VisibleIDs(tx, p), true)
		if err != nil {
			return err
		}
		nb, err := s.access.Notebook(ctx, tx, p, t.NotebookID)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		t.DeletedAt, t.UpdatedAt = &now, now
		if err := s.store.save(ctx, tx, &t); err != nil {
			return err
		}
		if err := s.access.Release(ctx, tx, nb.ID, 1); err != nil {
			return err
		}
		return s.record(ctx, tx, p, "task.delete", t, nb)
	})
}
