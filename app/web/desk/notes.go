package desk

import (
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"folio/app/web"
	"folio/modules/accounts"
	"folio/modules/content"
	"folio/modules/document"
	"folio/modules/items"
	"folio/modules/notes"
	"folio/modules/tasks"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/httpx"
	"folio/platform/markdown"
)

type notebookRow struct {
	ID, Name, Place string
}

type notebooksView struct {
	view
	Notebooks []notebookRow
	Next      string
}

// notebooksPage is /app/notebooks: the notebooks the person sees (GET /notebooks' use case).
func (h *Handler) notebooksPage(c *gin.Context, sess accounts.Session) {
	q := limit(100)
	q.Cursor = c.Query("cursor")
	page, err := h.notebooks.ListPage(c.Request.Context(), web.Principal(sess), q)
	if err != nil && apierr.From(err).Status == http.StatusBadRequest {
		c.Redirect(http.StatusSeeOther, "/app/notebooks") // an edited cursor: the first page
		return
	}
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	names, _, err := h.places(c.Request.Context(), sess)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v := notebooksView{view: base(&sess, "Notebooks", "notebooks")}
	for _, nb := range page.Data {
		label := names[nb.ID]
		place := "personal"
		if i := strings.LastIndex(label, " ("); i >= 0 && strings.HasSuffix(label, ")") {
			place = label[i+2 : len(label)-1]
		}
		v.Notebooks = append(v.Notebooks, notebookRow{ID: nb.ID, Name: nb.Name, Place: place})
	}
	if page.NextCursor != nil {
		v.Next = "/app/notebooks?cursor=" + url.QueryEscape(*page.NextCursor)
	}
	h.pages.Render(c, http.StatusOK, "notebooks", v)
}

type notebookView struct {
	view
	ID, Name string
	Notes    []noteRow
	Tasks    []taskRow
	Next     string
	Archived bool
}

// notebookPage is /app/notebooks/:id: a notebook's notes (newest first) and open tasks.
func (h *Handler) notebookPage(c *gin.Context, sess accounts.Session) {
	ctx, p, id := c.Request.Context(), web.Principal(sess), c.Param("id")
	nb, err := h.notebooks.Get(ctx, p, id)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	names, _, err := h.places(ctx, sess)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v := notebookView{view: base(&sess, nb.Name, "notebooks"), ID: nb.ID, Name: nb.Name, Archived: c.Query("archived") == "true"}
	if c.Query("deleted") != "" {
		v.Notice = "The note was deleted."
	}
	if c.Query("done") == "created" {
		v.Notice = "Notebook created."
	}
	nq := notes.ListQuery{ListQuery: items.ListQuery{Query: limit(listSize), NotebookID: id}}
	nq.Cursor = c.Query("cursor")
	if v.Archived {
		nq.Archived = &[]string{"true"}[0]
	}
	page, err := h.notes.Search(ctx, p, nq)
	if err != nil && apierr.From(err).Status == http.StatusBadRequest {
		c.Redirect(http.StatusSeeOther, "/app/notebooks/"+url.PathEscape(id))
		return
	}
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v.Notes = h.noteRows(page.Data, names, v.Loc, false)
	if page.NextCursor != nil {
		v.Next = "/app/notebooks/" + url.PathEscape(id) + "?cursor=" + url.QueryEscape(*page.NextCursor)
		if v.Archived {
			v.Next += "&archived=true"
		}
	}
	if !v.Archived {
		open, err := h.openTasks(c, sess, items.ListQuery{NotebookID: id})
		if err != nil {
			h.fail(c, sess, err)
			return
		}
		v.Tasks = taskRows(open, names, v.Loc)
	}
	h.pages.Render(c, http.StatusOK, "notebook", v)
}

