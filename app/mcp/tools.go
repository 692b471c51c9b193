package mcp

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/modules/content"
	"folio/modules/items"
	"folio/modules/notebooks"
	"folio/modules/notes"
	"folio/modules/search"
	"folio/modules/suggestions"
	"folio/modules/tasks"
	"folio/modules/versions"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/httpx"
	"folio/platform/markdown"
	"folio/platform/paginate"
)

// The services the tools call, each narrowed to what the tools use. module.go binds them to the
// modules' services, which hold every rule: who may see or write what (scope, key restriction,
// membership), validation, limits, audit entries and events. A tool only reads its arguments and
// writes the service's answer as the API does.
type (
	// Notes is the notes module's service.
	Notes interface {
		Get(ctx context.Context, p *auth.Principal, id string) (notes.View, error)
		List(ctx context.Context, p *auth.Principal, f notes.Filter, page paginate.Params) ([]notes.View, *string, error)
		Create(ctx context.Context, p *auth.Principal, in notes.NewNote) (notes.View, error)
	}
	// Tasks is the tasks module's service.
	Tasks interface {
		List(ctx context.Context, p *auth.Principal, f tasks.Filter, page paginate.Params) ([]tasks.View, *string, error)
		Create(ctx context.Context, p *auth.Principal, in tasks.NewTask) (tasks.View, error)
		Update(ctx context.Context, p *auth.Principal, id string, patch tasks.Patch, ifMatch etag.IfMatch) (tasks.View, error)
	}
	// History is the versions module's reader of an item's versions.
	History interface {
		List(ctx context.Context, p *auth.Principal, kind, id string, page paginate.Params) ([]versions.Snapshot, *string, error)
	}
	// Notebooks is the notebooks module's service.
	Notebooks interface {
		List(ctx context.Context, p *auth.Principal, page paginate.Params) ([]notebooks.Notebook, *string, error)
	}
	// Suggestions is the suggestions module's service.
	Suggestions interface {
		Suggest(ctx context.Context, p *auth.Principal, kind, itemID string, doc markdown.Doc, rationale string) (suggestions.Suggestion, error)
		Inbox(ctx context.Context, p *auth.Principal, f suggestions.InboxFilter, page paginate.Params) ([]suggestions.InboxEntry, *string, error)
	}
)

// tools holds the services the tools call.
type tools struct {
	notes       Notes
	tasks       Tasks
	notebooks   Notebooks
	suggestions Suggestions
	history     History
	pending     content.Pending // nil without the suggestions module
}

