package webhooks

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/platform/auth"
	"folio/platform/httpx"
	"folio/platform/paginate"
)

// Handler serves the webhook endpoints.
type Handler struct{ svc *Service }

// NewHandler returns the webhooks handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	r.API.POST("/webhooks", httpx.Handle(h.create))
	r.API.GET("/webhooks", auth.ListHandler(false, h.svc.List, httpx.Infallible(toWebhookResponse)))
	r.API.GET("/webhooks/:id", httpx.Handle(h.get))
	r.API.DELETE("/webhooks/:id", auth.DeleteHandler(h.svc.Delete))
	r.API.GET("/webhooks/:id/deliveries", httpx.Handle(h.deliveries))
}

func (h *Handler) create(c *gin.Context) error {
	var req createRequest
	if err := httpx.Bind(c, &req); err != nil {
		return err
	}
	w, err := h.svc.Create(c.Request.Context(), auth.FromGin(c), NewWebhook{URL: req.URL, Events: req.Events.Value, Description: req.Description.Value})
	if err != nil {
		return err
	}
	httpx.Location(c, "webhooks", w.ID)
	httpx.JSON(c, http.StatusCreated, createdResponse{webhookResponse: toWebhookResponse(w), Secret: w.Secret})
	return nil
}

func (h *Handler) get(c *gin.Context) error {
	w, err := h.svc.Get(c.Request.Context(), auth.FromGin(c), c.Param("id"))
	if err != nil {
		return err
	}
	httpx.JSON(c, http.StatusOK, toWebhookResponse(w))
	return nil
}

func (h *Handler) deliveries(c *gin.Context) error {
	return auth.WriteList(c, true, func(ctx context.Context, p *auth.Principal, page paginate.Params) ([]Attempt, *string, error) {
		return h.svc.Deliveries(ctx, p, c.Param("id"), page)
	}, httpx.Infallible(toAttemptResponse))
}
