package desk

import (
	"html/template"
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	"folio/app/web"
	"folio/modules/accounts"
	"folio/modules/items"
	"folio/modules/tasks"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/httpx"
)

// taskGroup is one status's tasks on the tasks page.
type taskGroup struct {
	Status, Label string
	Tasks         []taskRow
	More          bool // the group was cut at its page size
}

type tasksView struct {
	view
	Groups   []taskGroup // To do, In progress, Blocked
	Done     taskGroup   // out of the way, below
	Statuses []string
	Places   []auth.Place
	// The filters, as the form shows them.
	NotebookID, Priority, Q string
	Priorities              []string
	Back                    string // this page with its filters, where a status change returns
	Field                   string // a filter the tasks module refused, in its words
}

// tasksPage is /app/tasks: the tasks by status (GET /tasks' use case per status), filtered by
// notebook, priority and words.
func (h *Handler) tasksPage(c *gin.Context, sess accounts.Session) {
	ctx := c.Request.Context()
	names, nbs, err := h.places(ctx, sess)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v := tasksView{view: base(&sess, "Tasks", "tasks"), Statuses: tasks.Statuses, Places: nbs, Priorities: tasks.Priorities,
		NotebookID: c.Query("notebookId"), Priority: c.Query("priority"), Q: c.Query("q"), Back: "/app/tasks"}
	if c.Request.URL.RawQuery != "" {
		v.Back += "?" + c.Request.URL.RawQuery
	}
	if c.Query("done") == "status" {
		v.Notice = "Status changed."
	}
	status := http.StatusOK
	for _, st := range tasks.Statuses {
		q := tasks.ListQuery{ListQuery: items.ListQuery{Query: limit(listSize), NotebookID: v.NotebookID, Q: v.Q}, Status: &st, Priority: v.Priority}
		page, err := h.tasks.Search(ctx, web.Principal(sess), q)
		if err != nil && apierr.From(err).Status == http.StatusBadRequest {
			v.Field, status = apierr.From(err).Message, http.StatusBadRequest
			break
		}
		if err != nil {
			h.fail(c, sess, err)
			return
		}
		g := taskGroup{Status: st, Label: statusLabel(st), Tasks: taskRows(page.Data, names, v.Loc), More: page.NextCursor != nil}
		if st == "DONE" {
			v.Done = g
		} else {
			v.Groups = append(v.Groups, g)
		}
	}
	h.pages.Render(c, status, "tasks", v)
}

type taskView struct {
	view
	Task                 taskRow
	HTML                 template.HTML
	NotebookID           string
	Statuses             []string
	TargetAt, FollowUpAt *stamp
	Created, Updated     stamp
	Archived             bool
	Back                 string
	People, Tags         []items.Tag
}

// taskPage is /app/tasks/:id: a task, its notes rendered, its status buttons.
func (h *Handler) taskPage(c *gin.Context, sess accounts.Session) {
	ctx := c.Request.Context()
	t, err := h.tasks.Get(ctx, web.Principal(sess), c.Param("id"))
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	resp, err := tasks.ToResponse(t)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	html, err := rendered(t.Item.Notes)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	names, _, err := h.places(ctx, sess)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v := taskView{view: base(&sess, resp.Title, "tasks"), HTML: html, NotebookID: resp.NotebookID, Statuses: tasks.Statuses,
		Archived: resp.Archived, Back: "/app/tasks/" + url.PathEscape(resp.ID)}
	v.Task = taskRows([]tasks.Response{resp}, names, v.Loc)[0]
	v.TargetAt, v.FollowUpAt = stampAt(resp.TargetAt, v.Loc), stampAt(resp.FollowUpAt, v.Loc)
	v.Created, v.Updated = stampOf(t.Item.CreatedAt, v.Loc), stampOf(t.Item.UpdatedAt, v.Loc)
	v.People, v.Tags = splitTags(resp.Tags)
	switch c.Query("done") {
	case "status":
		v.Notice = "Status changed to " + statusLabel(resp.Status) + "."
	case "created":
		v.Notice = "Task created."
	case "saved":
		v.Notice = "Saved."
	}
	h.pages.Render(c, http.StatusOK, "task", v)
}

// setStatus changes a task's status in one action (PATCH /tasks/:id {status}, as MCP's
// update_task: the status alone, whatever else changed meanwhile), then returns to the page the
// button was on.
func (h *Handler) setStatus(c *gin.Context, sess accounts.Session) {
	id := c.Param("id")
	var req tasks.PatchRequest
	req.Status = httpx.Optional[string]{Present: true, Value: c.Request.PostForm.Get("status")}
	if _, err := h.tasks.UpdateFrom(c.Request.Context(), web.Principal(sess), id, req, etag.IfMatch{}); err != nil {
		h.fail(c, sess, err)
		return
	}
	to, err := url.Parse(back(c, "/app/tasks/"+url.PathEscape(id)))
	if err != nil {
		to = &url.URL{Path: "/app/tasks/" + id}
	}
	q := to.Query()
	q.Set("done", "status")
	to.RawQuery = q.Encode()
	c.Redirect(http.StatusSeeOther, to.String())
}