// specs lists every tool with the scope it needs: reading tools scope 1, writing tools scope 2.
func (t *tools) specs() []spec {
	return []spec{
		tool(auth.ScopeRead, &sdk.Tool{
			Name:  "search_notes",
			Title: "Search notes",
			Description: "Find the notes the user can see, newest first: each note's Markdown content, tags (#tags and @people), " +
				"dates and ids. q finds words anywhere in the text (each word matches the start of a word, case and accents ignored; " +
				"all words must match; \"a phrase\" in double quotes matches consecutive words). tag and person keep the notes " +
				"carrying that #tag or mentioning that @person (name without # or @). Narrow to one notebook with notebookId (ids " +
				"come from list_notebooks); archived notes are listed only with archived=true. All filters combine. Results come in " +
				"pages: pass the previous answer's nextCursor as cursor to get the next page (nextCursor null: there is none).",
			InputSchema: inputSchema[searchNotesInput](pageBounds),
			Annotations: readOnly,
		}, t.searchNotes),
		tool(auth.ScopeRead, &sdk.Tool{
			Name:  "get_note",
			Title: "Read a note",
			Description: "Read one note by id: its Markdown content, tags, dates, and pendingSuggestion, the proposed new content " +
				"waiting for the owner's review (null when there is none). Read a note before proposing a change to it. " +
				"The same note is the resource folio://notes/{id} (text/markdown).",
			Annotations: readOnly,
		}, t.getNote),
		tool(auth.ScopeRead, &sdk.Tool{
			Name:  "list_notebooks",
			Title: "List notebooks",
			Description: "List the notebooks the user can see (personal ones, and those of the workspaces the user belongs to), " +
				"newest first, with the ids the other tools take as notebookId. Pages as search_notes does.",
			InputSchema: inputSchema[pageInput](pageBounds),
			Annotations: readOnly,
		}, t.listNotebooks),
		tool(auth.ScopeRead, &sdk.Tool{
			Name:  "list_tasks",
			Title: "List tasks",
			Description: "List the tasks the user can see, newest first: title, Markdown notes, status, priority, due, target and " +
				"follow-up dates, tags and ids. Narrow with notebookId and status; archived tasks are listed only with archived=true. " +
				"Pages as search_notes does.",
			InputSchema: inputSchema[listTasksInput](func(props map[string]*jsonschema.Schema) {
				pageBounds(props)
				oneOf(props["status"], tasks.Statuses)
			}),
			Annotations: readOnly,
		}, t.listTasks),
		tool(auth.ScopeRead, &sdk.Tool{
			Name:  "list_suggestions",
			Title: "List suggestions (the review inbox)",
			Description: "List the proposed changes (suggestions) on every note and task the user can see, newest first: the " +
				"proposed and the original Markdown, the rationale, the item (itemKind, itemId, notebookId), and stale, true when " +
				"the item changed since the proposal was made. status is PENDING by default (waiting for review); APPROVED, " +
				"REJECTED and SUPERSEDED show decided ones. Narrow with itemKind (note or task) and notebookId. Pages as " +
				"search_notes does.",
			InputSchema: inputSchema[listSuggestionsInput](func(props map[string]*jsonschema.Schema) {
				pageBounds(props)
				oneOf(props["status"], []string{suggestions.StatusPending, suggestions.StatusApproved, suggestions.StatusRejected, suggestions.StatusSuperseded})
				oneOf(props["itemKind"], []string{notes.ItemKind, tasks.ItemKind})
			}),
			Annotations: readOnly,
		}, t.listSuggestions),
		tool(auth.ScopeRead, &sdk.Tool{
			Name:  "get_history",
			Title: "List an item's earlier versions",
			Description: "List the earlier contents of a note or a task (itemKind note or task, id), newest first: each version's " +
				"id, reason (what replaced it: update, suggestion or restore), when, and the API key that did (null: the owner in " +
				"the web UI). Nothing is ever lost: every replaced content is a version. Pages as search_notes does.",
			InputSchema: inputSchema[historyInput](func(props map[string]*jsonschema.Schema) {
				pageBounds(props)
				oneOf(props["itemKind"], []string{notes.ItemKind, tasks.ItemKind})
			}),
			Annotations: readOnly,
		}, t.getHistory),
		tool(auth.ScopeWrite, &sdk.Tool{
			Name:  "create_note",
			Title: "Create a note",
			Description: "Create a new note in a notebook. content is Markdown; #tag and @person mentions in it become the note's " +
				"tags; a line \"> **Decision:** text\" records a decision (hasDecision), \"> **Why:** text\" a reason. Only for a " +
				"new note: to change an existing note, use propose_note_change.",
			Annotations: additive,
		}, t.createNote),
		tool(auth.ScopeWrite, &sdk.Tool{
			Name:  "propose_note_change",
			Title: "Propose new content for a note",
			Description: "Propose new content for an existing note. The note does not change: the proposal waits for the owner, " +
				"who approves it (the note then gets this content, and its previous content is kept as a version) or rejects it. " +
				"A newer proposal for the same note replaces a pending one. content is the complete new Markdown of the note, " +
				"not a diff: read the note with get_note first. rationale tells the owner why (optional, up to 2,000 characters). " +
				"Returns the suggestion, status PENDING.",
			Annotations: additive,
		}, t.proposeNoteChange),
		tool(auth.ScopeWrite, &sdk.Tool{
			Name:  "create_task",
			Title: "Create a task",
			Description: "Create a task in a notebook: a title (1 to 500 characters), and optionally Markdown notes, a status " +
				"(default TODO), a priority (default MEDIUM) and due, target and follow-up dates.",
			InputSchema: inputSchema[createTaskInput](func(props map[string]*jsonschema.Schema) {
				oneOf(props["status"], tasks.Statuses)
				oneOf(props["priority"], tasks.Priorities)
			}),
			Annotations: additive,
		}, t.createTask),
		tool(auth.ScopeWrite, &sdk.Tool{
			Name:  "update_task",
			Title: "Update a task's status, priority or dates",
			Description: "Change a task's status, priority or dates. An argument left out keeps its value; an empty string " +
				"clears a date. A task's notes cannot be changed here: propose new notes with propose_task_change.",
			InputSchema: inputSchema[updateTaskInput](func(props map[string]*jsonschema.Schema) {
				oneOf(props["status"], tasks.Statuses)
				oneOf(props["priority"], tasks.Priorities)
			}),
			Annotations: &sdk.ToolAnnotations{IdempotentHint: true, OpenWorldHint: boolPtr(false)},
		}, t.updateTask),
		tool(auth.ScopeWrite, &sdk.Tool{
			Name:  "propose_task_change",
			Title: "Propose new notes for a task",
			Description: "Propose new Markdown notes for an existing task. The task does not change: the proposal waits for the " +
				"owner, who approves or rejects it; a newer proposal for the same task replaces a pending one. notes is the " +
				"complete new text, not a diff. rationale tells the owner why (optional, up to 2,000 characters). Returns the " +
				"suggestion, status PENDING.",
			Annotations: additive,
		}, t.proposeTaskChange),
	}
}

