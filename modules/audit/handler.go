package audit

import (
	"github.com/gin-gonic/gin"

	"folio/platform/auth"
	"folio/platform/httpx"
	"folio/platform/paginate"
)

// Handler serves GET /audit-log.
type Handler struct{ svc *Service }

// NewHandler returns the audit handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	r.API.GET("/audit-log", httpx.Handle(h.list))
}

func (h *Handler) list(c *gin.Context) error {
	page, err := paginate.FromGin(c, true)
	if err != nil {
		return err
	}
	f := Filter{APIKeyID: c.Query("apiKeyId")} // an empty id filter is no filter, like an empty cursor
	if rt, ok := c.GetQuery("resourceType"); ok {
		f.ResourceType = &rt // an enum: "" is not one of its values (as for status and archived)
	}
	rows, next, err := h.svc.List(c.Request.Context(), auth.FromGin(c), f, page)
	if err != nil {
		return err
	}
	return httpx.WritePage(c, rows, next, httpx.Infallible(toEntryResponse))
}
