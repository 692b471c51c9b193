package versions

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"

	"folio/modules/content"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/etag"
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
type Handler struct{ history *History }

// NewHandler returns the versions handler.
func NewHandler(h *History) *Handler { return &Handler{history: h} }

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	for _, t := range h.history.targets {
		base := "/" + t.Kind() + "s/:id/versions"
		r.API.GET(base, httpx.Handle(h.list(t.Kind())))
		r.API.GET(base+"/:versionId", httpx.Handle(h.get(t.Kind())))
		r.API.POST(base+"/:versionId/restore", httpx.Handle(h.restore(t)))
	}
}

func (h *Handler) list(kind string) httpx.HandlerFunc {
	return func(c *gin.Context) error {
		return auth.WriteList(c, false, func(ctx context.Context, p *auth.Principal, page paginate.Params) ([]Snapshot, *string, error) {
			return h.history.List(ctx, p, kind, c.Param("id"), page)
		}, httpx.Infallible(toVersionResponse))
	}
}

func (h *Handler) get(kind string) httpx.HandlerFunc {
	return func(c *gin.Context) error {
		v, err := h.history.Get(c.Request.Context(), auth.FromGin(c), kind, c.Param("id"), c.Param("versionId"))
		if err != nil {
			return err
		}
		return httpx.Write(c, http.StatusOK, v, toVersionDetail)
	}
}

// restore answers 200 with the item as its GET does (without a note's pendingSuggestion) and its
// new ETag (History.Restore).
func (h *Handler) restore(t content.Target) httpx.HandlerFunc {
	return func(c *gin.Context) error {
		resp, tag, err := h.history.Restore(c.Request.Context(), auth.FromGin(c), t.Kind(), c.Param("id"), c.Param("versionId"), httpx.IfMatch(c))
		if err != nil {
			return err
		}
		c.Header("ETag", tag)
		httpx.JSON(c, http.StatusOK, resp)
		return nil
	}
}

// History reads an item's versions for a principal: the item through its content target (read
// access, the kind's 404), then the versions. The API's handler and the MCP server's get_history
// tool use it.
type History struct {
	svc     *Service
	targets map[string]content.Target
}

// HistoryParams are the dependencies of NewHistory.
type HistoryParams struct {
	fx.In
	Service *Service
	Targets []content.Target `group:"contentTargets"`
}

// NewHistory returns the history reader.
func NewHistory(p HistoryParams) *History {
	h := &History{svc: p.Service, targets: map[string]content.Target{}}
	for _, t := range p.Targets {
		h.targets[t.Kind()] = t
	}
	return h
}

// Kinds are the kinds of items with versions.
func (h *History) Kinds() []string { return slices.Sorted(maps.Keys(h.targets)) }

// List returns a page of the versions of the item kind/id, newest first.
func (h *History) List(ctx context.Context, p *auth.Principal, kind, id string, page paginate.Params) ([]Snapshot, *string, error) {
	t, ok := h.targets[kind]
	if !ok {
		return nil, nil, apierr.Validation("kind must be one of %s", strings.Join(h.Kinds(), ", "))
	}
	item, err := t.Get(ctx, p, id)
	if err != nil {
		return nil, nil, err
	}
	return h.svc.Page(ctx, kind, item.ID, page)
}

// Get returns one version of the item kind/id.
func (h *History) Get(ctx context.Context, p *auth.Principal, kind, id, versionID string) (Snapshot, error) {
	t, ok := h.targets[kind]
	if !ok {
		return Snapshot{}, apierr.Validation("kind must be one of %s", strings.Join(h.Kinds(), ", "))
	}
	item, err := t.Get(ctx, p, id)
	if err != nil {
		return Snapshot{}, err
	}
	return h.svc.Get(ctx, kind, item.ID, versionID)
}

// VersionResponse is a version as GET /<kind>s/:id/versions lists it; the MCP server answers with
// the same.
type VersionResponse = versionResponse

// ToResponse is the API's conversion of a version in a list.
func ToResponse(v Snapshot) VersionResponse { return toVersionResponse(v) }

// Restore makes the version the item's content: the version is read first (read access), then the
// item's target restores it under the item's lock, checking write access and ifMatch. It answers
// the item as the API renders it, and its new ETag. The API and the review pages restore through it.
func (h *History) Restore(ctx context.Context, p *auth.Principal, kind, id, versionID string, ifMatch etag.IfMatch) (any, string, error) {
	v, err := h.Get(ctx, p, kind, id, versionID)
	if err != nil {
		return nil, "", err
	}
	doc, err := markdown.Decode(v.Document)
	if err != nil {
		return nil, "", err
	}
	return h.targets[kind].Restore(ctx, p, id, doc, ifMatch)
}
