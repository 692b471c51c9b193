package audit

import (
	"net/http"

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
		if rt == "" { // an enum: "" is not one of its values (as for status and archived)
			return ErrResourceType
		}
		f.ResourceType = rt
	}
	rows, next, err := h.svc.List(c.Request.Context(), auth.FromGin(c), f, page)
	if err != nil {
		return err
	}
	data := make([]entryResponse, len(rows))
	for i, e := range rows {
		data[i] = toEntryResponse(e)
	}
	c.JSON(http.StatusOK, paginate.Page[entryResponse]{Data: data, NextCursor: next})
	return nil
}
