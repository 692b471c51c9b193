package tasks

import (
	"context"
	"slices"
	"strings"
	"time"

	"folio/modules/document"
	"folio/modules/items"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/httpx"
	"folio/platform/paginate"
)

// The tasks module's use cases: what each request means, written once. The REST handler, the MCP
// server and the export each only turn their transport's input into these requests and the
// answers back, so that no two front ends can disagree on what a question means.

// ListQuery is GET /tasks' query as the client sent it: every item list's (items.ListQuery),
// status, priority, dueFrom and dueTo. MCP's list_tasks and the export ask with it too.
type ListQuery struct {
	items.ListQuery
	Status   *string // one of Statuses; nil: any (given but empty is an error)
	Priority string  // one of Priorities; "": any
	DueFrom  string  // a date or date-time; "": no bound
	DueTo    string
}

// Parse checks the query, in the order of the API's query parameters: every item list's, then
// priority, dueFrom and dueTo (the first invalid one answers; List checks status).
func (q ListQuery) Parse() (Filter, paginate.Params, error) {
	shared, page, err := q.ListQuery.Parse()
	if err != nil {
		return Filter{}, paginate.Params{}, err
	}
	f := Filter{ListFilter: shared, Status: q.Status}
	if q.Priority != "" {
		if !slices.Contains(Priorities, q.Priority) {
			return Filter{}, paginate.Params{}, apierr.Validation("query parameter \"priority\" must be one of %s", strings.Join(Priorities, ", "))
		}
		f.Conditions = append(f.Conditions, items.Condition{SQL: "tasks.priority = ?", Args: []any{q.Priority}})
	}
	from, to, err := items.ParseDateRange("dueFrom", q.DueFrom, "dueTo", q.DueTo)
	if err != nil {
		return Filter{}, paginate.Params{}, err
	}
	if from != nil {
		f.Conditions = append(f.Conditions, items.Condition{SQL: "tasks.due_at >= ?", Args: []any{*from}})
	}
	if to != nil {
		f.Conditions = append(f.Conditions, items.Condition{SQL: "tasks.due_at < ?", Args: []any{*to}})
	}
	return f, page, nil
}

// Search answers GET /tasks and MCP's list_tasks: the page of the tasks the principal may see
// that q asks for, each as the API writes it.
func (s *Service) Search(ctx context.Context, p *auth.Principal, q ListQuery) (paginate.Page[Response], error) {
	return items.Answer(ctx, p, q.Parse, s.List, toTaskResponse)
}

// CreateRequest is POST /tasks' body; MCP's create_task fills it from its arguments.
type CreateRequest = createRequest

// parse checks a create request: title, status and priority (NewTask.Validate), then the notes,
// then the dates.
func (req createRequest) parse() (NewTask, error) {
	in := NewTask{Title: req.Title, NotebookID: req.NotebookID, Status: req.Status.Value, Priority: req.Priority.Value}
	if err := in.Validate(); err != nil {
		return NewTask{}, err
	}
	notes, err := parseNotes(req.Notes)
	if err != nil {
		return NewTask{}, err
	}
	in.Notes = notes
	if in.DueAt, err = httpx.DateOrNil("dueAt", req.DueAt); err != nil {
		return NewTask{}, err
	}
	if in.TargetAt, err = httpx.DateOrNil("targetAt", req.TargetAt); err != nil {
		return NewTask{}, err
	}
	if in.FollowUpAt, err = httpx.DateOrNil("followUpAt", req.FollowUpAt); err != nil {
		return NewTask{}, err
	}
	return in, nil
}

// CreateFrom answers POST /tasks and MCP's create_task: the request checked, then the task
// created.
func (s *Service) CreateFrom(ctx context.Context, p *auth.Principal, req CreateRequest) (View, error) {
	in, err := req.parse()
	if err != nil {
		return View{}, err
	}
	return s.Create(ctx, p, in)
}

// PatchRequest is PATCH /tasks/:id's body; MCP's update_task fills it from its arguments.
type PatchRequest = patchRequest

// parse reads a PATCH: the notes, then the dates (Update checks the other fields).
func (req patchRequest) parse() (Patch, error) {
	var patch Patch
	if req.Title.Present {
		patch.Title = &req.Title.Value
	}
	if req.Notes.Present {
		notes, err := parseNotes(req.Notes)
		if err != nil {
			return Patch{}, err
		}
		patch.Notes = &notes
	}
	if req.Status.Present {
		patch.Status = &req.Status.Value
	}
	if req.Priority.Present {
		patch.Priority = &req.Priority.Value
	}
	var err error
	if patch.DueAt, patch.TargetAt, patch.FollowUpAt, err = dates(req.DueAt, req.TargetAt, req.FollowUpAt); err != nil {
		return Patch{}, err
	}
	if req.Archived.Present {
		patch.Archived = &req.Archived.Value
	}
	if req.NotebookID.Present {
		patch.NotebookID = &req.NotebookID.Value
	}
	return patch, nil
}

// UpdateFrom answers PATCH /tasks/:id and MCP's update_task: the request read, then the task
// updated (Update, which checks the fields).
func (s *Service) UpdateFrom(ctx context.Context, p *auth.Principal, id string, req PatchRequest, ifMatch etag.IfMatch) (View, error) {
	patch, err := req.parse()
	if err != nil {
		return View{}, err
	}
	return s.Update(ctx, p, id, patch, ifMatch)
}

// parseNotes validates optional, nullable task notes: absent or null is empty.
func parseNotes(o httpx.Optional[string]) (document.Parsed, error) {
	if !o.Present || o.Null {
		return document.Parse("notes", "")
	}
	return document.Parse("notes", o.Value)
}

// dates reads the three optional, nullable dates of a request.
func dates(due, target, followUp httpx.Optional[string]) (d, t, f **time.Time, err error) {
	if d, err = httpx.OptionalDate("dueAt", due); err != nil {
		return
	}
	if t, err = httpx.OptionalDate("targetAt", target); err != nil {
		return
	}
	f, err = httpx.OptionalDate("followUpAt", followUp)
	return
}
