// Package desk is folio's web app for the person (CONTRACT.md section 23): the Focus page, the
// notebooks, notes and tasks, people, tags, decisions and search, server-rendered like the
// settings and review pages and signed in with the same session. It is one more front end of the
// modules' use cases, beside the API, MCP and the export: every page turns its URL or form into
// the module's request and calls the module's service with the session's principal, so the access
// rule, every limit and every validation are the modules' own and come back in their words. No
// page works only with JavaScript: the one script (desk.js) learns the browser's time zone and
// adds the keys / (search), n (new note) and e (edit).
//
//	GET  /                                   /app when signed in, else /signin
//	GET  /app                                Focus: today in the user's zone (focus.go)
//	POST /app/time-zone                      remember the browser's or the settings' zone
//	GET  /settings/time-zone                 the zone, editable
//	GET  /app/notebooks, /app/notebooks/:id  notebooks, and one notebook's notes and tasks
//	GET  /app/notebooks/new                  a new notebook; POST /app/notebooks creates it
//	GET  /app/notes/new?notebookId=          write a note; POST /app/notes saves or previews it
//	GET  /app/notes/:id                      a note, rendered (notes.go)
//	GET  /app/notes/:id/edit                 edit it; POST saves with the version it opened
//	POST /app/notes/:id/{archive,move}       archive or unarchive, move; with the version shown
//	GET  /app/notes/:id/delete               the confirmation; POST deletes
//	GET  /app/tasks, /app/tasks/:id          tasks by status, one task (tasks.go)
//	POST /app/tasks/:id/status               a status in one action
//	GET  /app/tasks/new?notebookId=          a new task; POST /app/tasks creates it (taskforms.go)
//	GET  /app/tasks/:id/edit                 edit it; POST saves with the version it opened
//	GET  /app/people/:name, /app/tags/:name  a person's page, a tag's (lists.go)
//	GET  /app/decisions, /app/search         notes with a Decision, search
package desk

import (
	"context"
	"embed"
	"net/http"

	"go.uber.org/fx"

	"folio/modules/accounts"
	"folio/modules/document"
	"folio/modules/focus"
	"folio/modules/notebooks"
	"folio/modules/notes"
	"folio/modules/tasks"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/httpx"
	"folio/platform/paginate"
)

// Module wires the web app's pages.
var Module = fx.Module("web.desk",
	fx.Provide(
		httpx.AsRoutes(NewHandler),
		func(s *notes.Service) Notes { return s },
		func(v *notes.Viewer) NoteViewer { return v },
		func(s *tasks.Service) Tasks { return s },
		func(s *notebooks.Service) Notebooks { return s },
		func(s *focus.Service) Focus { return s },
		func(s *accounts.Service) Zones { return s },
		httpx.AsBodyLimit(func() httpx.BodyLimit { return noteFormLimit("/app/notes") }),
		httpx.AsBodyLimit(func() httpx.BodyLimit { return noteFormLimit("/app/notes/:id/edit") }),
	),
)

// noteFormBytes is the body limit of the forms that send a note's text: a browser sends a form
// percent-encoded, so a note of document.MaxLength characters of 4 bytes each (as the API takes
// it, in 400 KB of JSON) is 12 bytes a character, 1.2 MB, over httpx.MaxBodyBytes; with room for
// the form's other fields.
const noteFormBytes = 12*document.MaxLength + 64<<10

func noteFormLimit(path string) httpx.BodyLimit {
	return httpx.BodyLimit{Method: http.MethodPost, Path: path, Bytes: noteFormBytes}
}

// The modules' use cases the pages call, each narrowed to what the pages use (module.go binds
// them to the modules' services, as the MCP server's are).
type (
	// Notes is the notes module's service.
	Notes interface {
		Search(ctx context.Context, p *auth.Principal, q notes.ListQuery) (paginate.Page[notes.Response], error)
		Get(ctx context.Context, p *auth.Principal, id string) (notes.View, error)
		CreateFrom(ctx context.Context, p *auth.Principal, req notes.CreateRequest) (notes.View, error)
		UpdateFrom(ctx context.Context, p *auth.Principal, id string, req notes.PatchRequest, ifMatch etag.IfMatch) (notes.View, error)
		Delete(ctx context.Context, p *auth.Principal, id string, ifMatch etag.IfMatch) error
	}
	// NoteViewer is the notes module's "a note with its pending suggestion".
	NoteViewer interface {
		Read(ctx context.Context, p *auth.Principal, id string, skip func(notes.View) bool) (notes.View, notes.WithPending, error)
	}
	// Tasks is the tasks module's service.
	Tasks interface {
		Search(ctx context.Context, p *auth.Principal, q tasks.ListQuery) (paginate.Page[tasks.Response], error)
		Get(ctx context.Context, p *auth.Principal, id string) (tasks.View, error)
		CreateFrom(ctx context.Context, p *auth.Principal, req tasks.CreateRequest) (tasks.View, error)
		UpdateFrom(ctx context.Context, p *auth.Principal, id string, req tasks.PatchRequest, ifMatch etag.IfMatch) (tasks.View, error)
	}
	// Notebooks is the notebooks module's service.
	Notebooks interface {
		ListPage(ctx context.Context, p *auth.Principal, q paginate.Query) (paginate.Page[notebooks.Response], error)
		Get(ctx context.Context, p *auth.Principal, id string) (notebooks.Notebook, error)
		Create(ctx context.Context, p *auth.Principal, in notebooks.NewNotebook) (notebooks.Notebook, error)
	}
	// Focus is the focus module's service.
	Focus interface {
		Focus(ctx context.Context, p *auth.Principal, q focus.Query) (focus.Response, error)
	}
	// Zones keeps the user's time zone (the accounts module).
	Zones interface {
		SetTimeZone(ctx context.Context, userID, zone string) error
	}
)

//go:embed templates/*.html
var templateFS embed.FS