// Annotations: reads change nothing; creates and proposals only add (nothing is overwritten).
var (
	readOnly = &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: boolPtr(false)}
	additive = &sdk.ToolAnnotations{DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false)}
)

// pageInput is the page of a list, as the API's limit and cursor query parameters.
type pageInput struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"how many to return, 1 to 100 (more is read as 100); default 20"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the nextCursor of the previous page, to get the page after it; omit for the first page"`
}

// pageBounds adds limit's lower bound to a list's input schema.
func pageBounds(props map[string]*jsonschema.Schema) { atLeastOne(props["limit"]) }

// params validates the page exactly as the API validates the query (paginate.Parse).
func (in pageInput) params() (paginate.Params, error) {
	return paginate.Parse(strconv.Itoa(in.Limit), in.Limit != 0, in.Cursor, false)
}

// list calls a service's list and answers with the API's page: {data, nextCursor}.
func list[V, R any](page pageInput, rows func(paginate.Params) ([]V, *string, error), toResponse func(V) (R, error)) (paginate.Page[R], error) {
	params, err := page.params()
	if err != nil {
		return paginate.Page[R]{}, err
	}
	views, next, err := rows(params)
	if err != nil {
		return paginate.Page[R]{}, err
	}
	out := paginate.Page[R]{Data: make([]R, len(views)), NextCursor: next}
	for i, v := range views {
		if out.Data[i], err = toResponse(v); err != nil {
			return paginate.Page[R]{}, err
		}
	}
	return out, nil
}

type searchNotesInput struct {
	Q          string `json:"q,omitempty" jsonschema:"words to find in the notes' text (up to 200 characters)"`
	Tag        string `json:"tag,omitempty" jsonschema:"only notes with this #tag (the name without #)"`
	Person     string `json:"person,omitempty" jsonschema:"only notes that mention this @person (the name without @)"`
	NotebookID string `json:"notebookId,omitempty" jsonschema:"only notes of this notebook"`
	Archived   bool   `json:"archived,omitempty" jsonschema:"true lists archived notes only; default false, the active ones"`
	pageInput
}

// filter is the notes list's filter, as GET /notes reads it from its query (q, tag, person,
// notebookId, archived).
func (in searchNotesInput) filter() (notes.Filter, error) {
	f := notes.Filter{Archived: in.Archived}
	if in.NotebookID != "" {
		f.NotebookID = &in.NotebookID
	}
	if in.Q != "" {
		q, err := search.Parse(in.Q)
		if err != nil {
			return notes.Filter{}, err
		}
		f.Text = &q
	}
	if name := strings.TrimPrefix(in.Tag, "#"); name != "" {
		f.Tags = []string{name}
	}
	if name := strings.TrimPrefix(in.Person, "@"); name != "" {
		f.People = []string{name}
	}
	return f, nil
}

func (t *tools) searchNotes(ctx context.Context, p *auth.Principal, in searchNotesInput) (paginate.Page[notes.Response], error) {
	f, err := in.filter()
	if err != nil {
		return paginate.Page[notes.Response]{}, err
	}
	return list(in.pageInput, func(page paginate.Params) ([]notes.View, *string, error) {
		return t.notes.List(ctx, p, f, page)
	}, notes.ToResponse)
}

