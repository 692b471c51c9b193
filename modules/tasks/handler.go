package tasks

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/modules/items"
	"folio/platform/auth"
	"folio/platform/httpx"
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
	q := ListQuery{ListQuery: items.ListQueryFromGin(c), Status: httpx.QueryValue(c, "status")}
	q.Priority, _ = httpx.QueryString(c, "priority")
	q.DueFrom, _ = httpx.QueryString(c, "dueFrom")
	q.DueTo, _ = httpx.QueryString(c, "dueTo")
	page, err := h.svc.Search(c.Request.Context(), auth.FromGin(c), q)
	if err != nil {
		return err
	}
	httpx.JSON(c, http.StatusOK, page)
	return nil
}

func (h *Handler) get(c *gin.Context) error {
	v, err := h.svc.Get(c.Request.Context(), auth.FromGin(c), c.Param("id"))
	if err != nil {
		return err
	}
	return httpx.WriteTagged(c, http.StatusOK, v.Item.ETag(), v, toTaskResponse)
}

func (h *Handler) create(c *gin.Context) error {
	var req createRequest
	if err := httpx.Bind(c, &req); err != nil {
		return err
	}
	v, err := h.svc.CreateFrom(c.Request.Context(), auth.FromGin(c), req)
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
	v, err := h.svc.UpdateFrom(c.Request.Context(), auth.FromGin(c), c.Param("id"), req, httpx.IfMatch(c))
	if err != nil {
		return err
	}
	return httpx.WriteTagged(c, http.StatusOK, v.Item.ETag(), v, toTaskResponse)
}
