package tasks

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm/clause"

	"folio/modules/document"
	"folio/modules/items"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/paginate"
)

// ItemKind is the item kind of tasks in tags, snapshots, suggestions and the audit log.
const ItemKind = "task"

// A task created without a status or a priority gets these.
const (
	defaultStatus   = "TODO"
	defaultPriority = "MEDIUM"
)

// Service holds the tasks rules. What tasks do exactly as notes do (the item limit, snapshots,
// tags, moves, archive, soft delete, audit, the content target) runs in modules/items.
type Service struct {
	items *items.Service[Task]
	store *Store
}

// NewService returns the tasks service.
func NewService(store *Store, params items.ServiceParams) *Service {
	return &Service{items: items.NewService(shape(), params), store: store}
}

// View is a task with its tags.
type View = items.View[Task]

// NewTask is a create request; Validate checks it.
type NewTask struct {
	Title      string
	NotebookID string
	Notes      document.Parsed
	Status     string
	Priority   string
	DueAt      *time.Time
	TargetAt   *time.Time
	FollowUpAt *time.Time
	// What only an import sets: the API creates live tasks, now.
	Archived             bool
	CreatedAt, UpdatedAt time.Time // zero: now
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
		in.Status = defaultStatus
	} else if !slices.Contains(Statuses, in.Status) {
		return ErrStatus
	}
	if in.Priority == "" {
		in.Priority = defaultPriority
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
	cols := items.Columns{TargetAt: in.TargetAt, FollowUpAt: in.FollowUpAt, Archived: in.Archived, CreatedAt: in.CreatedAt, UpdatedAt: in.UpdatedAt}
	t := Task{Columns: cols, Title: in.Title, Status: in.Status, Priority: in.Priority, DueAt: in.DueAt}
	return s.items.Create(ctx, p, in.NotebookID, in.Notes, t)
}

// Get returns one task the principal may see.
func (s *Service) Get(ctx context.Context, p *auth.Principal, id string) (View, error) {
	return s.items.Get(ctx, p, id)
}

// Filter narrows GET /tasks: the filter every item list has, and the status.
type Filter struct {
	items.ListFilter
	Status *string
}

// List returns a page of the tasks the principal may see.
func (s *Service) List(ctx context.Context, p *auth.Principal, f Filter, page paginate.Params) ([]View, *string, error) {
	if f.Status != nil && !slices.Contains(Statuses, *f.Status) {
		return nil, nil, ErrQStatus
	}
	return s.items.List(ctx, p, f.ListFilter, func(ctx context.Context, visible clause.Expr, lf items.ListFilter) ([]Task, *string, error) {
		f.ListFilter = lf
		return s.store.list(ctx, visible, f, page)
	})
}

// Patch is a validated PATCH: nil fields are absent.
type Patch struct {
	Title      *string
	Notes      *document.Parsed
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
// ifMatch is checked against the task's ETag under its row's lock.
func (s *Service) Update(ctx context.Context, p *auth.Principal, id string, patch Patch, ifMatch etag.IfMatch) (View, error) {
	if err := patch.Validate(); err != nil {
		return View{}, err
	}
	if patch == (Patch{}) {
		// Nothing to change: no write, no snapshot, no audit entry, updatedAt unchanged.
		return s.items.Read(ctx, p, id, ifMatch)
	}
	change := items.Change{NotebookID: patch.NotebookID, Document: patch.Notes, Archived: patch.Archived, TargetAt: patch.TargetAt, FollowUpAt: patch.FollowUpAt, IfMatch: ifMatch}
	return s.items.Update(ctx, p, id, change, func(t *Task) { applyFields(t, patch) })
}

// applyFields copies the task's own fields of a patch onto it.
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
}

// Delete removes a task from every read at once (soft delete) and gives its notebook slot back.
// ifMatch is checked against the task's ETag under its row's lock.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id string, ifMatch etag.IfMatch) error {
	return s.items.Delete(ctx, p, id, ifMatch)
}

// shape is how the shared item flows read and write a task.
func shape() items.Shape[Task] {
	return items.Shape[Task]{Name: ItemKind, NotFound: ErrNotFound, Columns: (*Task).ItemColumns, Document: (*Task).document, Text: (*Task).text,
		SearchText: func(t *Task, notes string) string { return t.Title + "\n" + notes },
		Label:      func(t *Task) string { return t.Title },
		// A task reminds of its follow-up and of its due date until it is DONE.
		Reminders: []items.Reminder[Task]{items.FollowUp(ItemKind, (*Task).ItemColumns), {
			Event: ItemKind + ".due", AtColumn: "due_at", FiredColumn: "due_fired_at",
			At: func(t *Task) *time.Time { return t.DueAt }, Fired: func(t *Task) **time.Time { return &t.DueFiredAt }}},
		Remindable:    func(t *Task) bool { return t.Status != StatusDone },
		RemindableSQL: "status <> '" + StatusDone + "'",
		Response:      func(v View, notes string) any { return taskOf(v, notes) }}
}
