// Package httpx is folio's HTTP platform: the gin engine and its middleware (request id, access
// log, panic recovery, body limit, error envelope), the routes value group that modules join, the
// server whose start and graceful stop follow the fx lifecycle, and the strict JSON binding and
// wire formats every handler shares.
package httpx

import (
	"github.com/gin-gonic/gin"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"folio/platform/apierr"
)

// APIBase is the path prefix of every API route.
const APIBase = "/api/v1"

// Router is what a module registers its routes on.
type Router struct {
	// Public routes need no authentication (health checks, the settings UI's pages).
	Public RouteGroup
	// API routes live under /api/v1; every request on them has passed authentication, the rate
	// limit and the method-versus-scope check before the handler runs.
	API RouteGroup
}

// RouteGroup is a gin route group narrowed to the methods folio uses, so that one rule holds for
// every route: a GET route also answers HEAD (CONTRACT.md section 11), with the same handlers and
// so the same headers; net/http drops the body of a HEAD response. gin has no implicit HEAD, and
// registering it here, beside the GET, keeps HEAD inside the route's group (the API guard runs,
// 405 stays 405 for paths without a GET) where a rewrite of the method before routing would not.
// There is deliberately no Handle, Any or HEAD: a route cannot be registered around the rule.
type RouteGroup struct{ g *gin.RouterGroup }

// NewRouteGroup wraps a gin route group.
func NewRouteGroup(g *gin.RouterGroup) RouteGroup { return RouteGroup{g: g} }

// GET registers a GET route and the HEAD route beside it.
func (r RouteGroup) GET(path string, h ...gin.HandlerFunc) {
	r.g.GET(path, h...)
	r.g.HEAD(path, h...)
}

// POST registers a POST route.
func (r RouteGroup) POST(path string, h ...gin.HandlerFunc) { r.g.POST(path, h...) }

// PATCH registers a PATCH route.
func (r RouteGroup) PATCH(path string, h ...gin.HandlerFunc) { r.g.PATCH(path, h...) }

// PUT registers a PUT route.
func (r RouteGroup) PUT(path string, h ...gin.HandlerFunc) { r.g.PUT(path, h...) }

// DELETE registers a DELETE route.
func (r RouteGroup) DELETE(path string, h ...gin.HandlerFunc) { r.g.DELETE(path, h...) }

// Group returns a sub-group under path whose routes run h first.
func (r RouteGroup) Group(path string, h ...gin.HandlerFunc) RouteGroup {
	return RouteGroup{g: r.g.Group(path, h...)}
}

// Routes is implemented by every module's handler. Modules join the fx value group "routes"
// through AsRoutes.
type Routes interface {
	Register(r Router)
}

// AsRoutes annotates a constructor whose result implements Routes so that it joins the "routes"
// value group the engine registers: fx.Provide(httpx.AsRoutes(NewHandler)).
func AsRoutes(constructor any) any {
	return fx.Annotate(constructor, fx.As(new(Routes)), fx.ResultTags(`group:"routes"`))
}

// HandlerFunc is a gin handler that returns its error instead of writing it.
type HandlerFunc func(c *gin.Context) error

// Handle adapts h to gin: a returned error is recorded on the context and the envelope middleware
// writes it.
func Handle(h HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := h(c); err != nil {
			Fail(c, err)
		}
	}
}

// Fail aborts the request with err; the envelope middleware turns it into the error response.
func Fail(c *gin.Context, err error) {
	_ = c.Error(err)
	c.Abort()
}

const (
	ctxRequestID  = "folio.requestID"
	ctxBaseLogger = "folio.baseLogger"
	ctxLogger     = "folio.logger"
	ctxErrCode    = "folio.errorCode"
	ctxUserID     = "folio.userID"
)

// RequestID returns the request's id (set by the request id middleware).
func RequestID(c *gin.Context) string { return c.GetString(ctxRequestID) }

// SetUserID records the acting user's id for the access log.
func SetUserID(c *gin.Context, id string) { c.Set(ctxUserID, id) }

// Logger returns the request-scoped logger (carrying the request id). It is made on first use:
// most requests log nothing (the access log line is built only when its level is enabled), and
// zap's With encodes its fields eagerly.
func Logger(c *gin.Context) *zap.Logger {
	if l, ok := c.Get(ctxLogger); ok {
		return l.(*zap.Logger)
	}
	if base, ok := c.Get(ctxBaseLogger); ok {
		l := base.(*zap.Logger).With(zap.String("requestId", RequestID(c)))
		c.Set(ctxLogger, l)
		return l
	}
	return zap.NewNop()
}

// Envelope is the body of every error response, {"error": {"code", "message", "requestId"}}, and
// "details" for the few codes that carry them (apierr.Error.Details): the
// API's (WriteError), and the text of the MCP server's tool errors.
type Envelope struct {
	Error EnvelopeBody `json:"error"`
}

// EnvelopeBody is an Envelope's error.
type EnvelopeBody struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"requestId"`
	Details   any    `json:"details,omitempty"`
}

// Refusal is the answer to a request, of id requestID, that failed with err: the *apierr.Error in
// err's chain (apierr.From: anything else is a 500 INTERNAL_ERROR whose message says nothing of
// internals) and its envelope. A 5xx is logged with err, its cause, on the logger log returns,
// which is asked for only then.
func Refusal(err error, requestID string, log func() *zap.Logger) (*apierr.Error, Envelope) {
	ae := apierr.From(err)
	if ae.Status >= 500 {
		log().Error("request failed", zap.Int("status", ae.Status), zap.String("code", ae.Code), zap.Error(err))
	}
	return ae, Envelope{Error: EnvelopeBody{Code: ae.Code, Message: ae.Message, RequestID: requestID, Details: ae.Details}}
}

// WriteError writes err as the error envelope (Refusal), with the error's headers.
func WriteError(c *gin.Context, err error) {
	ae, env := Refusal(err, RequestID(c), func() *zap.Logger { return Logger(c) })
	for k, v := range ae.Header {
		c.Header(k, v)
	}
	c.Set(ctxErrCode, ae.Code)
	c.Abort()
	JSON(c, ae.Status, env)
}
