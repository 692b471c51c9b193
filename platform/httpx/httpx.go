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
	Public gin.IRouter
	// API routes live under /api/v1; every request on them has passed authentication, the rate
	// limit and the method-versus-scope check before the handler runs.
	API gin.IRouter
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

// envelope is the body of every error response.
type envelope struct {
	Error envelopeBody `json:"error"`
}

type envelopeBody struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"requestId"`
}

// WriteError writes err as the error envelope. Anything that is not an *apierr.Error becomes a 500
// INTERNAL_ERROR whose message says nothing of internals; the cause is logged with the request id.
func WriteError(c *gin.Context, err error) {
	ae := apierr.From(err)
	if ae.Status >= 500 {
		Logger(c).Error("request failed", zap.Int("status", ae.Status), zap.String("code", ae.Code), zap.Error(err))
	}
	for k, v := range ae.Header {
		c.Header(k, v)
	}
	c.Set(ctxErrCode, ae.Code)
	c.Abort()
	JSON(c, ae.Status, envelope{Error: envelopeBody{Code: ae.Code, Message: ae.Message, RequestID: RequestID(c)}})
}