// openTasks are the tasks not DONE that q narrows to: the first listSize of each open status.
func (h *Handler) openTasks(c *gin.Context, sess accounts.Session, q items.ListQuery) ([]tasks.Response, error) {
	var out []tasks.Response
	for _, status := range []string{"TODO", "IN_PROGRESS", "BLOCKED"} {
		tq := tasks.ListQuery{ListQuery: q, Status: &status}
		tq.Query = limit(listSize)
		page, err := h.tasks.Search(c.Request.Context(), web.Principal(sess), tq)
		if err != nil {
			return nil, err
		}
		out = append(out, page.Data...)
	}
	return out, nil
}

type noteView struct {
	view
	ID, Title, Notebook, NotebookID string
	Version                         string
	HTML                            template.HTML
	Tags, People                    []items.Tag
	Created, Updated                stamp
	TargetAt, FollowUpAt            *stamp
	Archived, HasDecision           bool
	Pending                         *content.Suggestion
	Places                          []auth.Place // where it may be moved
}

// notePage is /app/notes/:id: the note rendered from its stored document, its tags and people as
// links, its dates, its pending suggestion, and its actions.
func (h *Handler) notePage(c *gin.Context, sess accounts.Session) {
	ctx, p := c.Request.Context(), web.Principal(sess)
	n, shown, err := h.viewer.Read(ctx, p, c.Param("id"), nil)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	html, err := rendered(n.Item.Content)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	names, nbs, err := h.places(ctx, sess)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v := noteView{view: base(&sess, title(shown.Content), "notebooks"), ID: n.Item.ID, Title: title(shown.Content),
		Notebook: names[n.Item.NotebookID], NotebookID: n.Item.NotebookID, Version: n.Item.ETag(), HTML: html,
		Archived: n.Item.Archived, HasDecision: n.Item.HasDecision, Pending: shown.PendingSuggestion, Places: nbs}
	v.Created, v.Updated = stampOf(n.Item.CreatedAt, v.Loc), stampOf(n.Item.UpdatedAt, v.Loc)
	v.TargetAt, v.FollowUpAt = stampAt(shown.TargetAt, v.Loc), stampAt(shown.FollowUpAt, v.Loc)
	v.People, v.Tags = splitTags(shown.Tags)
	switch c.Query("done") {
	case "saved":
		v.Notice = "Saved."
	case "created":
		v.Notice = "Note created."
	case "archived":
		v.Notice = "Archived. It no longer shows in lists and Focus; unarchive it here."
	case "unarchived":
		v.Notice = "Unarchived."
	case "moved":
		v.Notice = "Moved to " + v.Notebook + "."
	}
	h.pages.Render(c, http.StatusOK, "note", v)
}

type editView struct {
	view
	ID         string // "" for a new note
	NotebookID string
	Notebook   string
	Places     []auth.Place
	Text       string
	Version    string
	Preview    template.HTML
	Previewed  bool
	Field      string // the content's error, in the module's words
}

// newNotePage is /app/notes/new?notebookId=: an empty note in that notebook (or one to choose).
func (h *Handler) newNotePage(c *gin.Context, sess accounts.Session) {
	if !h.shownNotebook(c, sess) {
		return
	}
	_, nbs, err := h.places(c.Request.Context(), sess)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v := editView{view: base(&sess, "New note", "notebooks"), NotebookID: c.Query("notebookId"), Places: nbs}
	h.pages.Render(c, http.StatusOK, "edit", v)
}