type idInput struct {
	ID string `json:"id" jsonschema:"the note's id"`
}

// noteWithPending is a note as GET /notes/:id answers it.
type noteWithPending struct {
	notes.Response
	PendingSuggestion *content.Suggestion `json:"pendingSuggestion" jsonschema:"the proposed new content waiting for review, or null"`
}

func (t *tools) getNote(ctx context.Context, p *auth.Principal, in idInput) (noteWithPending, error) {
	v, err := t.notes.Get(ctx, p, in.ID)
	if err != nil {
		return noteWithPending{}, err
	}
	resp, err := notes.ToResponse(v)
	if err != nil {
		return noteWithPending{}, err
	}
	out := noteWithPending{Response: resp}
	if t.pending != nil {
		if out.PendingSuggestion, err = t.pending.PendingFor(ctx, notes.ItemKind, v.Item.ID); err != nil {
			return noteWithPending{}, err
		}
	}
	return out, nil
}

func (t *tools) listNotebooks(ctx context.Context, p *auth.Principal, in pageInput) (paginate.Page[notebooks.Response], error) {
	return list(in, func(page paginate.Params) ([]notebooks.Notebook, *string, error) {
		return t.notebooks.List(ctx, p, page)
	}, httpx.Infallible(notebooks.ToResponse))
}

type listTasksInput struct {
	NotebookID string `json:"notebookId,omitempty" jsonschema:"only tasks of this notebook"`
	Status     string `json:"status,omitempty" jsonschema:"only tasks with this status"`
	Archived   bool   `json:"archived,omitempty" jsonschema:"true lists archived tasks only; default false, the active ones"`
	pageInput
}

func (t *tools) listTasks(ctx context.Context, p *auth.Principal, in listTasksInput) (paginate.Page[tasks.Response], error) {
	f := tasks.Filter{ListFilter: items.ListFilter{Archived: in.Archived}}
	if in.NotebookID != "" {
		f.NotebookID = &in.NotebookID
	}
	if in.Status != "" {
		f.Status = &in.Status
	}
	return list(in.pageInput, func(page paginate.Params) ([]tasks.View, *string, error) {
		return t.tasks.List(ctx, p, f, page)
	}, tasks.ToResponse)
}

type createNoteInput struct {
	NotebookID string `json:"notebookId" jsonschema:"the notebook to create the note in (from list_notebooks)"`
	Content    string `json:"content" jsonschema:"the note's Markdown"`
	TargetAt   string `json:"targetAt,omitempty" jsonschema:"when the note is to be acted on: a date, YYYY-MM-DD, or an RFC 3339 date-time"`
	FollowUpAt string `json:"followUpAt,omitempty" jsonschema:"when to follow up: a date, YYYY-MM-DD, or an RFC 3339 date-time"`
}

func (t *tools) createNote(ctx context.Context, p *auth.Principal, in createNoteInput) (notes.Response, error) {
	doc, err := content.Parse("content", in.Content)
	if err != nil {
		return notes.Response{}, err
	}
	n := notes.NewNote{Content: doc, NotebookID: in.NotebookID}
	if n.TargetAt, err = date("targetAt", in.TargetAt); err != nil {
		return notes.Response{}, err
	}
	if n.FollowUpAt, err = date("followUpAt", in.FollowUpAt); err != nil {
		return notes.Response{}, err
	}
	v, err := t.notes.Create(ctx, p, n)
	if err != nil {
		return notes.Response{}, err
	}
	return notes.ToResponse(v)
}

// date reads an optional date argument of a create ("" is absent) as the API reads the field.
func date(field, s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	d, err := httpx.ParseDate(field, s)
	return &d, err
}

// dateChange reads a date argument of update_task: absent keeps the date, "" clears it.
func dateChange(field string, s *string) (**time.Time, error) {
	if s == nil {
		return nil, nil
	}
	return httpx.OptionalDate(field, httpx.Optional[string]{Present: true, Null: *s == "", Value: *s})
}

type proposeNoteInput struct {
	ID        string `json:"id" jsonschema:"the note's id"`
	Content   string `json:"content" jsonschema:"the complete new Markdown of the note"`
	Rationale string `json:"rationale,omitempty" jsonschema:"why, for the owner who reviews it (up to 2,000 characters)"`
}

