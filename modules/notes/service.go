package notes

import (
	"context"
	"time"

	"gorm.io/gorm/clause"

	"folio/modules/document"
	"folio/modules/items"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/paginate"
)

// ItemKind is the item kind of notes in tags, snapshots, suggestions and the audit log.
const ItemKind = "note"

// Service holds the notes rules. What notes do exactly as tasks do (the item limit, snapshots,
// tags, moves, archive, soft delete, audit, the content target) runs in modules/items.
type Service struct {
	items *items.Service[Note]
	store *Store
}

// NewService returns the notes service.
func NewService(store *Store, params items.ServiceParams) *Service {
	// A note's GET shows its pending suggestion: ShowsPending makes suggesting and rejecting bump its
	// version, so its ETag covers pendingSuggestion too.
	return &Service{items: items.NewService(shape(), params), store: store}
}

// View is a note with its tags.
type View = items.View[Note]

// NewNote is a validated create request.
type NewNote struct {
	Content    document.Parsed
	NotebookID string
	TargetAt   *time.Time
	FollowUpAt *time.Time
	// What only an import sets: the API creates live notes, now.
	Archived             bool
	CreatedAt, UpdatedAt time.Time // zero: now
}

// Create stores a note in a notebook the principal may write, within the notebook's item limit.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in NewNote) (View, error) {
	cols := items.Columns{TargetAt: in.TargetAt, FollowUpAt: in.FollowUpAt, Archived: in.Archived, CreatedAt: in.CreatedAt, UpdatedAt: in.UpdatedAt}
	return s.items.Create(ctx, p, in.NotebookID, in.Content, Note{Columns: cols})
}

// Get returns one note the principal may see.
func (s *Service) Get(ctx context.Context, p *auth.Principal, id string) (View, error) {
	return s.items.Get(ctx, p, id)
}

// Filter narrows GET /notes: notes have no filter of their own.
type Filter = items.ListFilter

// List returns a page of the notes the principal may see.
func (s *Service) List(ctx context.Context, p *auth.Principal, f Filter, page paginate.Params) ([]View, *string, error) {
	return s.items.List(ctx, p, f, func(ctx context.Context, visible clause.Expr, f items.ListFilter) ([]Note, *string, error) {
		return s.store.list(ctx, visible, f, page)
	})
}

// Patch is a validated PATCH: nil fields are absent.
type Patch struct {
	Content    *document.Parsed
	NotebookID *string
	TargetAt   **time.Time // set to a nil *time.Time to clear
	FollowUpAt **time.Time
	Archived   *bool
}

// Update applies a PATCH. Content is snapshotted before it is overwritten, in the same
// transaction; a move needs write access to both notebooks and a free slot in the target.
// ifMatch is checked against the note's ETag under its row's lock.
func (s *Service) Update(ctx context.Context, p *auth.Principal, id string, patch Patch, ifMatch etag.IfMatch) (View, error) {
	if patch == (Patch{}) {
		// Nothing to change: no write, no snapshot, no audit entry, updatedAt unchanged.
		return s.items.Read(ctx, p, id, ifMatch)
	}
	change := items.Change{NotebookID: patch.NotebookID, Document: patch.Content, Archived: patch.Archived, TargetAt: patch.TargetAt, FollowUpAt: patch.FollowUpAt, IfMatch: ifMatch}
	return s.items.Update(ctx, p, id, change, nil)
}

// Delete removes a note from every read at once; its row stays (soft delete) so that cursors and
// the audit log naming it stay valid. Its notebook slot is given back. ifMatch is checked against
// the note's ETag under its row's lock.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id string, ifMatch etag.IfMatch) error {
	return s.items.Delete(ctx, p, id, ifMatch)
}

// shape is how the shared item flows read and write a note.
func shape() items.Shape[Note] {
	return items.Shape[Note]{Name: ItemKind, NotFound: ErrNotFound, Columns: (*Note).ItemColumns, Document: (*Note).document, Text: (*Note).text, Derive: (*Note).derive, ShowsPending: true,
		Scan:      &items.RowScan[Note]{Table: "notes", Select: noteColumns, Many: noteListColumns, Scan: scanNote},
		Reminders: []items.Reminder[Note]{items.FollowUp(ItemKind, (*Note).ItemColumns)},
		Response:  func(v View, text string) any { return noteOf(v, text) }}
}