// createNote saves a new note (POST /notes' use case), or shows its preview.
func (h *Handler) createNote(c *gin.Context, sess accounts.Session) {
	ctx := c.Request.Context()
	form := c.Request.PostForm
	_, nbs, err := h.places(ctx, sess)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v := editView{view: base(&sess, "New note", "notebooks"), NotebookID: form.Get("notebookId"), Places: nbs, Text: textarea(form, "content")}
	if form.Get("action") == "preview" {
		h.preview(c, &v)
		return
	}
	n, err := h.notes.CreateFrom(ctx, web.Principal(sess), notes.CreateRequest{NotebookID: v.NotebookID, Content: v.Text})
	if err != nil {
		h.formError(c, sess, &v, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/app/notes/"+url.PathEscape(n.Item.ID)+"?done=created")
}

// preview shows the form again with the text rendered as it would be saved: parsed by the same
// document.Parse the notes module runs, so an error is the one a save would get.
func (h *Handler) preview(c *gin.Context, v *editView) {
	v.Previewed = true
	parsed, err := document.Parse("content", v.Text)
	if err != nil {
		v.Field = apierr.From(err).Message
		h.pages.Render(c, http.StatusBadRequest, "edit", v)
		return
	}
	v.Preview = template.HTML(markdown.HTML(parsed.Doc, htmlLinks)) // #nosec G203 -- escaped by markdown.HTML
	h.pages.Render(c, http.StatusOK, "edit", v)
}

// formError shows a refused save on its form, with the module's message; the text stays.
func (h *Handler) formError(c *gin.Context, sess accounts.Session, v *editView, err error) {
	ae := apierr.From(err)
	if ae.Status == http.StatusNotFound && v.ID != "" {
		h.fail(c, sess, err)
		return
	}
	if ae.Status >= 500 {
		h.pages.Internal(c, &sess, err)
		return
	}
	v.Field = ae.Message
	h.pages.Render(c, ae.Status, "edit", v)
}

// noteText reads a note and its Markdown (GET /notes/:id's use case and conversion).
func (h *Handler) noteText(c *gin.Context, sess accounts.Session, id string) (notes.View, string, error) {
	n, err := h.notes.Get(c.Request.Context(), web.Principal(sess), id)
	if err != nil {
		return n, "", err
	}
	resp, err := notes.ToResponse(n)
	return n, resp.Content, err
}

// editPage is /app/notes/:id/edit: the note's Markdown and the version it is, which the save
// carries.
func (h *Handler) editPage(c *gin.Context, sess accounts.Session) {
	n, text, err := h.noteText(c, sess, c.Param("id"))
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v := editView{view: base(&sess, "Edit: "+title(text), "notebooks"), ID: n.Item.ID, NotebookID: n.Item.NotebookID,
		Text: text, Version: n.Item.ETag()}
	h.pages.Render(c, http.StatusOK, "edit", v)
}

type conflictView struct {
	view
	ID      string
	Mine    string // the text the person wrote, kept
	Theirs  string // the note as it is now
	Version string // the note's version now: saving mine over it is a choice made knowingly
}

// saveNote saves an edit with the version the page opened (PATCH /notes/:id with If-Match). If
// the note changed meanwhile, the conflict page shows both texts and nothing is overwritten.
func (h *Handler) saveNote(c *gin.Context, sess accounts.Session) {
	ctx, p, id := c.Request.Context(), web.Principal(sess), c.Param("id")
	form := c.Request.PostForm
	v := editView{view: base(&sess, "Edit note", "notebooks"), ID: id, Text: textarea(form, "content"), Version: form.Get(versionField)}
	if form.Get("action") == "preview" {
		h.preview(c, &v)
		return
	}
	ifMatch, ok := shownVersion(c)
	var err error
	if ok {
		_, err = h.notes.UpdateFrom(ctx, p, id, notes.PatchRequest{Content: httpx.Optional[string]{Present: true, Value: v.Text}}, ifMatch)
	}
	if !ok || isConflict(err) {
		h.conflict(c, sess, id, v.Text)
		return
	}
	if err != nil && apierr.From(err).Status == http.StatusNotFound {
		h.gone(c, sess, v.Text)
		return
	}
	if err != nil {
		h.formError(c, sess, &v, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/app/notes/"+url.PathEscape(id)+"?done=saved")
}

// gone is the page of a save whose note no longer exists (deleted in another tab, or moved where
// the person cannot see it): a 404, as for any id the person cannot see, but the text the person
// wrote is not lost: it stands in the new-note form, to be saved as a new note.
func (h *Handler) gone(c *gin.Context, sess accounts.Session, mine string) {
	_, nbs, err := h.places(c.Request.Context(), sess)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v := editView{view: base(&sess, "Not found", "notebooks"), Places: nbs, Text: mine,
		Field: "Not found: this note was deleted, or you cannot see it, so nothing was saved. Your text is below: save it as a new note."}
	h.pages.Render(c, http.StatusNotFound, "edit", v)
}

// conflict is the page of a stale save: the note as it is now beside the text the person wrote.
func (h *Handler) conflict(c *gin.Context, sess accounts.Session, id, mine string) {
	n, text, err := h.noteText(c, sess, id)
	if err != nil && apierr.From(err).Status == http.StatusNotFound {
		h.gone(c, sess, mine)
		return
	}
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v := conflictView{view: base(&sess, "This note changed since you opened it", "notebooks"), ID: id, Mine: mine, Theirs: text, Version: n.Item.ETag()}
	h.pages.Render(c, http.StatusConflict, "conflict", v)
}

// archiveNote archives or unarchives a note (PATCH archived), with the version shown.
func (h *Handler) archiveNote(c *gin.Context, sess accounts.Session) {
	archived := c.Request.PostForm.Get("archived") == "true"
	h.patchNote(c, sess, notes.PatchRequest{Archived: httpx.Optional[bool]{Present: true, Value: archived}},
		map[bool]string{true: "archived", false: "unarchived"}[archived])
}

// moveNote moves a note to another notebook (PATCH notebookId), with the version shown.
func (h *Handler) moveNote(c *gin.Context, sess accounts.Session) {
	h.patchNote(c, sess, notes.PatchRequest{NotebookID: httpx.Optional[string]{Present: true, Value: c.Request.PostForm.Get("notebookId")}}, "moved")
}

func (h *Handler) patchNote(c *gin.Context, sess accounts.Session, req notes.PatchRequest, done string) {
	id := c.Param("id")
	ifMatch, ok := shownVersion(c)
	if !ok {
		h.fail(c, sess, etag.ErrPreconditionFailed)
		return
	}
	if _, err := h.notes.UpdateFrom(c.Request.Context(), web.Principal(sess), id, req, ifMatch); err != nil {
		h.fail(c, sess, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/app/notes/"+url.PathEscape(id)+"?done="+done)
}

type deleteView struct {
	view
	ID, Title, Notebook, NotebookID, Version string
}

// deletePage is the confirmation of a delete.
func (h *Handler) deletePage(c *gin.Context, sess accounts.Session) {
	n, text, err := h.noteText(c, sess, c.Param("id"))
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	names, _, err := h.places(c.Request.Context(), sess)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v := deleteView{view: base(&sess, "Delete note", "notebooks"), ID: n.Item.ID, Title: title(text),
		Notebook: names[n.Item.NotebookID], NotebookID: n.Item.NotebookID, Version: n.Item.ETag()}
	h.pages.Render(c, http.StatusOK, "delete", v)
}

// deleteNote deletes a note (DELETE /notes/:id with the version shown) and returns to its
// notebook.
func (h *Handler) deleteNote(c *gin.Context, sess accounts.Session) {
	ifMatch, ok := shownVersion(c)
	if !ok {
		h.fail(c, sess, etag.ErrPreconditionFailed)
		return
	}
	if err := h.notes.Delete(c.Request.Context(), web.Principal(sess), c.Param("id"), ifMatch); err != nil {
		h.fail(c, sess, err)
		return
	}
	nb := c.Request.PostForm.Get("notebookId")
	if nb == "" {
		c.Redirect(http.StatusSeeOther, "/app/notebooks")
		return
	}
	c.Redirect(http.StatusSeeOther, "/app/notebooks/"+url.PathEscape(nb)+"?deleted=1")
}

// shownNotebook checks the notebook a new-item page was opened for (?notebookId=), by the
// notebooks module's GET: another user's notebook is the 404 page, as for any id the person
// cannot see. It tells whether the page may go on.
func (h *Handler) shownNotebook(c *gin.Context, sess accounts.Session) bool {
	id := c.Query("notebookId")
	if id == "" {
		return true
	}
	if _, err := h.notebooks.Get(c.Request.Context(), web.Principal(sess), id); err != nil {
		h.fail(c, sess, err)
		return false
	}
	return true
}
