package desk

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"

	"folio/app/web"
	"folio/modules/accounts"
	"folio/modules/document"
	"folio/modules/focus"
	"folio/modules/items"
	"folio/modules/notes"
	"folio/modules/tasks"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/httpx"
	"folio/platform/markdown"
	"folio/platform/paginate"
)

// Handler serves the web app's pages.
type Handler struct {
	notes     Notes
	viewer    NoteViewer
	tasks     Tasks
	notebooks Notebooks
	focus     Focus
	zones     Zones
	keyPlaces auth.KeyPlaces
	pages     *web.Pages
}

// HandlerParams are the dependencies of NewHandler.
type HandlerParams struct {
	fx.In
	Notes     Notes
	Viewer    NoteViewer
	Tasks     Tasks
	Notebooks Notebooks
	Focus     Focus
	Zones     Zones
	Places    auth.KeyPlaces
	Site      *web.Site
}

// NewHandler returns the web app's pages.
func NewHandler(p HandlerParams) (*Handler, error) {
	pages, err := p.Site.Pages(templateFS, "templates", template.FuncMap{
		"statusLabel": statusLabel,
		"pathEscape":  url.PathEscape,
		"dict":        dict,
	})
	if err != nil {
		return nil, err
	}
	return &Handler{notes: p.Notes, viewer: p.Viewer, tasks: p.Tasks, notebooks: p.Notebooks, focus: p.Focus,
		zones: p.Zones, keyPlaces: p.Places, pages: pages}, nil
}

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	g := web.Group(r)
	g.GET("/", h.pages.SignedIn(func(c *gin.Context, _ accounts.Session) { c.Redirect(http.StatusSeeOther, "/app") }))
	in := func(f func(c *gin.Context, s accounts.Session)) gin.HandlerFunc { return h.pages.SignedIn(f) }
	g.GET("/app", in(h.focusPage))
	g.POST("/app/time-zone", in(h.setZone))
	g.GET("/settings/time-zone", in(h.zonePage))
	g.GET("/app/notebooks", in(h.notebooksPage))
	g.GET("/app/notebooks/new", in(h.newNotebookPage))
	g.POST("/app/notebooks", in(h.createNotebook))
	g.GET("/app/notebooks/:id", in(h.notebookPage))
	g.GET("/app/notes/new", in(h.newNotePage))
	g.POST("/app/notes", in(h.createNote))
	g.GET("/app/notes/:id", in(h.notePage))
	g.GET("/app/notes/:id/edit", in(h.editPage))
	g.POST("/app/notes/:id/edit", in(h.saveNote))
	g.POST("/app/notes/:id/archive", in(h.archiveNote))
	g.POST("/app/notes/:id/move", in(h.moveNote))
	g.GET("/app/notes/:id/delete", in(h.deletePage))
	g.POST("/app/notes/:id/delete", in(h.deleteNote))
	g.GET("/app/tasks", in(h.tasksPage))
	g.GET("/app/tasks/new", in(h.newTaskPage))
	g.POST("/app/tasks", in(h.createTask))
	g.GET("/app/tasks/:id", in(h.taskPage))
	g.GET("/app/tasks/:id/edit", in(h.editTaskPage))
	g.POST("/app/tasks/:id/edit", in(h.saveTask))
	g.POST("/app/tasks/:id/status", in(h.setStatus))
	g.GET("/app/people/:name", in(h.personPage))
	g.GET("/app/tags/:name", in(h.tagPage))
	g.GET("/app/decisions", in(h.decisionsPage))
	g.GET("/app/search", in(h.searchPage))
}

// listSize is how many notes or tasks one list of a page shows.
const listSize = 25

// versionField is the hidden field carrying the note's ETag as the page showed it: a save, an
// archive, a move or a delete sends it as If-Match, so a change made meanwhile is a conflict,
// never overwritten.
const versionField = "version"

// shownVersion is the If-Match of a form: the version the page showed. A form without one (or
// with "*", which matches anything) was not made by a page and is refused like a stale one.
func shownVersion(c *gin.Context) (etag.IfMatch, bool) {
	v := strings.TrimSpace(c.Request.PostForm.Get(versionField))
	return etag.ParseIfMatch(v), v != "" && v != "*"
}

// isConflict tells whether a write failed because the item changed since its page was shown.
func isConflict(err error) bool {
	return errors.Is(err, etag.ErrPreconditionFailed) || apierr.From(err).Code == etag.CodePreconditionFailed
}

// base starts a page's view, with the user's zone for its dates.
func base(sess *accounts.Session, title, nav string) view {
	return view{View: web.Base(sess, title, nav), Loc: zoneOf(sess)}
}

