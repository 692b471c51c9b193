package audit

import (
	"context"

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
	f := Filter{APIKeyID: c.Query("apiKeyId")} // an empty id filter is no filter, like an empty cursor
	if rt, ok := c.GetQuery("resourceType"); ok {
		f.ResourceType = &rt // an enum: "" is not one of its values (as for status and archived)
	}
	// The audit log's ids are integers: its cursor is one.
	return auth.WriteList(c, true, func(ctx context.Context, p *auth.Principal, page paginate.Params) ([]Entry, *string, error) {
		return h.svc.List(ctx, p, f, page)
	}, httpx.Infallible(toEntryResponse))
}
