package desk

import (
	"net/http"
	"net/url"
	"time"

	"github.com/gin-gonic/gin"

	"folio/app/web"
	"folio/modules/accounts"
	"folio/modules/focus"
	"folio/modules/tasks"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/httpx"
)

// taskForm is a task's fields as its form shows and sends them: the dates as days (YYYY-MM-DD)
// in the user's zone.
type taskForm struct {
	Title, Notes, NotebookID, Status, Priority string
	DueAt, TargetAt, FollowUpAt                string
}

// dateField is one of a task's dates: its form field (the API's name), where a form and a PATCH
// keep it.
type dateField struct {
	name  string
	form  func(*taskForm) *string
	patch func(*tasks.PatchRequest) *httpx.Optional[string]
}

// dateFields are the form's date fields, in the order the tasks module checks them.
var dateFields = []dateField{
	{"dueAt", func(f *taskForm) *string { return &f.DueAt }, func(r *tasks.PatchRequest) *httpx.Optional[string] { return &r.DueAt }},
	{"targetAt", func(f *taskForm) *string { return &f.TargetAt }, func(r *tasks.PatchRequest) *httpx.Optional[string] { return &r.TargetAt }},
	{"followUpAt", func(f *taskForm) *string { return &f.FollowUpAt }, func(r *tasks.PatchRequest) *httpx.Optional[string] { return &r.FollowUpAt }},
}

// taskFormOf reads the fields a task form sent.
func taskFormOf(c *gin.Context) taskForm {
	form := c.Request.PostForm
	f := taskForm{Title: form.Get("title"), Notes: textarea(form, "notes"), NotebookID: form.Get("notebookId"),
		Status: form.Get("status"), Priority: form.Get("priority")}
	for _, d := range dateFields {
		*d.form(&f) = form.Get(d.name)
	}
	return f
}

// taskFormFrom is a task as its edit form shows it.
func taskFormFrom(t tasks.Response, loc *time.Location) taskForm {
	f := taskForm{Title: t.Title, Notes: t.Notes, NotebookID: t.NotebookID, Status: t.Status, Priority: t.Priority}
	f.DueAt, f.TargetAt, f.FollowUpAt = dayOf(t.DueAt, loc), dayOf(t.TargetAt, loc), dayOf(t.FollowUpAt, loc)
	return f
}

// dayOf is a stored date as the day it falls on in loc (YYYY-MM-DD); "" for none.
func dayOf(s *string, loc *time.Location) string {
	if s == nil {
		return ""
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return ""
	}
	return t.In(loc).Format(time.DateOnly)
}

// dateValue is a day of the form as the tasks module takes a date: the first instant of that day
// in the user's zone, by the Focus view's own rule for a day (focus.Query.Parse), so that the day
// chosen is the day the pages and Focus show. What is not a day goes to the module as it was
// typed, for the module's own error.
func dateValue(day, zone string) string {
	d, err := focus.Query{Date: &day, TZ: &zone}.Parse(time.Now())
	if err != nil {
		return day
	}
	return d.Start.Format(time.RFC3339)
}

type taskFormView struct {
	view
	ID         string // "" for a new task
	Version    string
	Form       taskForm
	Was        taskForm // the dates and notebook as the edit form opened (only what changed is sent)
	Places     []auth.Place
	Statuses   []string
	Priorities []string
	Field      string    // the module's refusal, in its words
	Theirs     *taskForm // on a conflict: the task as it is now
}

func (h *Handler) taskFormView(c *gin.Context, sess accounts.Session, pageTitle string) (taskFormView, error) {
	_, nbs, err := h.places(c.Request.Context(), sess)
	return taskFormView{view: base(&sess, pageTitle, "tasks"), Places: nbs, Statuses: tasks.Statuses, Priorities: tasks.Priorities}, err
}

// newTaskPage is /app/tasks/new?notebookId=: an empty task (To do, medium) in that notebook.
func (h *Handler) newTaskPage(c *gin.Context, sess accounts.Session) {
	if !h.shownNotebook(c, sess) {
		return
	}
	v, err := h.taskFormView(c, sess, "New task")
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v.Form = taskForm{NotebookID: c.Query("notebookId"), Status: "TODO", Priority: "MEDIUM"}
	h.pages.Render(c, http.StatusOK, "taskform", v)
}

