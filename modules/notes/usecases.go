package notes

import (
	"context"

	"go.uber.org/fx"

	"folio/modules/content"
	"folio/modules/document"
	"folio/modules/items"
	"folio/platform/auth"
	"folio/platform/db"
	"folio/platform/etag"
	"folio/platform/httpx"
	"folio/platform/paginate"
)

// The notes module's use cases: what each request means, written once. The REST handler, the MCP
// server and the export each only turn their transport's input into these requests and the
// answers back, so that no two front ends can disagree on what a question means.

// ListQuery is GET /notes' query as the client sent it: every item list's (items.ListQuery) and
// hasDecision. The MCP server's search_notes and the export ask with it too.
type ListQuery struct {
	items.ListQuery
	HasDecision *string // "true" or "false"; nil: either
}

// Parse checks the query, in the order of the API's query parameters: every item list's, then
// hasDecision (the first invalid one answers).
func (q ListQuery) Parse() (Filter, paginate.Params, error) {
	f, page, err := q.ListQuery.Parse()
	if err != nil {
		return Filter{}, paginate.Params{}, err
	}
	if q.HasDecision != nil {
		has, err := httpx.ParseBool("hasDecision", q.HasDecision, false)
		if err != nil {
			return Filter{}, paginate.Params{}, err
		}
		f.Conditions = append(f.Conditions, items.Condition{SQL: "notes.has_decision = ?", Args: []any{has}})
	}
	return f, page, nil
}

// Search answers GET /notes and MCP's search_notes: the page of the notes the principal may see
// that q asks for, each as the API writes it.
func (s *Service) Search(ctx context.Context, p *auth.Principal, q ListQuery) (paginate.Page[Response], error) {
	return items.Answer(ctx, p, q.Parse, s.List, toNoteResponse)
}

// CreateRequest is POST /notes' body; MCP's create_note fills it from its arguments.
type CreateRequest = createRequest

// parse checks a create request: the content, then targetAt and followUpAt.
func (req createRequest) parse() (NewNote, error) {
	doc, err := document.Parse("content", req.Content)
	if err != nil {
		return NewNote{}, err
	}
	in := NewNote{Content: doc, NotebookID: req.NotebookID}
	if in.TargetAt, err = httpx.DateOrNil("targetAt", req.TargetAt); err != nil {
		return NewNote{}, err
	}
	if in.FollowUpAt, err = httpx.DateOrNil("followUpAt", req.FollowUpAt); err != nil {
		return NewNote{}, err
	}
	return in, nil
}

// CreateFrom answers POST /notes and MCP's create_note: the request checked, then the note
// created.
func (s *Service) CreateFrom(ctx context.Context, p *auth.Principal, req CreateRequest) (View, error) {
	in, err := req.parse()
	if err != nil {
		return View{}, err
	}
	return s.Create(ctx, p, in)
}

// PatchRequest is PATCH /notes/:id's body.
type PatchRequest = patchRequest

// parse checks a PATCH: the content, then the dates.
func (req patchRequest) parse() (Patch, error) {
	var patch Patch
	if req.Content.Present {
		doc, err := document.Parse("content", req.Content.Value)
		if err != nil {
			return Patch{}, err
		}
		patch.Content = &doc
	}
	if req.NotebookID.Present {
		patch.NotebookID = &req.NotebookID.Value
	}
	var err error
	if patch.TargetAt, err = httpx.OptionalDate("targetAt", req.TargetAt); err != nil {
		return Patch{}, err
	}
	if patch.FollowUpAt, err = httpx.OptionalDate("followUpAt", req.FollowUpAt); err != nil {
		return Patch{}, err
	}
	if req.Archived.Present {
		patch.Archived = &req.Archived.Value
	}
	return patch, nil
}

// UpdateFrom answers PATCH /notes/:id: the request checked, then the note updated (Update).
func (s *Service) UpdateFrom(ctx context.Context, p *auth.Principal, id string, req PatchRequest, ifMatch etag.IfMatch) (View, error) {
	patch, err := req.parse()
	if err != nil {
		return View{}, err
	}
	return s.Update(ctx, p, id, patch, ifMatch)
}

// WithPending is a note as GET /notes/:id answers it in JSON, and MCP's get_note: the note and
// its pendingSuggestion.
type WithPending = noteWithPending

// Viewer answers "a note with its pending suggestion". The suggestion is the suggestions
// module's (content.Pending; none without that module). It is not the Service's because the
// suggestions module reads notes through the Service (the note's content target).
type Viewer struct {
	svc     *Service
	pending content.Pending // nil when no suggestions module is wired
}

// ViewerParams are the dependencies of NewViewer. The pending-suggestion finder is optional: the
// notes module works without the suggestions module.
type ViewerParams struct {
	fx.In
	Service *Service
	Pending content.Pending `optional:"true"`
}

// NewViewer returns the note viewer.
func NewViewer(p ViewerParams) *Viewer { return &Viewer{svc: p.Service, pending: p.Pending} }

// Get answers MCP's get_note: the note the principal may see, with its pending suggestion.
func (v *Viewer) Get(ctx context.Context, p *auth.Principal, id string) (WithPending, error) {
	_, out, err := v.Read(ctx, p, id, nil)
	return out, err
}

// Read is the note the principal may see and, as JSON shows it, the note with its pending
// suggestion: GET /notes/:id, MCP's get_note and the note's page. skip, when given, is asked once
// the note is read: true leaves the pending suggestion unread and the second result empty
// (GET /notes/:id answering 304, or the Markdown alone). The statements share one pooled
// connection (db.Shared): taking one per statement cost a single note's read more CPU than
// anything else folio adds to it.
func (v *Viewer) Read(ctx context.Context, p *auth.Principal, id string, skip func(View) bool) (View, WithPending, error) {
	var (
		note View
		out  WithPending
	)
	err := db.Shared(ctx, v.svc.store.db, func(ctx context.Context) error {
		var err error
		if note, err = v.svc.Get(ctx, p, id); err != nil {
			return err
		}
		if skip != nil && skip(note) {
			return nil
		}
		out, err = v.Show(ctx, note)
		return err
	})
	return note, out, err
}

// Show is a note that was read (Service.Get) with its pending suggestion, as GET /notes/:id
// answers it in JSON.
func (v *Viewer) Show(ctx context.Context, note View) (WithPending, error) {
	resp, err := toNoteResponse(note)
	if err != nil {
		return WithPending{}, err
	}
	out := WithPending{noteResponse: resp}
	if v.pending != nil {
		if out.PendingSuggestion, err = v.pending.PendingFor(ctx, ItemKind, note.Item.ID); err != nil {
			return WithPending{}, err
		}
	}
	return out, nil
}
