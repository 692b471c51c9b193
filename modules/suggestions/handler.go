package suggestions

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/platform/auth"
	"folio/platform/content"
	"folio/platform/httpx"
	"folio/platform/paginate"
)

// Handler serves the suggestion endpoints, for every registered kind of content.
type Handler struct{ svc *Service }

// NewHandler returns the suggestions handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register implements httpx.Routes: POST /<kind>s/:id/suggest and GET /<kind>s/:id/suggestions per
// kind, and the approve and reject endpoints.
func (h *Handler) Register(r httpx.Router) {
	for _, kind := range h.svc.Kinds() {
		r.API.POST("/"+kind+"s/:id/suggest", httpx.Handle(h.suggest(kind)))
		r.API.GET("/"+kind+"s/:id/suggestions", httpx.Handle(h.list(kind)))
	}
	r.API.POST("/suggestions/:id/approve", httpx.Handle(h.approve))
	r.API.POST("/suggestions/:id/reject", httpx.Handle(h.reject))
}

func (h *Handler) suggest(kind string) httpx.HandlerFunc {
	return func(c *gin.Context) error {
		var req suggestRequest
		if err := httpx.Bind(c, &req); err != nil {
			return err
		}
		if err := ValidateRationale(req.Rationale.Value); err != nil {
			return err
		}
		doc, err := content.Parse("content", req.Content)
		if err != nil {
			return err
		}
		sg, err := h.svc.Suggest(c.Request.Context(), auth.FromGin(c), kind, c.Param("id"), doc, req.Rationale.Value)
		if err != nil {
			return err
		}
		resp, err := toSuggestionResponse(sg)
		if err != nil {
			return err
		}
		httpx.Location(c, "suggestions", sg.ID)
		httpx.JSON(c, http.StatusCreated, resp)
		return nil
	}
}

func (h *Handler) list(kind string) httpx.HandlerFunc {
	return func(c *gin.Context) error {
		return auth.WriteList(c, false, func(ctx context.Context, p *auth.Principal, page paginate.Params) ([]Suggestion, *string, error) {
			return h.svc.List(ctx, p, kind, c.Param("id"), page)
		}, toListItem)
	}
}

func (h *Handler) approve(c *gin.Context) error {
	if err := h.svc.Approve(c.Request.Context(), auth.FromGin(c), c.Param("id")); err != nil {
		return err
	}
	httpx.JSON(c, http.StatusOK, gin.H{"ok": true, "status": StatusApproved})
	return nil
}

func (h *Handler) reject(c *gin.Context) error {
	if err := h.svc.Reject(c.Request.Context(), auth.FromGin(c), c.Param("id")); err != nil {
		return err
	}
	httpx.JSON(c, http.StatusOK, gin.H{"ok": true, "status": StatusRejected})
	return nil
}