// createTask saves a new task (POST /tasks' use case).
func (h *Handler) createTask(c *gin.Context, sess accounts.Session) {
	v, err := h.taskFormView(c, sess, "New task")
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v.Form = taskFormOf(c)
	req := tasks.CreateRequest{Title: v.Form.Title, NotebookID: v.Form.NotebookID}
	req.Notes, req.Status, req.Priority = given(v.Form.Notes), given(v.Form.Status), given(v.Form.Priority)
	req.DueAt = given(formDate(v.Form.DueAt, &sess))
	req.TargetAt = given(formDate(v.Form.TargetAt, &sess))
	req.FollowUpAt = given(formDate(v.Form.FollowUpAt, &sess))
	t, err := h.tasks.CreateFrom(c.Request.Context(), web.Principal(sess), req)
	if err != nil {
		h.taskFormError(c, sess, &v, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/app/tasks/"+url.PathEscape(t.Item.ID)+"?done=created")
}

// formDate is a date field's value for the module: "" stays "" (none).
func formDate(day string, sess *accounts.Session) string {
	if day == "" {
		return ""
	}
	return dateValue(day, zoneName(sess))
}

// given is a form value as an optional field: present when not empty.
func given(s string) httpx.Optional[string] {
	return httpx.Optional[string]{Present: s != "", Value: s}
}

// taskText reads a task as the API writes it (GET /tasks/:id's use case).
func (h *Handler) taskText(c *gin.Context, sess accounts.Session, id string) (tasks.View, tasks.Response, error) {
	t, err := h.tasks.Get(c.Request.Context(), web.Principal(sess), id)
	if err != nil {
		return t, tasks.Response{}, err
	}
	resp, err := tasks.ToResponse(t)
	return t, resp, err
}

// editTaskPage is /app/tasks/:id/edit: the task's fields and the version it is, which the save
// carries.
func (h *Handler) editTaskPage(c *gin.Context, sess accounts.Session) {
	t, resp, err := h.taskText(c, sess, c.Param("id"))
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v, err := h.taskFormView(c, sess, "Edit: "+resp.Title)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v.ID, v.Version = t.Item.ID, t.Item.ETag()
	v.Form = taskFormFrom(resp, v.Loc)
	v.Was = v.Form
	h.pages.Render(c, http.StatusOK, "taskform", v)
}

// saveTask saves an edit with the version the page opened (PATCH /tasks/:id with If-Match): the
// title, notes, status and priority, and the dates and notebook that the form changed. If the
// task changed meanwhile, the conflict page shows it as it is now beside what the person wrote,
// and nothing is overwritten.
func (h *Handler) saveTask(c *gin.Context, sess accounts.Session) {
	id := c.Param("id")
	v, err := h.taskFormView(c, sess, "Edit task")
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v.ID, v.Version, v.Form = id, c.Request.PostForm.Get(versionField), taskFormOf(c)
	form := c.Request.PostForm
	var req tasks.PatchRequest
	req.Title = httpx.Optional[string]{Present: true, Value: v.Form.Title}
	req.Notes = httpx.Optional[string]{Present: true, Value: v.Form.Notes}
	req.Status, req.Priority = given(v.Form.Status), given(v.Form.Priority)
	if nb := v.Form.NotebookID; nb != form.Get("was_notebookId") {
		req.NotebookID = httpx.Optional[string]{Present: true, Value: nb}
	}
	for _, d := range dateFields {
		day := *d.form(&v.Form)
		if day == form.Get("was_"+d.name) {
			continue
		}
		*d.patch(&req) = httpx.Optional[string]{Present: true, Null: day == "", Value: formDate(day, &sess)}
	}
	ifMatch, ok := shownVersion(c)
	if ok {
		_, err = h.tasks.UpdateFrom(c.Request.Context(), web.Principal(sess), id, req, ifMatch)
	}
	if !ok || isConflict(err) {
		h.taskConflict(c, sess, &v)
		return
	}
	if err != nil && apierr.From(err).Status == http.StatusNotFound {
		h.taskGone(c, &v)
		return
	}
	if err != nil {
		h.taskFormError(c, sess, &v, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/app/tasks/"+url.PathEscape(id)+"?done=saved")
}

// taskConflict is the page of a stale save: the task as it is now beside the fields the person
// sent, whose form now carries the task's current version (saving it is a knowing choice).
func (h *Handler) taskConflict(c *gin.Context, sess accounts.Session, v *taskFormView) {
	t, resp, err := h.taskText(c, sess, v.ID)
	if err != nil && apierr.From(err).Status == http.StatusNotFound {
		h.taskGone(c, v)
		return
	}
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	theirs := taskFormFrom(resp, v.Loc)
	v.Title = "This task changed since you opened it"
	v.Theirs, v.Was, v.Version = &theirs, theirs, t.Item.ETag()
	h.pages.Render(c, http.StatusConflict, "taskform", v)
}

// taskFormError shows a refused save on its form, with the module's message; the fields stay.
func (h *Handler) taskFormError(c *gin.Context, sess accounts.Session, v *taskFormView, err error) {
	ae := apierr.From(err)
	if ae.Status == http.StatusNotFound && v.ID != "" || ae.Status >= 500 || ae.Status < 400 {
		h.fail(c, sess, err)
		return
	}
	if v.ID != "" { // the form keeps what it opened with
		form := c.Request.PostForm
		v.Was.NotebookID = form.Get("was_notebookId")
		for _, d := range dateFields {
			*d.form(&v.Was) = form.Get("was_" + d.name)
		}
	}
	v.Field = ae.Message
	h.pages.Render(c, ae.Status, "taskform", v)
}

// taskGone is the page of a save whose task no longer exists (deleted meanwhile, or moved where
// the person cannot see it): a 404, as for any id the person cannot see, with the fields the
// person sent kept in the new-task form, to be saved as a new task.
func (h *Handler) taskGone(c *gin.Context, v *taskFormView) {
	v.ID, v.Version, v.Theirs, v.Was = "", "", nil, taskForm{}
	v.Title = "Not found"
	v.Field = "Not found: this task was deleted, or you cannot see it, so nothing was saved. Your fields are below: save them as a new task."
	h.pages.Render(c, http.StatusNotFound, "taskform", v)
}
