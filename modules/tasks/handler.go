package tasks

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"folio/modules/content"
	"folio/modules/items"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/httpx"
	"folio/platform/markdown"
)

// Handler serves the task endpoints.
type Handler struct{ svc *Service }

// NewHandler returns the tasks handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	r.API.GET("/tasks", httpx.Handle(h.list))
	r.API.GET("/tasks/:id", httpx.Handle(h.get))
	r.API.POST("/tasks", httpx.Handle(h.create))
	r.API.PATCH("/tasks/:id", httpx.Handle(h.update))
	r.API.DELETE("/tasks/:id", items.DeleteHandler(h.svc.Delete))
}

func (h *Handler) list(c *gin.Context) error {
	shared, page, err := items.ListFromGin(c)
	if err != nil {
		return err
	}
	f := Filter{ListFilter: shared}
	if st, ok := c.GetQuery("status"); ok {
		f.Status = &st
	}
	if pr, ok := httpx.QueryString(c, "priority"); ok {
		if !slices.Contains(Priorities, pr) {
			return apierr.Validation("query parameter \"priority\" must be one of %s", strings.Join(Priorities, ", "))
		}
		f.Conditions = append(f.Conditions, items.Condition{SQL: "tasks.priority = ?", Args: []any{pr}})
	}
	from, to, err := items.DateRange(c, "dueFrom", "dueTo")
	if err != nil {
		return err
	}
	if from != nil {
		f.Conditions = append(f.Conditions, items.Condition{SQL: "tasks.due_at >= ?", Args: []any{*from}})
	}
	if to != nil {
		f.Conditions = append(f.Conditions, items.Condition{SQL: "tasks.due_at < ?", Args: []any{*to}})
	}
	views, next, err := h.svc.List(c.Request.Context(), auth.FromGin(c), f, page)
	if err != nil {
		return err
	}
	return httpx.WritePage(c, views, next, toTaskResponse)
}

func (h *Handler) get(c *gin.Context) error {
	v, err := h.svc.Get(c.Request.Context(), auth.FromGin(c), c.Param("id"))
	if err != nil {
		return err
	}
	return httpx.WriteTagged(c, http.StatusOK, v.Item.ETag(), v, toTaskResponse)
}

// parseNotes validates optional, nullable task notes: absent or null is empty.
func parseNotes(o httpx.Optional[string]) (markdown.Doc, error) {
	if !o.Present || o.Null {
		return content.Parse("notes", "")
	}
	return content.Parse("notes", o.Value)
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

func (h *Handler) create(c *gin.Context) error {
	var req createRequest
	if err := httpx.Bind(c, &req); err != nil {
		return err
	}
	in := NewTask{Title: req.Title, NotebookID: req.NotebookID, Status: req.Status.Value, Priority: req.Priority.Value}
	if err := in.Validate(); err != nil {
		return err
	}
	notes, err := parseNotes(req.Notes)
	if err != nil {
		return err
	}
	in.Notes = notes
	due, target, followUp, err := dates(req.DueAt, req.TargetAt, req.FollowUpAt)
	if err != nil {
		return err
	}
	if due != nil {
		in.DueAt = *due
	}
	if target != nil {
		in.TargetAt = *target
	}
	if followUp != nil {
		in.FollowUpAt = *followUp
	}
	v, err := h.svc.Create(c.Request.Context(), auth.FromGin(c), in)
	if err != nil {
		return err
	}
	httpx.Location(c, "tasks", v.Item.ID)
	return httpx.WriteTagged(c, http.StatusCreated, v.Item.ETag(), v, toTaskResponse)
}

func (h *Handler) update(c *gin.Context) error {
	var req patchRequest
	if err := httpx.Bind(c, &req); err != nil {
		return err
	}
	var patch Patch
	if req.Title.Present {
		patch.Title = &req.Title.Value
	}
	if req.Notes.Present {
		notes, err := parseNotes(req.Notes)
		if err != nil {
			return err
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
		return err
	}
	if req.Archived.Present {
		patch.Archived = &req.Archived.Value
	}
	if req.NotebookID.Present {
		patch.NotebookID = &req.NotebookID.Value
	}
	v, err := h.svc.Update(c.Request.Context(), auth.FromGin(c), c.Param("id"), patch, httpx.IfMatch(c))
	if err != nil {
		return err
	}
	return httpx.WriteTagged(c, http.StatusOK, v.Item.ETag(), v, toTaskResponse)
}
