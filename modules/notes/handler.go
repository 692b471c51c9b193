package notes

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/modules/document"
	"folio/modules/items"
	"folio/platform/auth"
	"folio/platform/httpx"
)

// mimeMarkdown is the media type of GET /notes/:id's Markdown representation.
const mimeMarkdown = "text/markdown"

// Handler serves the note endpoints.
type Handler struct {
	svc    *Service
	viewer *Viewer
}

// NewHandler returns the notes handler.
func NewHandler(svc *Service, viewer *Viewer) *Handler { return &Handler{svc: svc, viewer: viewer} }

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	r.API.GET("/notes", httpx.Handle(h.list))
	r.API.GET("/notes/:id", httpx.Handle(h.get))
	r.API.POST("/notes", httpx.Handle(h.create))
	r.API.PATCH("/notes/:id", httpx.Handle(h.update))
	r.API.DELETE("/notes/:id", items.DeleteHandler(h.svc.Delete))
}

func (h *Handler) list(c *gin.Context) error {
	q := ListQuery{ListQuery: items.ListQueryFromGin(c), HasDecision: httpx.QueryValue(c, "hasDecision")}
	page, err := h.svc.Search(c.Request.Context(), auth.FromGin(c), q)
	if err != nil {
		return err
	}
	httpx.JSON(c, http.StatusOK, page)
	return nil
}

func (h *Handler) get(c *gin.Context) error {
	// The ETag is the note's version, read before the pending suggestion: suggesting and rejecting
	// bump it (Shape.ShowsPending), so a change of either gives a new ETag, and a body is never
	// older than the ETag it comes with.
	// Two representations: JSON, and the content alone with Accept: text/markdown (CONTRACT.md
	// section 17). They share the ETag, so that If-Match on a PATCH works whichever was read.
	// Neither a 304 nor the Markdown shows the pending suggestion, so neither reads it.
	var notModified, markdown bool
	v, out, err := h.viewer.Read(c.Request.Context(), auth.FromGin(c), c.Param("id"), func(v View) bool {
		c.Writer.Header().Add("Vary", "Accept")
		if notModified = httpx.NotModified(c, v.Item.ETag()); notModified {
			return true
		}
		// Without an Accept header NegotiateFormat answers JSON, the first offer; it is asked only
		// when there is one to parse (parsing splits the header, two allocations on every read).
		markdown = c.GetHeader("Accept") != "" && c.NegotiateFormat(gin.MIMEJSON, mimeMarkdown) == mimeMarkdown
		return markdown
	})
	switch {
	case err != nil:
		return err
	case notModified:
		return nil
	case markdown:
		text, err := document.Read(v.Item.Content, v.Item.ContentText)
		if err != nil {
			return err
		}
		c.Data(http.StatusOK, mimeMarkdown+"; charset=utf-8", []byte(text))
		return nil
	}
	httpx.JSON(c, http.StatusOK, out)
	return nil
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
	httpx.Location(c, "notes", v.Item.ID)
	return httpx.WriteTagged(c, http.StatusCreated, v.Item.ETag(), v, toNoteResponse)
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
	return httpx.WriteTagged(c, http.StatusOK, v.Item.ETag(), v, toNoteResponse)
}
