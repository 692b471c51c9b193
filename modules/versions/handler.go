package versions

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"

	"folio/platform/auth"
	"folio/platform/content"
	"folio/platform/httpx"
	"folio/platform/markdown"
	"folio/platform/paginate"
)

// Handler serves the version endpoints of every kind of content (notes, tasks):
//
//	GET  /<kind>s/:id/versions                         the item's versions, newest first
//	GET  /<kind>s/:id/versions/:versionId              one, with its content
//	POST /<kind>s/:id/versions/:versionId/restore      make it the item's content again
//
// Access to the item is the content target's (read for the reads, write for the restore), so no
// rule is written here.
type Handler struct {
	svc     *Service
	targets []content.Target
}

// HandlerParams are the dependencies of NewHandler.
type HandlerParams struct {
	fx.In
	Service *Service
	Targets []content.Target `group:"contentTargets"`
}

// NewHandler returns the versions handler.
func NewHandler(p HandlerParams) *Handler { return &Handler{svc: p.Service, targets: p.Targets} }

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	for _, t := range h.targets {
		base := "/" + t.Kind() + "s/:id/versions"
		r.API.GET(base, httpx.Handle(h.list(t)))
		r.API.GET(base+"/:versionId", httpx.Handle(h.get(t)))
		r.API.POST(base+"/:versionId/restore", httpx.Handle(h.restore(t)))
	}
}

func (h *Handler) list(t content.Target) httpx.HandlerFunc {
	return func(c *gin.Context) error {
		return auth.WriteList(c, false, func(ctx context.Context, p *auth.Principal, page paginate.Params) ([]Snapshot, *string, error) {
			item, err := t.Get(ctx, p, c.Param("id"))
			if err != nil {
				return nil, nil, err
			}
			return h.svc.Page(ctx, t.Kind(), item.ID, page)
		}, httpx.Infallible(toVersionResponse))
	}
}

// version reads the item (the principal's read access) and then its version.
func (h *Handler) version(c *gin.Context, t content.Target) (Snapshot, error) {
	ctx := c.Request.Context()
	item, err := t.Get(ctx, auth.FromGin(c), c.Param("id"))
	if err != nil {
		return Snapshot{}, err
	}
	return h.svc.Get(ctx, t.Kind(), item.ID, c.Param("versionId"))
}

func (h *Handler) get(t content.Target) httpx.HandlerFunc {
	return func(c *gin.Context) error {
		v, err := h.version(c, t)
		if err != nil {
			return err
		}
		return httpx.Write(c, http.StatusOK, v, toVersionDetail)
	}
}

// restore answers 200 with the item as its GET does (without a note's pendingSuggestion) and its
// new ETag. The version is read first (read access), then the target restores under the item's
// lock, checking write access and If-Match.
func (h *Handler) restore(t content.Target) httpx.HandlerFunc {
	return func(c *gin.Context) error {
		v, err := h.version(c, t)
		if err != nil {
			return err
		}
		doc, err := markdown.Decode(v.Document)
		if err != nil {
			return err
		}
		resp, tag, err := t.Restore(c.Request.Context(), auth.FromGin(c), c.Param("id"), doc, httpx.IfMatch(c))
		if err != nil {
			return err
		}
		c.Header("ETag", tag)
		httpx.JSON(c, http.StatusOK, resp)
		return nil
	}
}
