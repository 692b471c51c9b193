package events

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/platform/auth"
	"folio/platform/httpx"
)

// Handler serves GET /events.
type Handler struct{ svc *Service }

// NewHandler returns the events handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	r.API.GET("/events", httpx.Handle(h.list))
}

func (h *Handler) list(c *gin.Context) error {
	limit, limitPresent := c.GetQuery("limit")
	q, err := ParseQuery(h.svc.catalog, c.Query("after"), c.Query("types"), limit, limitPresent)
	if err != nil {
		return err
	}
	rows, next, err := h.svc.List(c.Request.Context(), auth.FromGin(c), q)
	if err != nil {
		return err
	}
	size := 64
	for _, e := range rows {
		size += len(e.Data) + 400
	}
	c.Data(http.StatusOK, "application/json; charset=utf-8", appendPage(make([]byte, 0, size), rows, next))
	return nil
}
