package mcp

import (
	"context"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/modules/focus"
	"folio/modules/notebooks"
	"folio/modules/notes"
	"folio/modules/suggestions"
	"folio/modules/tasks"
	"folio/modules/versions"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/httpx"
	"folio/platform/paginate"
)

// The modules' use cases the tools call, each narrowed to what the tools use. module.go binds
// them to the modules' services, which hold every rule: what a request means (the same function
// answers the API's request), who may see or write what (scope, key restriction, membership),
// validation, limits, audit entries and events. A tool only turns its arguments into the
// module's request and returns the module's answer, which is the API's body.
type (
	// Notes is the notes module's service.
	Notes interface {
		Search(ctx context.Context, p *auth.Principal, q notes.ListQuery) (paginate.Page[notes.Response], error)
		Get(ctx context.Context, p *auth.Principal, id string) (notes.View, error)
		CreateFrom(ctx context.Context, p *auth.Principal, req notes.CreateRequest) (notes.View, error)
	}
	// NoteViewer is the notes module's "a note with its pending suggestion".
	NoteViewer interface {
		Get(ctx context.Context, p *auth.Principal, id string) (notes.WithPending, error)
	}
	// Tasks is the tasks module's service.
	Tasks interface {
		Search(ctx context.Context, p *auth.Principal, q tasks.ListQuery) (paginate.Page[tasks.Response], error)
		CreateFrom(ctx context.Context, p *auth.Principal, req tasks.CreateRequest) (tasks.View, error)
		UpdateFrom(ctx context.Context, p *auth.Principal, id string, req tasks.PatchRequest, ifMatch etag.IfMatch) (tasks.View, error)
	}
	// History is the versions module's reader of an item's versions.
	History interface {
		ListPage(ctx context.Context, p *auth.Principal, kind, id string, q paginate.Query) (paginate.Page[versions.VersionResponse], error)
	}
	// Notebooks is the notebooks module's service.
	Notebooks interface {
		ListPage(ctx context.Context, p *auth.Principal, q paginate.Query) (paginate.Page[notebooks.Response], error)
	}
	// Suggestions is the suggestions module's service.
	Suggestions interface {
		Propose(ctx context.Context, p *auth.Principal, kind, id, field, text, rationale string) (suggestions.Suggestion, error)
		SearchInbox(ctx context.Context, p *auth.Principal, q suggestions.InboxQuery) (paginate.Page[suggestions.InboxItem], error)
		FindDetail(ctx context.Context, p *auth.Principal, id string) (suggestions.Detail, error)
	}
	// Focus is the focus module's service.
	Focus interface {
		Focus(ctx context.Context, p *auth.Principal, q focus.Query) (focus.Response, error)
	}
)