// view is what every page of the web app shows besides its own content.
type view struct {
	web.View
	Loc *time.Location // the user's zone: dates are shown in it
}

// zoneName is the user's zone as the Focus view takes it: UTC until one is known.
func zoneName(sess *accounts.Session) string {
	if sess != nil && sess.User != nil && sess.User.TimeZone != "" {
		return sess.User.TimeZone
	}
	return "UTC"
}

func zoneOf(sess *accounts.Session) *time.Location {
	if loc, err := time.LoadLocation(zoneName(sess)); err == nil {
		return loc
	}
	return time.UTC
}

// fail shows what went wrong with a read or a write as a page, in the module's words: an item
// the person cannot see (another user's id) is "Not found" (404) as on the API; a refused
// request says why with the API's message; anything else leaks nothing.
func (h *Handler) fail(c *gin.Context, sess accounts.Session, err error) {
	ae := apierr.From(err)
	switch {
	case ae.Status == http.StatusNotFound:
		h.message(c, sess, http.StatusNotFound, "Not found", "This page does not exist, or you cannot see it.")
	case isConflict(err):
		h.message(c, sess, http.StatusPreconditionFailed, "This changed since you opened it",
			"Someone changed it after this page was shown, so nothing was changed. Open it again and try once more.")
	case ae.Status >= 400 && ae.Status < 500:
		h.message(c, sess, ae.Status, "That did not work", ae.Message)
	default:
		h.pages.Internal(c, &sess, err)
	}
}

func (h *Handler) message(c *gin.Context, sess accounts.Session, status int, title, body string) {
	v := web.MessageView{View: web.Base(&sess, title, ""), Status: status, Body: body, Back: "/app", BackText: "Back to Focus"}
	h.pages.Render(c, status, "message", v)
}

// places are the notebooks the person sees, by id, named as the settings pages name them.
func (h *Handler) places(ctx context.Context, sess accounts.Session) (map[string]string, []auth.Place, error) {
	_, nbs, err := h.keyPlaces.KeyPlaces(ctx, sess.UserID)
	if err != nil {
		return nil, nil, err
	}
	names := make(map[string]string, len(nbs))
	for _, p := range nbs {
		names[p.ID] = web.PlaceLabel(p)
	}
	return names, nbs, nil
}

// stamp is a time as a page shows it: in the user's zone, with its ISO form for <time>.
type stamp struct {
	ISO, Day, When string
}

func stampOf(t time.Time, loc *time.Location) stamp {
	l := t.In(loc)
	return stamp{ISO: t.UTC().Format(time.RFC3339), Day: l.Format("Mon 2 Jan 2006"), When: l.Format("2 Jan 2006, 15:04")}
}

// stampAt reads a time as a response writes it; nil for null or unreadable.
func stampAt(s *string, loc *time.Location) *stamp {
	if s == nil {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return nil
	}
	st := stampOf(t, loc)
	return &st
}

// title is how a note is named in lists and page titles: the label the modules give it (its first
// line of text as a reader sees it, markdown.Doc.FirstLine: no heading marks, emphasis, escapes or
// link destinations), "(empty note)" when it has none. Only the note's opening is parsed
// (titleHead), so that a list of long notes costs no more than a list of short ones; an opening
// that cannot be parsed is named by its first line with its block marks trimmed.
func title(markdownText string) string {
	head := markdownText
	if len(head) > titleHead {
		if i := strings.LastIndexByte(head[:titleHead], '\n'); i > 0 {
			head = head[:i] // whole lines
		} else if i := strings.IndexByte(head[:min(len(head), titleLineMax)], '\n'); i > 0 {
			head = head[:i] // the first line whole, when it is longer than titleHead
		} else {
			head = strings.ToValidUTF8(head[:min(len(head), titleLineMax)], "") // cut inside it
		}
	}
	var line string
	if doc, err := markdown.Parse(head); err == nil {
		line = doc.FirstLine(items.LabelRunes)
	} else {
		for l := range strings.Lines(head) {
			if line = markdown.FirstLineOf(strings.TrimLeft(strings.TrimSpace(l), "#>*-+ "), items.LabelRunes); line != "" {
				break
			}
		}
	}
	if line == "" {
		return "(empty note)"
	}
	return line
}

// titleHead is how much of a note title reads: its whole lines within the first 2 KB, or its first
// line alone up to titleLineMax when that line is longer (a first line cut inside would show the
// Markdown of a link or emphasis it cuts).
const (
	titleHead    = 2048
	titleLineMax = 8192
)

