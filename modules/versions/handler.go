package versions

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/modules/content"
	"folio/platform/auth"
	"folio/platform/httpx"
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
type Handler struct{ svc *Service }

// NewHandler returns the versions handler.
func NewHandler(s *Service) *Handler { return &Handler{svc: s} }

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	for _, t := range h.svc.targets {
		base := "/" + t.Kind() + "s/:id/versions"
		r.API.GET(base, httpx.Handle(h.list(t.Kind())))
		r.API.GET(base+"/:versionId", httpx.Handle(h.get(t.Kind())))
		r.API.POST(base+"/:versionId/restore", httpx.Handle(h.restore(t)))
	}
}

func (h *Handler) list(kind string) httpx.HandlerFunc {
	return func(c *gin.Context) error {
		page, err := h.svc.ListPage(c.Request.Context(), auth.FromGin(c), kind, c.Param("id"), paginate.QueryFromGin(c))
		if err != nil {
			return err
		}
		httpx.JSON(c, http.StatusOK, page)
		return nil
	}
}

func (h *Handler) get(kind string) httpx.HandlerFunc {
	return func(c *gin.Context) error {
		v, err := h.svc.Get(c.Request.Context(), auth.FromGin(c), kind, c.Param("id"), c.Param("versionId"))
		if err != nil {
			return err
		}
		return httpx.Write(c, http.StatusOK, v, toVersionDetail)
	}
}

// restore answers 200 with the item as its GET does (without a note's pendingSuggestion) and its
// new ETag (Service.Restore).
func (h *Handler) restore(t content.Target) httpx.HandlerFunc {
	return func(c *gin.Context) error {
		resp, tag, err := h.svc.Restore(c.Request.Context(), auth.FromGin(c), t.Kind(), c.Param("id"), c.Param("versionId"), httpx.IfMatch(c))
		if err != nil {
			return err
		}
		c.Header("ETag", tag)
		httpx.JSON(c, http.StatusOK, resp)
		return nil
	}
}

// VersionResponse is a version as GET /<kind>s/:id/versions lists it; the MCP server answers with
// the same.
type VersionResponse = versionResponse
