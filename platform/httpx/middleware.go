package httpx

import (
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"go.uber.org/zap"

	"folio/platform/apierr"
)

// MaxBodyBytes is the largest request body accepted (1 MiB).
const MaxBodyBytes = 1 << 20

// MaxHeaderBytes is the largest request head accepted (request line and header lines, as sent):
// 64 KiB. The limit is enforced by headerLimitMiddleware, which answers with the envelope; the
// HTTP server's own limit (serverMaxHeaderBytes) is set higher, since past it Go answers a plain
// text 431 before folio sees the request.
const MaxHeaderBytes = 64 << 10

// serverMaxHeaderBytes is http.Server.MaxHeaderBytes: heads between MaxHeaderBytes and this get the
// envelope; beyond it (plus the 4 KiB net/http adds), net/http's plain-text 431.
const serverMaxHeaderBytes = 256 << 10

// requestIDMiddleware keeps a client's X-Request-Id when it is a UUID and otherwise makes a UUIDv4.
// Anything else a client sends is dropped, so logs cannot be forged through the header.
func requestIDMiddleware(base *zap.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		id := c.GetHeader("X-Request-Id")
		if u, err := uuid.Parse(id); err != nil || len(id) != 36 {
			id = uuid.NewString()
		} else {
			id = u.String()
		}
		c.Set(ctxRequestID, id)
		c.Set(ctxBaseLogger, base)
		c.Header("X-Request-Id", id)
		c.Next()
	}
}

// accessLogMiddleware logs one line per request at info level. It never logs headers, bodies
// (they carry keys and content) or the query string (it may carry what a user searched for), and
// a key a client put into the path is redacted (RedactKeys). Below info (FOLIO_LOG_LEVEL=warn or error) it costs nothing but
// the level check.
func accessLogMiddleware(base *zap.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		if !base.Core().Enabled(zap.InfoLevel) {
			return
		}
		fields := []zap.Field{
			zap.String("method", c.Request.Method),
			zap.String("path", RedactKeys(c.Request.URL.Path)),
			zap.Int("status", c.Writer.Status()),
			zap.Duration("latency", time.Since(start)),
			zap.Int("bytes", c.Writer.Size()),
			zap.String("clientIp", c.ClientIP()),
		}
		if code := c.GetString(ctxErrCode); code != "" {
			fields = append(fields, zap.String("code", code))
		}
		if uid := c.GetString(ctxUserID); uid != "" {
			fields = append(fields, zap.String("userId", uid))
		}
		Logger(c).Info("request", fields...)
	}
}

// recoveryMiddleware turns a panic into a logged 500 envelope. http.ErrAbortHandler is re-raised,
// as net/http expects.
func recoveryMiddleware() gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				Logger(c).Error("panic", zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
				if !c.Writer.Written() {
					WriteError(c, apierr.ErrInternal.Wrap(fmt.Errorf("panic: %v", r)))
				}
				c.Abort()
			}
		}()
		c.Next()
	}
}

// bodyLimitMiddleware caps every request body at MaxBodyBytes. It does not answer early on a
// declared Content-Length: the limit is met when the handler reads the body (Bind), so that
// authentication, rate limit and scope are still checked first (CONTRACT.md section 6), and an
// oversized body is never read past the limit either way.
func bodyLimitMiddleware() gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.Body != nil {
			c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, MaxBodyBytes)
		}
		c.Next()
	}
}

// errHeadersTooLarge is 431 with the envelope.
var errHeadersTooLarge = apierr.New(http.StatusRequestHeaderFieldsTooLarge, apierr.CodeHeadersTooLarge,
	"request headers exceed the 64 KiB limit")

// headerLimitMiddleware refuses a request whose head is over MaxHeaderBytes with 431 and the
// envelope, before anything else looks at it.
func headerLimitMiddleware() gin.HandlerFunc {
	return func(c *gin.Context) {
		if headSize(c.Request) > MaxHeaderBytes {
			WriteError(c, errHeadersTooLarge)
			return
		}
		c.Next()
	}
}

// headSize is the size of r's request line and header lines as they were sent (give or take the
// whitespace around values, which net/http trims).
func headSize(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2 // request line
	n += len("Host: ") + len(r.Host) + 2                              // net/http moves Host out of Header
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + 2 + len(v) + 2
		}
	}
	return n + 2
}

var errBodyTooLarge = apierr.Validation("request body exceeds the 1 MiB limit")

// envelopeMiddleware writes the error a handler recorded with Fail, once, as the envelope.
func envelopeMiddleware() gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Next()
		if len(c.Errors) == 0 || c.Writer.Written() {
			return
		}
		err := c.Errors.Last().Err
		var maxErr *http.MaxBytesError
		if errors.As(err, &maxErr) {
			err = errBodyTooLarge
		}
		WriteError(c, err)
	}
}