// tools holds the use cases the tools call.
type tools struct {
	notes       Notes
	viewer      NoteViewer
	tasks       Tasks
	notebooks   Notebooks
	suggestions Suggestions
	history     History
	focus       Focus
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
				"proposed and the original Markdown, the rationale, the item (itemKind, itemId, notebookId), stale, true when " +
				"the item changed since the proposal was made, and mergeable, false when those changes overlap the proposal's " +
				"(approving it all would then be refused: read it with get_suggestion). status is PENDING by default (waiting for review); APPROVED, " +
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
			Name:  "get_suggestion",
			Title: "Read a suggestion and what approving it would change",
			Description: "Read one suggestion by id (ids come from list_suggestions or a proposal), with what approving it " +
				"would do to the item's content as it is now: hunks, each {index, removed, added, line} (lines of Markdown; line " +
				"is where it applies, 1-based). When the item changed since the proposal (stale), its changes are merged with " +
				"those changes; mergeable is false when they overlap, and hunks then leave the overlapping changes out. To " +
				"propose again against the current text, read the item (get_note) and propose its complete new content. Also " +
				"diff, a unified diff from the current content to the proposal.",
			Annotations: readOnly,
		}, t.getSuggestion),
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
		tool(auth.ScopeRead, &sdk.Tool{
			Name:  "get_focus",
			Title: "What needs attention on a day",
			Description: "The user's Focus view of a day, among the notes and tasks the user can see: targeted, the items whose " +
				"targetAt falls on the day (by targetAt); followUps, the items whose followUpAt is before the end of the day, " +
				"however long ago (oldest first); due, the tasks whose dueAt is before the end of the day (oldest first). " +
				"Archived items and DONE tasks are left out. Each list holds at most 100 items; targetedMore, followUpsMore " +
				"and dueMore are true when a list was cut. date is the day, YYYY-MM-DD (default today in tz); tz is an IANA " +
				"time zone name such as Europe/Berlin (default UTC), in which the day begins and ends.",
			InputSchema:  inputSchema[focusInput](func(map[string]*jsonschema.Schema) {}),
			OutputSchema: focusOutput(),
			Annotations:  readOnly,
		}, t.getFocus),
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
				"Returns the suggestion, status PENDING, and mergeable (true when made; get_suggestion tells it again later).",
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
			Description: "Change a task's status, priority or dates. An argument left out keeps its value; null or an empty " +
				"string clears a date. A task's notes cannot be changed here: propose new notes with propose_task_change.",
			InputSchema: inputSchema[updateTaskInput](func(props map[string]*jsonschema.Schema) {
				oneOf(props["status"], tasks.Statuses)
				oneOf(props["priority"], tasks.Priorities)
				props["dueAt"] = dateArgSchema("the new due date (a date, YYYY-MM-DD, or an RFC 3339 date-time); null or an empty string clears it; omit to keep it")
				props["targetAt"] = dateArgSchema("the new target date; null or an empty string clears it; omit to keep it")
				props["followUpAt"] = dateArgSchema("the new follow-up date; null or an empty string clears it; omit to keep it")
			}),
			Annotations: &sdk.ToolAnnotations{IdempotentHint: true, OpenWorldHint: boolPtr(false)},
		}, t.updateTask),
		tool(auth.ScopeWrite, &sdk.Tool{
			Name:  "propose_task_change",
			Title: "Propose new notes for a task",
			Description: "Propose new Markdown notes for an existing task. The task does not change: the proposal waits for the " +
				"owner, who approves or rejects it; a newer proposal for the same task replaces a pending one. notes is the " +
				"complete new text, not a diff. rationale tells the owner why (optional, up to 2,000 characters). Returns the " +
				"suggestion, status PENDING, and mergeable (true when made; get_suggestion tells it again later).",
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

// query is the page as the API's limit and cursor query parameters give it (limit 0: absent).
func (in pageInput) query() paginate.Query {
	q := paginate.Query{Cursor: in.Cursor}
	if in.Limit != 0 {
		limit := strconv.Itoa(in.Limit)
		q.Limit = &limit
	}
	return q
}

// given is an optional string argument as the API's optional body field: "" is absent.
func given(s string) httpx.Optional[string] {
	return httpx.Optional[string]{Present: s != "", Value: s}
}

// clearing is a date argument of update_task as the PATCH request's field: absent keeps the
// date, null clears it (CONTRACT.md section 25), and so does "" (as before).
func clearing(o httpx.Optional[string]) httpx.Optional[string] {
	o.Null = o.Null || (o.Present && o.Value == "")
	return o
}

// dateArgSchema is a date argument's schema: a string or null.
func dateArgSchema(description string) *jsonschema.Schema {
	return &jsonschema.Schema{Types: []string{"null", "string"}, Description: description}
}

// flag is a boolean argument as the API's query parameter: false is absent (the default).
func flag(b bool) *string {
	if !b {
		return nil
	}
	v := strconv.FormatBool(b)
	return &v
}

type searchNotesInput struct {
	Q          string `json:"q,omitempty" jsonschema:"words to find in the notes' text (up to 200 characters)"`
	Tag        string `json:"tag,omitempty" jsonschema:"only notes with this #tag (the name without #)"`
	Person     string `json:"person,omitempty" jsonschema:"only notes that mention this @person (the name without @)"`
	NotebookID string `json:"notebookId,omitempty" jsonschema:"only notes of this notebook"`
	Archived   bool   `json:"archived,omitempty" jsonschema:"true lists archived notes only; default false, the active ones"`
	pageInput
}

// searchNotes is GET /notes?q=&tag=&person=&notebookId=&archived=&limit=&cursor=.
func (t *tools) searchNotes(ctx context.Context, p *auth.Principal, in searchNotesInput) (paginate.Page[notes.Response], error) {
	var q notes.ListQuery
	q.Query, q.Archived, q.NotebookID, q.Q = in.query(), flag(in.Archived), in.NotebookID, in.Q
	q.Tags, q.People = []string{in.Tag}, []string{in.Person}
	return t.notes.Search(ctx, p, q)
}

type idInput struct {
	ID string `json:"id" jsonschema:"the note's id"`
}

// getNote is GET /notes/:id.
func (t *tools) getNote(ctx context.Context, p *auth.Principal, in idInput) (notes.WithPending, error) {
	return t.viewer.Get(ctx, p, in.ID)
}

// listNotebooks is GET /notebooks.
func (t *tools) listNotebooks(ctx context.Context, p *auth.Principal, in pageInput) (paginate.Page[notebooks.Response], error) {
	return t.notebooks.ListPage(ctx, p, in.query())
}

type listTasksInput struct {
	NotebookID string `json:"notebookId,omitempty" jsonschema:"only tasks of this notebook"`
	Status     string `json:"status,omitempty" jsonschema:"only tasks with this status"`
	Archived   bool   `json:"archived,omitempty" jsonschema:"true lists archived tasks only; default false, the active ones"`
	pageInput
}

// listTasks is GET /tasks?notebookId=&status=&archived=&limit=&cursor=.
func (t *tools) listTasks(ctx context.Context, p *auth.Principal, in listTasksInput) (paginate.Page[tasks.Response], error) {
	var q tasks.ListQuery
	q.Query, q.Archived, q.NotebookID = in.query(), flag(in.Archived), in.NotebookID
	if in.Status != "" {
		q.Status = &in.Status
	}
	return t.tasks.Search(ctx, p, q)
}

type createNoteInput struct {
	NotebookID string `json:"notebookId" jsonschema:"the notebook to create the note in (from list_notebooks)"`
	Content    string `json:"content" jsonschema:"the note's Markdown"`
	TargetAt   string `json:"targetAt,omitempty" jsonschema:"when the note is to be acted on: a date, YYYY-MM-DD, or an RFC 3339 date-time"`
	FollowUpAt string `json:"followUpAt,omitempty" jsonschema:"when to follow up: a date, YYYY-MM-DD, or an RFC 3339 date-time"`
}

// createNote is POST /notes.
func (t *tools) createNote(ctx context.Context, p *auth.Principal, in createNoteInput) (notes.Response, error) {
	v, err := t.notes.CreateFrom(ctx, p, notes.CreateRequest{
		NotebookID: in.NotebookID, Content: in.Content, TargetAt: given(in.TargetAt), FollowUpAt: given(in.FollowUpAt),
	})
	if err != nil {
		return notes.Response{}, err
	}
	return notes.ToResponse(v)
}

type proposeNoteInput struct {
	ID        string `json:"id" jsonschema:"the note's id"`
	Content   string `json:"content" jsonschema:"the complete new Markdown of the note"`
	Rationale string `json:"rationale,omitempty" jsonschema:"why, for the owner who reviews it (up to 2,000 characters)"`
}

// proposeNoteChange is POST /notes/:id/suggest.
func (t *tools) proposeNoteChange(ctx context.Context, p *auth.Principal, in proposeNoteInput) (suggestions.Response, error) {
	return t.propose(ctx, p, notes.ItemKind, in.ID, "content", in.Content, in.Rationale)
}

type proposeTaskInput struct {
	ID        string `json:"id" jsonschema:"the task's id"`
	Notes     string `json:"notes" jsonschema:"the complete new Markdown notes of the task"`
	Rationale string `json:"rationale,omitempty" jsonschema:"why, for the owner who reviews it (up to 2,000 characters)"`
}

// proposeTaskChange is POST /tasks/:id/suggest, its Markdown given as notes.
func (t *tools) proposeTaskChange(ctx context.Context, p *auth.Principal, in proposeTaskInput) (suggestions.Response, error) {
	return t.propose(ctx, p, tasks.ItemKind, in.ID, "notes", in.Notes, in.Rationale)
}

// propose records a suggestion as POST /<kind>s/:id/suggest does; field names the Markdown's
// argument in errors.
func (t *tools) propose(ctx context.Context, p *auth.Principal, kind, id, field, text, rationale string) (suggestions.Response, error) {
	sg, err := t.suggestions.Propose(ctx, p, kind, id, field, text, rationale)
	if err != nil {
		return suggestions.Response{}, err
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

// createTask is POST /tasks.
func (t *tools) createTask(ctx context.Context, p *auth.Principal, in createTaskInput) (tasks.Response, error) {
	req := tasks.CreateRequest{Title: in.Title, NotebookID: in.NotebookID}
	req.Notes, req.Status, req.Priority = given(in.Notes), given(in.Status), given(in.Priority)
	req.DueAt, req.TargetAt, req.FollowUpAt = given(in.DueAt), given(in.TargetAt), given(in.FollowUpAt)
	v, err := t.tasks.CreateFrom(ctx, p, req)
	if err != nil {
		return tasks.Response{}, err
	}
	return tasks.ToResponse(v)
}

type updateTaskInput struct {
	ID         string                 `json:"id" jsonschema:"the task's id"`
	Status     string                 `json:"status,omitempty" jsonschema:"the new status; omit to keep it"`
	Priority   string                 `json:"priority,omitempty" jsonschema:"the new priority; omit to keep it"`
	DueAt      httpx.Optional[string] `json:"dueAt,omitzero"`
	TargetAt   httpx.Optional[string] `json:"targetAt,omitzero"`
	FollowUpAt httpx.Optional[string] `json:"followUpAt,omitzero"`
}

// updateTask is PATCH /tasks/:id without If-Match: an assistant changes a task's fields as a PATCH
// without the header does.
func (t *tools) updateTask(ctx context.Context, p *auth.Principal, in updateTaskInput) (tasks.Response, error) {
	var req tasks.PatchRequest
	req.Status, req.Priority = given(in.Status), given(in.Priority)
	req.DueAt, req.TargetAt, req.FollowUpAt = clearing(in.DueAt), clearing(in.TargetAt), clearing(in.FollowUpAt)
	v, err := t.tasks.UpdateFrom(ctx, p, in.ID, req, etag.IfMatch{})
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

// listSuggestions is GET /suggestions?status=&itemKind=&notebookId=&limit=&cursor=.
func (t *tools) listSuggestions(ctx context.Context, p *auth.Principal, in listSuggestionsInput) (paginate.Page[suggestions.InboxItem], error) {
	return t.suggestions.SearchInbox(ctx, p, suggestions.InboxQuery{Query: in.query(), Status: in.Status, ItemKind: in.ItemKind, NotebookID: in.NotebookID})
}

type suggestionIDInput struct {
	ID string `json:"id" jsonschema:"the suggestion's id"`
}

// getSuggestion is GET /suggestions/:id.
func (t *tools) getSuggestion(ctx context.Context, p *auth.Principal, in suggestionIDInput) (suggestions.Detail, error) {
	return t.suggestions.FindDetail(ctx, p, in.ID)
}

type historyInput struct {
	ItemKind string `json:"itemKind" jsonschema:"note or task"`
	ID       string `json:"id" jsonschema:"the note's or task's id"`
	pageInput
}

// getHistory is GET /<kind>s/:id/versions.
func (t *tools) getHistory(ctx context.Context, p *auth.Principal, in historyInput) (paginate.Page[versions.VersionResponse], error) {
	return t.history.ListPage(ctx, p, in.ItemKind, in.ID, in.query())
}

type focusInput struct {
	Date string `json:"date,omitempty" jsonschema:"the day, YYYY-MM-DD; default today in tz"`
	TZ   string `json:"tz,omitempty" jsonschema:"an IANA time zone name such as Europe/Berlin; default UTC"`
}

// getFocus is GET /focus?date=&tz= (an empty argument is absent).
func (t *tools) getFocus(ctx context.Context, p *auth.Principal, in focusInput) (focus.Response, error) {
	var q focus.Query
	if in.Date != "" {
		q.Date = &in.Date
	}
	if in.TZ != "" {
		q.TZ = &in.TZ
	}
	return t.focus.Focus(ctx, p, q)
}

// focusOutput is get_focus' output schema as GET /focus' document has it: an entry is a note (as
// search_notes lists it) or a task, each with its kind; the due list holds tasks only.
func focusOutput() *jsonschema.Schema {
	s := outputSchema[focus.Response]()
	inferred := s.Properties["due"].Items // {kind, item}, item any
	entry := func(kind string, item *jsonschema.Schema) *jsonschema.Schema {
		e := inferred.CloneSchemas()
		var k any = kind
		e.Properties["kind"] = &jsonschema.Schema{Type: "string", Const: &k}
		e.Properties["item"] = item
		return e
	}
	// A schema is a tree: each list has entries of its own.
	note := func() *jsonschema.Schema { return entry(notes.ItemKind, outputSchema[notes.Response]()) }
	task := func() *jsonschema.Schema { return entry(tasks.ItemKind, outputSchema[tasks.Response]()) }
	for _, list := range []string{"targeted", "followUps"} {
		s.Properties[list].Items = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{note(), task()}}
	}
	s.Properties["due"].Items = task()
	return s
}
