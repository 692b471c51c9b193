package desk

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"folio/app/web"
	"folio/modules/accounts"
	"folio/modules/items"
	"folio/modules/notes"
	"folio/modules/tasks"
	"folio/platform/apierr"
	"folio/platform/auth"
)

// The lists of notes and tasks the web app shows by a question: a person, a tag, decisions, words.
// Each is GET /notes' (and GET /tasks') use case with the question's filter.

type listView struct {
	view
	Name      string    // the person or tag, without its sigil
	Notes     []noteRow // newest first
	Decisions []noteRow
	Tasks     []taskRow // not DONE
	Next      string    // the next page of Notes
	Q         string
	Field     string // a question the modules refused, in their words
	Places    []auth.Place
	Notebook  string // the decisions page's notebook filter
}

// searchNotes is one page of notes for q, and the link to the next page (page is the URL
// without its cursor).
func (h *Handler) searchNotes(c *gin.Context, sess accounts.Session, q notes.ListQuery, page string, names map[string]string, v *listView, withDecision bool) error {
	q.Query = limit(listSize)
	q.Cursor = c.Query("cursor")
	res, err := h.notes.Search(c.Request.Context(), web.Principal(sess), q)
	if err != nil {
		return err
	}
	v.Notes = h.noteRows(res.Data, names, v.Loc, withDecision)
	if res.NextCursor != nil {
		sep := "?"
		if strings.Contains(page, "?") {
			sep = "&"
		}
		v.Next = page + sep + "cursor=" + url.QueryEscape(*res.NextCursor)
	}
	return nil
}

// listFail shows a refused question on the list's page (400, with the module's message), a cursor
// that names nothing of theirs as the first page, and anything else as fail does.
func (h *Handler) listFail(c *gin.Context, sess accounts.Session, v *listView, tmpl, page string, err error) {
	ae := apierr.From(err)
	if ae.Status != http.StatusBadRequest {
		h.fail(c, sess, err)
		return
	}
	if c.Query("cursor") != "" {
		c.Redirect(http.StatusSeeOther, page)
		return
	}
	v.Field, v.Notes, v.Tasks, v.Decisions = ae.Message, nil, nil, nil
	h.pages.Render(c, http.StatusBadRequest, tmpl, v)
}

// personPage is /app/people/:name, the page before a 1:1: the notes that mention @name, their
// tasks not DONE, and the decisions they appear in.
func (h *Handler) personPage(c *gin.Context, sess accounts.Session) {
	name := strings.TrimPrefix(c.Param("name"), "@")
	page := "/app/people/" + url.PathEscape(name)
	names, _, err := h.places(c.Request.Context(), sess)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v := listView{view: base(&sess, "@"+name, "people"), Name: name}
	fail := func(err error) { h.listFail(c, sess, &v, "person", page, err) }
	if err := h.searchNotes(c, sess, notes.ListQuery{ListQuery: items.ListQuery{People: []string{name}}}, page, names, &v, false); err != nil {
		fail(err)
		return
	}
	open, err := h.openTasks(c, sess, items.ListQuery{People: []string{name}})
	if err != nil {
		fail(err)
		return
	}
	v.Tasks = taskRows(open, names, v.Loc)
	yes := "true"
	decided, err := h.notes.Search(c.Request.Context(), web.Principal(sess), notes.ListQuery{
		ListQuery: items.ListQuery{Query: limit(listSize), People: []string{name}}, HasDecision: &yes})
	if err != nil {
		fail(err)
		return
	}
	v.Decisions = h.noteRows(decided.Data, names, v.Loc, true)
	h.render(c, "person", v)
}

// tagPage is /app/tags/:name: the notes and open tasks with #name.
func (h *Handler) tagPage(c *gin.Context, sess accounts.Session) {
	name := strings.TrimPrefix(c.Param("name"), "#")
	page := "/app/tags/" + url.PathEscape(name)
	names, _, err := h.places(c.Request.Context(), sess)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v := listView{view: base(&sess, "#"+name, "tags"), Name: name}
	if err := h.searchNotes(c, sess, notes.ListQuery{ListQuery: items.ListQuery{Tags: []string{name}}}, page, names, &v, false); err != nil {
		h.listFail(c, sess, &v, "tag", page, err)
		return
	}
	open, err := h.openTasks(c, sess, items.ListQuery{Tags: []string{name}})
	if err != nil {
		h.listFail(c, sess, &v, "tag", page, err)
		return
	}
	v.Tasks = taskRows(open, names, v.Loc)
	h.render(c, "tag", v)
}

// decisionsPage is /app/decisions: the notes with a Decision callout, newest first, optionally of
// one notebook.
func (h *Handler) decisionsPage(c *gin.Context, sess accounts.Session) {
	names, nbs, err := h.places(c.Request.Context(), sess)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v := listView{view: base(&sess, "Decisions", "decisions"), Places: nbs, Notebook: c.Query("notebookId")}
	page := "/app/decisions"
	if v.Notebook != "" {
		page += "?notebookId=" + url.QueryEscape(v.Notebook)
	}
	yes := "true"
	q := notes.ListQuery{ListQuery: items.ListQuery{NotebookID: v.Notebook}, HasDecision: &yes}
	if err := h.searchNotes(c, sess, q, page, names, &v, true); err != nil {
		h.listFail(c, sess, &v, "decisions", "/app/decisions", err)
		return
	}
	h.render(c, "decisions", v)
}

// searchPage is /app/search?q=: the notes and tasks with the words (GET /notes?q= and GET
// /tasks?q=).
func (h *Handler) searchPage(c *gin.Context, sess accounts.Session) {
	v := listView{view: base(&sess, "Search", "search"), Q: strings.TrimSpace(c.Query("q"))}
	if v.Q == "" {
		h.render(c, "search", v)
		return
	}
	names, _, err := h.places(c.Request.Context(), sess)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v.Title = "Search: " + v.Q
	page := "/app/search?q=" + url.QueryEscape(v.Q)
	if err := h.searchNotes(c, sess, notes.ListQuery{ListQuery: items.ListQuery{Q: v.Q}}, page, names, &v, false); err != nil {
		h.listFail(c, sess, &v, "search", page, err)
		return
	}
	res, err := h.tasks.Search(c.Request.Context(), web.Principal(sess), tasks.ListQuery{ListQuery: items.ListQuery{Query: limit(listSize), Q: v.Q}})
	if err != nil {
		h.listFail(c, sess, &v, "search", page, err)
		return
	}
	v.Tasks = taskRows(res.Data, names, v.Loc)
	h.render(c, "search", v)
}

func (h *Handler) render(c *gin.Context, page string, v listView) {
	h.pages.Render(c, http.StatusOK, page, v)
}