// htmlLinks are the links of rendered content: tags and people to their pages.
var htmlLinks = markdown.HTMLLinks{
	Tag:           func(n string) string { return "/app/tags/" + url.PathEscape(n) },
	Person:        func(n string) string { return "/app/people/" + url.PathEscape(n) },
	HeadingOffset: 1,
}

// rendered is a stored document as HTML (markdown.HTML: built from the tree, every text escaped).
func rendered(stored []byte) (template.HTML, error) {
	doc, err := document.Decode(stored)
	if err != nil {
		return "", err
	}
	return template.HTML(markdown.HTML(doc, htmlLinks)), nil // #nosec G203 -- escaped by markdown.HTML
}

// decisionsOf is the HTML of a note's Decision callouts, read from its Markdown.
func decisionsOf(text string) template.HTML {
	doc, err := markdown.Parse(text)
	if err != nil {
		return ""
	}
	var out []markdown.Node
	for _, n := range doc.Content {
		if n.Type == markdown.TypeCallout && n.Attrs.Label == markdown.CalloutDecision {
			out = append(out, n.Content...)
		}
	}
	return template.HTML(markdown.HTML(markdown.Doc{Content: out}, htmlLinks)) // #nosec G203 -- escaped by markdown.HTML
}

// limit is a list's page size as the modules' queries take it.
func limit(n int) paginate.Query {
	s := strconv.Itoa(n)
	return paginate.Query{Limit: &s}
}

// textarea is a textarea's value as the person wrote it: a browser sends every line break of a
// textarea as CRLF (the HTML form submission rule), which the modules would count against their
// character limits although the stored text keeps LF; a note near the limit written over the API
// could not be saved back from its edit page.
func textarea(form url.Values, name string) string {
	return strings.ReplaceAll(form.Get(name), "\r\n", "\n")
}

// back is where a form returns to: a page of the web app the form names (a path of this site,
// web.LocalPath, under /app), or fallback.
func back(c *gin.Context, fallback string) string {
	if b := web.LocalPath(c.Request.PostForm.Get("back")); strings.HasPrefix(b, "/app") {
		return b
	}
	return fallback
}

type (
	notesResponse = notes.Response
	tasksResponse = tasks.Response
)

// noteRow is a note in a list.
type noteRow struct {
	ID, Title, Notebook string
	Updated             *stamp
	Tags                []items.Tag
	HasDecision         bool
	Archived            bool
	Decision            template.HTML // its Decision callouts, on the decision lists
}

func (h *Handler) noteRows(list []notesResponse, nbs map[string]string, loc *time.Location, withDecision bool) []noteRow {
	out := make([]noteRow, 0, len(list))
	for _, n := range list {
		r := noteRow{ID: n.ID, Title: title(n.Content), Notebook: nbs[n.NotebookID], Updated: stampAt(&n.UpdatedAt, loc),
			Tags: n.Tags, HasDecision: n.HasDecision, Archived: n.Archived}
		if withDecision {
			r.Decision = decisionsOf(n.Content)
		}
		out = append(out, r)
	}
	return out
}

// taskRow is a task in a list.
type taskRow struct {
	ID, Title, Status, Priority, Notebook string
	Due                                   *stamp
	Tags                                  []items.Tag
}

func taskRows(list []tasksResponse, nbs map[string]string, loc *time.Location) []taskRow {
	out := make([]taskRow, 0, len(list))
	for _, t := range list {
		out = append(out, taskRow{ID: t.ID, Title: t.Title, Status: t.Status, Priority: t.Priority, Notebook: nbs[t.NotebookID],
			Due: stampAt(t.DueAt, loc), Tags: t.Tags})
	}
	return out
}

// statusLabel is a task status as a person reads it.
func statusLabel(s string) string {
	switch s {
	case "TODO":
		return "To do"
	case "IN_PROGRESS":
		return "In progress"
	case "BLOCKED":
		return "Blocked"
	case "DONE":
		return "Done"
	}
	return s
}

// validZone checks a zone name by the Focus view's own rule (focus.Query.Parse).
func validZone(name string) error {
	_, err := focus.Query{TZ: &name}.Parse(time.Now())
	return err
}

// dict makes a map of its key, value pairs: the arguments of a shared template.
func dict(kv ...any) map[string]any {
	out := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		if k, ok := kv[i].(string); ok {
			out[k] = kv[i+1]
		}
	}
	return out
}

// splitTags parts an item's tags into its people (@name) and its tags (#name).
func splitTags(all []items.Tag) (people, tags []items.Tag) {
	for _, t := range all {
		if t.Kind == "PERSON" {
			people = append(people, t)
		} else {
			tags = append(tags, t)
		}
	}
	return people, tags
}
