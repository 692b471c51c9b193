package suggestions

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/platform/auth"
	"folio/platform/httpx"
	"folio/platform/paginate"
)

// Handler serves the suggestion endpoints, for every registered kind of content.
type Handler struct{ svc *Service }

// NewHandler returns the suggestions handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register implements httpx.Routes: POST /<kind>s/:id/suggest and GET /<kind>s/:id/suggestions per
// kind, the inbox (GET /suggestions, GET /suggestions/:id), and the approve and reject endpoints.
func (h *Handler) Register(r httpx.Router) {
	for _, kind := range h.svc.Kinds() {
		r.API.POST("/"+kind+"s/:id/suggest", httpx.Handle(h.suggest(kind)))
		r.API.GET("/"+kind+"s/:id/suggestions", httpx.Handle(h.list(kind)))
	}
	r.API.GET("/suggestions", httpx.Handle(h.inbox))
	r.API.GET("/suggestions/:id", httpx.Handle(h.get))
	r.API.POST("/suggestions/:id/approve", httpx.Handle(h.approve))
	r.API.POST("/suggestions/:id/reject", httpx.Handle(h.reject))
}

func (h *Handler) suggest(kind string) httpx.HandlerFunc {
	return func(c *gin.Context) error {
		var req suggestRequest
		if err := httpx.Bind(c, &req); err != nil {
			return err
		}
		sg, err := h.svc.Propose(c.Request.Context(), auth.FromGin(c), kind, c.Param("id"), "content", req.Content, req.Rationale.Value)
		if err != nil {
			return err
		}
		httpx.Location(c, "suggestions", sg.ID)
		return httpx.WriteTagged(c, http.StatusCreated, sg.ETag(), sg, toProposed)
	}
}

func (h *Handler) list(kind string) httpx.HandlerFunc {
	return func(c *gin.Context) error {
		return auth.WriteList(c, false, func(ctx context.Context, p *auth.Principal, page paginate.Params) ([]Suggestion, *string, error) {
			return h.svc.List(ctx, p, kind, c.Param("id"), page)
		}, toListItem)
	}
}

// approve answers with the resolved suggestion's ETag. If-Match carries the item's ETag as the
// reviewer saw it (CONTRACT.md section 12). The body is optional (SPEC.md has none): {"hunks":
// [...]} approves only those hunks (CONTRACT.md section 22).
func (h *Handler) approve(c *gin.Context) error {
	var body approveRequest
	if _, err := httpx.BindIfAny(c, &body); err != nil {
		return err
	}
	req := ApproveRequest{IfMatch: httpx.IfMatch(c), Choose: body.Hunks.Present}
	for _, raw := range body.Hunks.Value {
		req.Hunks = append(req.Hunks, string(raw))
	}
	a, err := h.svc.Approve(c.Request.Context(), auth.FromGin(c), c.Param("id"), req)
	if err != nil {
		return err
	}
	return httpx.WriteTagged(c, http.StatusOK, a.ETag(), a, httpx.Infallible(toApproved))
}

func (h *Handler) reject(c *gin.Context) error {
	sg, err := h.svc.Reject(c.Request.Context(), auth.FromGin(c), c.Param("id"))
	if err != nil {
		return err
	}
	return httpx.WriteTagged(c, http.StatusOK, sg.ETag(), sg, httpx.Infallible(toResolved))
}

// inbox is GET /suggestions: the suggestions on every item the caller can read.
func (h *Handler) inbox(c *gin.Context) error {
	q := InboxQuery{Query: paginate.QueryFromGin(c)}
	q.Status, _ = httpx.QueryString(c, "status")
	q.ItemKind, _ = httpx.QueryString(c, "itemKind")
	q.NotebookID, _ = httpx.QueryString(c, "notebookId")
	page, err := h.svc.SearchInbox(c.Request.Context(), auth.FromGin(c), q)
	if err != nil {
		return err
	}
	httpx.JSON(c, http.StatusOK, page)
	return nil
}

// get is GET /suggestions/:id: one suggestion with the diff from its item's current content and
// its hunks. It has no ETag: stale, mergeable, the hunks and the diff change with the item, which
// the suggestion's version does not follow.
func (h *Handler) get(c *gin.Context) error {
	d, err := h.svc.FindDetail(c.Request.Context(), auth.FromGin(c), c.Param("id"))
	if err != nil {
		return err
	}
	httpx.JSON(c, http.StatusOK, d)
	return nil
}