func (t *tools) proposeNoteChange(ctx context.Context, p *auth.Principal, in proposeNoteInput) (content.Suggestion, error) {
	return t.propose(ctx, p, notes.ItemKind, in.ID, "content", in.Content, in.Rationale)
}

type proposeTaskInput struct {
	ID        string `json:"id" jsonschema:"the task's id"`
	Notes     string `json:"notes" jsonschema:"the complete new Markdown notes of the task"`
	Rationale string `json:"rationale,omitempty" jsonschema:"why, for the owner who reviews it (up to 2,000 characters)"`
}

func (t *tools) proposeTaskChange(ctx context.Context, p *auth.Principal, in proposeTaskInput) (content.Suggestion, error) {
	return t.propose(ctx, p, tasks.ItemKind, in.ID, "notes", in.Notes, in.Rationale)
}

// propose records a suggestion as POST /<kind>s/:id/suggest does: the rationale, then the
// Markdown (field names the argument), then the service.
func (t *tools) propose(ctx context.Context, p *auth.Principal, kind, id, field, text, rationale string) (content.Suggestion, error) {
	if err := suggestions.ValidateRationale(rationale); err != nil {
		return content.Suggestion{}, err
	}
	doc, err := content.Parse(field, text)
	if err != nil {
		return content.Suggestion{}, err
	}
	sg, err := t.suggestions.Suggest(ctx, p, kind, id, doc, rationale)
	if err != nil {
		return content.Suggestion{}, err
	}
	return suggestions.ToResponse(sg)
}

type createTaskInput struct {
	NotebookID string `json:"notebookId" jsonschema:"the notebook to create the task in (from list_notebooks)"`
	Title      string `json:"title" jsonschema:"the task's title, 1 to 500 characters"`
	Notes      string `json:"notes,omitempty" jsonschema:"the task's Markdown notes"`
	Status     string `json:"status,omitempty" jsonschema:"default TODO"`
	Priority   string `json:"priority,omitempty" jsonschema:"default MEDIUM"`
	DueAt      string `json:"dueAt,omitempty" jsonschema:"when it is due: a date, YYYY-MM-DD, or an RFC 3339 date-time"`
	TargetAt   string `json:"targetAt,omitempty" jsonschema:"when to work on it: a date, YYYY-MM-DD, or an RFC 3339 date-time"`
	FollowUpAt string `json:"followUpAt,omitempty" jsonschema:"when to follow up: a date, YYYY-MM-DD, or an RFC 3339 date-time"`
}

func (t *tools) createTask(ctx context.Context, p *auth.Principal, in createTaskInput) (tasks.Response, error) {
	n := tasks.NewTask{Title: in.Title, NotebookID: in.NotebookID, Status: in.Status, Priority: in.Priority}
	if err := n.Validate(); err != nil {
		return tasks.Response{}, err
	}
	var err error
	if n.Notes, err = content.Parse("notes", in.Notes); err != nil {
		return tasks.Response{}, err
	}
	if n.DueAt, err = date("dueAt", in.DueAt); err != nil {
		return tasks.Response{}, err
	}
	if n.TargetAt, err = date("targetAt", in.TargetAt); err != nil {
		return tasks.Response{}, err
	}
	if n.FollowUpAt, err = date("followUpAt", in.FollowUpAt); err != nil {
		return tasks.Response{}, err
	}
	v, err := t.tasks.Create(ctx, p, n)
	if err != nil {
		return tasks.Response{}, err
	}
	return tasks.ToResponse(v)
}

type updateTaskInput struct {
	ID         string  `json:"id" jsonschema:"the task's id"`
	Status     string  `json:"status,omitempty" jsonschema:"the new status; omit to keep it"`
	Priority   string  `json:"priority,omitempty" jsonschema:"the new priority; omit to keep it"`
	DueAt      *string `json:"dueAt,omitempty" jsonschema:"the new due date (a date, YYYY-MM-DD, or an RFC 3339 date-time); an empty string clears it; omit to keep it"`
	TargetAt   *string `json:"targetAt,omitempty" jsonschema:"the new target date; an empty string clears it; omit to keep it"`
	FollowUpAt *string `json:"followUpAt,omitempty" jsonschema:"the new follow-up date; an empty string clears it; omit to keep it"`
}

