package notes

import (
	"net/http"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"

	"folio/modules/content"
	"folio/modules/items"
	"folio/platform/auth"
	"folio/platform/httpx"
)

// mimeMarkdown is the media type of GET /notes/:id's Markdown representation.
const mimeMarkdown = "text/markdown"

// Handler serves the note endpoints.
type Handler struct {
	svc     *Service
	pending content.Pending // nil when no suggestions module is wired
}

// HandlerParams are the dependencies of NewHandler. The pending-suggestion finder is optional:
// the notes module works without the suggestions module.
type HandlerParams struct {
	fx.In
	Service *Service
	Pending content.Pending `optional:"true"`
}

// NewHandler returns the notes handler.
func NewHandler(p HandlerParams) *Handler { return &Handler{svc: p.Service, pending: p.Pending} }

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	r.API.GET("/notes", httpx.Handle(h.list))
	r.API.GET("/notes/:id", httpx.Handle(h.get))
	r.API.POST("/notes", httpx.Handle(h.create))
	r.API.PATCH("/notes/:id", httpx.Handle(h.update))
	r.API.DELETE("/notes/:id", items.DeleteHandler(h.svc.Delete))
}

func (h *Handler) list(c *gin.Context) error {
	f, page, err := items.ListFromGin(c)
	if err != nil {
		return err
	}
	if _, ok := c.GetQuery("hasDecision"); ok {
		has, err := httpx.QueryBool(c, "hasDecision", false)
		if err != nil {
			return err
		}
		f.Conditions = append(f.Conditions, items.Condition{SQL: "notes.has_decision = ?", Args: []any{has}})
	}
	views, next, err := h.svc.List(c.Request.Context(), auth.FromGin(c), f, page)
	if err != nil {
		return err
	}
	return httpx.WritePage(c, views, next, toNoteResponse)
}

func (h *Handler) get(c *gin.Context) error {
	v, err := h.svc.Get(c.Request.Context(), auth.FromGin(c), c.Param("id"))
	if err != nil {
		return err
	}
	// The ETag is the note's version, read before the pending suggestion: suggesting and rejecting
	// bump it (Shape.ShowsPending), so a change of either gives a new ETag, and a body is never
	// older than the ETag it comes with.
	// Two representations: JSON, and the content alone with Accept: text/markdown (CONTRACT.md
	// section 17). They share the ETag, so that If-Match on a PATCH works whichever was read.
	c.Writer.Header().Add("Vary", "Accept")
	if httpx.NotModified(c, v.Item.ETag()) {
		return nil
	}
	if c.NegotiateFormat(gin.MIMEJSON, mimeMarkdown) == mimeMarkdown {
		text, err := content.Render(v.Item.Content)
		if err != nil {
			return err
		}
		c.Data(http.StatusOK, mimeMarkdown+"; charset=utf-8", []byte(text))
		return nil
	}
	resp, err := toNoteResponse(v)
	if err != nil {
		return err
	}
	var pending *content.Suggestion
	if h.pending != nil {
		if pending, err = h.pending.PendingFor(c.Request.Context(), ItemKind, v.Item.ID); err != nil {
			return err
		}
	}
	httpx.JSON(c, http.StatusOK, noteWithPending{noteResponse: resp, PendingSuggestion: pending})
	return nil
}

func (h *Handler) create(c *gin.Context) error {
	var req createRequest
	if err := httpx.Bind(c, &req); err != nil {
		return err
	}
	doc, err := content.Parse("content", req.Content)
	if err != nil {
		return err
	}
	in := NewNote{Content: doc, NotebookID: req.NotebookID}
	targetAt, err := httpx.OptionalDate("targetAt", req.TargetAt)
	if err != nil {
		return err
	}
	followUpAt, err := httpx.OptionalDate("followUpAt", req.FollowUpAt)
	if err != nil {
		return err
	}
	if targetAt != nil {
		in.TargetAt = *targetAt
	}
	if followUpAt != nil {
		in.FollowUpAt = *followUpAt
	}
	v, err := h.svc.Create(c.Request.Context(), auth.FromGin(c), in)
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
	var patch Patch
	var err error
	if req.Content.Present {
		doc, err := content.Parse("content", req.Content.Value)
		if err != nil {
			return err
		}
		patch.Content = &doc
	}
	if req.NotebookID.Present {
		patch.NotebookID = &req.NotebookID.Value
	}
	if patch.TargetAt, err = httpx.OptionalDate("targetAt", req.TargetAt); err != nil {
		return err
	}
	if patch.FollowUpAt, err = httpx.OptionalDate("followUpAt", req.FollowUpAt); err != nil {
		return err
	}
	if req.Archived.Present {
		patch.Archived = &req.Archived.Value
	}
	v, err := h.svc.Update(c.Request.Context(), auth.FromGin(c), c.Param("id"), patch, httpx.IfMatch(c))
	if err != nil {
		return err
	}
	return httpx.WriteTagged(c, http.StatusOK, v.Item.ETag(), v, toNoteResponse)
}
