package calendar

import (
	"bytes"
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"

	"folio/platform/auth"
	"folio/platform/httpx"
)

// Handler serves the calendar feed endpoints.
type Handler struct {
	svc     *Service
	guard   *auth.Guard
	proxies httpx.Proxies
}

// HandlerParams are the dependencies of NewHandler.
type HandlerParams struct {
	fx.In
	Service *Service
	Guard   *auth.Guard
	Proxies httpx.TrustedProxies
}

// NewHandler returns the calendar handler.
func NewHandler(p HandlerParams) *Handler {
	return &Handler{svc: p.Service, guard: p.Guard, proxies: httpx.ParseProxies(p.Proxies)}
}

// FeedPath is where the feeds are served: FeedPath + "<token>.ics".
const FeedPath = httpx.APIBase + "/calendar/"

// URL is the address of the feed whose token is token, as the create answer gives it: a path
// under the API (a client resolves it against the server's address it called).
func URL(token string) string { return FeedPath + token + ".ics" }

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	r.API.POST("/calendar-feeds", httpx.Handle(h.create))
	r.API.GET("/calendar-feeds", auth.ListHandler(false, h.svc.List, httpx.Infallible(toFeedResponse)))
	r.API.DELETE("/calendar-feeds/:id", auth.DeleteHandler(h.svc.Delete))
	// A feed's address is its credential, for calendar apps that send no header: outside the API
	// group and its guard (which would ask for a key), guarded by serve itself.
	r.Public.GET(FeedPath+":file", httpx.Handle(h.serve))
}

func (h *Handler) create(c *gin.Context) error {
	p := auth.FromGin(c)
	if err := MayCreate(p); err != nil {
		return err
	}
	var req createRequest
	if err := httpx.Bind(c, &req); err != nil {
		return err
	}
	in := NewFeed{Name: req.Name}
	if req.NotebookID.Present && !req.NotebookID.Null {
		in.NotebookID = &req.NotebookID.Value
	}
	f, err := h.svc.Create(c.Request.Context(), p, in)
	if err != nil {
		return err
	}
	httpx.Location(c, "calendar-feeds", f.ID)
	httpx.JSON(c, http.StatusCreated, createdResponse{feedResponse: toFeedResponse(f.View), URL: URL(f.Token)})
	return nil
}

// serve answers GET /api/v1/calendar/<token>.ics: the feed, read as its credential now. What the
// API guard does around authentication is done here too: an address that names no live feed (an
// unknown token, a dead credential, a notebook out of reach: all 404 alike) counts as a failed
// authentication of the client's address, and a served feed counts against its user's rate limit.
// The ETag is made of what the body is made of, so a calendar app polling with If-None-Match gets
// 304 without the calendar being written.
func (h *Handler) serve(c *gin.Context) error {
	ctx := c.Request.Context()
	token, ok := strings.CutSuffix(c.Param("file"), ".ics")
	if !ok {
		token = "" // Open refuses it as malformed
	}
	f, p, reason, err := h.svc.Open(ctx, token)
	if errors.Is(err, ErrNotFound) {
		return h.guard.Refused(c, reason, err)
	}
	if err != nil {
		return err
	}
	if err := h.guard.Served(c, p.UserID); err != nil {
		return err
	}
	entries, err := h.svc.Entries(ctx, f, p)
	if err != nil {
		return err
	}
	base := h.proxies.Origin(c.Request)
	// Private: the address is a secret and the body one user's; no-cache: ask again each time,
	// which the ETag makes cheap.
	c.Header("Cache-Control", "private, no-cache")
	if httpx.NotModified(c, ETag(f, base, entries)) {
		return nil
	}
	var body bytes.Buffer
	if err := Write(&body, f, base, entries); err != nil {
		return err
	}
	c.Data(http.StatusOK, "text/calendar; charset=utf-8", body.Bytes())
	return nil
}