func (t *tools) updateTask(ctx context.Context, p *auth.Principal, in updateTaskInput) (tasks.Response, error) {
	var patch tasks.Patch
	if in.Status != "" {
		patch.Status = &in.Status
	}
	if in.Priority != "" {
		patch.Priority = &in.Priority
	}
	var err error
	if patch.DueAt, err = dateChange("dueAt", in.DueAt); err != nil {
		return tasks.Response{}, err
	}
	if patch.TargetAt, err = dateChange("targetAt", in.TargetAt); err != nil {
		return tasks.Response{}, err
	}
	if patch.FollowUpAt, err = dateChange("followUpAt", in.FollowUpAt); err != nil {
		return tasks.Response{}, err
	}
	// No If-Match: an assistant changes a task's fields as a PATCH without the header does.
	v, err := t.tasks.Update(ctx, p, in.ID, patch, etag.IfMatch{})
	if err != nil {
		return tasks.Response{}, err
	}
	return tasks.ToResponse(v)
}

// noteTemplate is the note resources: a note's Markdown at folio://notes/{id}.
var noteTemplate = &sdk.ResourceTemplate{
	Name:        "note",
	Title:       "Note",
	URITemplate: noteURIPrefix + "{id}",
	MIMEType:    "text/markdown",
	Description: "A folio note's Markdown content, by the note's id (the id of search_notes and get_note).",
}

const noteURIPrefix = "folio://notes/"

func (t *tools) readNote(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	cl, ok := callerFrom(ctx)
	if !ok {
		return nil, cl.resourceError(errNoCaller)
	}
	uri := req.Params.URI
	text, err := recovered(cl, func() (string, error) {
		id, _ := strings.CutPrefix(uri, noteURIPrefix)
		v, err := t.notes.Get(ctx, cl.principal, id)
		if err != nil {
			return "", err
		}
		resp, err := notes.ToResponse(v)
		return resp.Content, err
	})
	if err != nil {
		return nil, cl.resourceError(err)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}, nil
}

type listSuggestionsInput struct {
	Status     string `json:"status,omitempty" jsonschema:"PENDING (the default), APPROVED, REJECTED or SUPERSEDED"`
	ItemKind   string `json:"itemKind,omitempty" jsonschema:"note or task; omit for both"`
	NotebookID string `json:"notebookId,omitempty" jsonschema:"only suggestions of items in this notebook"`
	pageInput
}

// listSuggestions is GET /suggestions: the filters are read and checked as the API reads its query.
func (t *tools) listSuggestions(ctx context.Context, p *auth.Principal, in listSuggestionsInput) (paginate.Page[suggestions.InboxItem], error) {
	f := suggestions.InboxFilter{Status: suggestions.StatusPending}
	if in.Status != "" {
		status, err := suggestions.ParseInboxStatus(in.Status)
		if err != nil {
			return paginate.Page[suggestions.InboxItem]{}, err
		}
		f.Status = status
	}
	if in.ItemKind != "" {
		if in.ItemKind != notes.ItemKind && in.ItemKind != tasks.ItemKind {
			return paginate.Page[suggestions.InboxItem]{}, apierr.Validation(`argument "itemKind" must be note or task`)
		}
		f.ItemKind = &in.ItemKind
	}
	if in.NotebookID != "" {
		f.NotebookID = &in.NotebookID
	}
	return list(in.pageInput, func(page paginate.Params) ([]suggestions.InboxEntry, *string, error) {
		return t.suggestions.Inbox(ctx, p, f, page)
	}, suggestions.ToInboxItem)
}

type historyInput struct {
	ItemKind string `json:"itemKind" jsonschema:"note or task"`
	ID       string `json:"id" jsonschema:"the note's or task's id"`
	pageInput
}

// getHistory is GET /<kind>s/:id/versions.
func (t *tools) getHistory(ctx context.Context, p *auth.Principal, in historyInput) (paginate.Page[versions.VersionResponse], error) {
	return list(in.pageInput, func(page paginate.Params) ([]versions.Snapshot, *string, error) {
		return t.history.List(ctx, p, in.ItemKind, in.ID, page)
	}, httpx.Infallible(versions.ToResponse))
}
