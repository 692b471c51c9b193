package httpx

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"go.uber.org/fx"
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
			id = newRequestID()
		} else {
			id = u.String()
		}
		c.Set(ctxRequestID, id)
		c.Set(ctxBaseLogger, base)
		c.Header("X-Request-Id", id)
		c.Next()
	}
}

// newRequestID is uuid.NewString's random UUIDv4, made with one allocation (the string) instead
// of three: uuid.NewRandom reads its 16 bytes through io.ReadFull, which moves them to the heap,
// and String makes the text from a copy. The bytes come from crypto/rand as uuid's do.
func newRequestID() string {
	var u uuid.UUID
	_, _ = rand.Read(u[:])  // crypto/rand.Read never returns an error (Go 1.24+): it crashes instead
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // variant RFC 9562
	var text [36]byte
	hex.Encode(text[0:8], u[0:4])
	text[8] = '-'
	hex.Encode(text[9:13], u[4:6])
	text[13] = '-'
	hex.Encode(text[14:18], u[6:8])
	text[18] = '-'
	hex.Encode(text[19:23], u[8:10])
	text[23] = '-'
	hex.Encode(text[24:], u[10:])
	return string(text[:])
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

// BodyLimit raises the body limit of one route above MaxBodyBytes: a route that takes a file
// (POST /import takes a ZIP). Method and Path are the route as its module registers it, under the
// API base ("/api/v1/import"). A module declares it with AsBodyLimit, beside its handler.
type BodyLimit struct {
	Method, Path string
	Bytes        int64
}

// AsBodyLimit annotates a constructor of a BodyLimit so that it joins the "bodyLimits" value group
// the engine reads: fx.Provide(httpx.AsBodyLimit(func() httpx.BodyLimit { ... })).
func AsBodyLimit(constructor any) any {
	return fx.Annotate(constructor, fx.ResultTags(`group:"bodyLimits"`))
}

// bodyLimitMiddleware caps every request body at MaxBodyBytes, or at the route's BodyLimit. It
// does not answer early on a declared Content-Length: the limit is met when the handler reads the
// body (Bind), so that authentication, rate limit and scope are still checked first (CONTRACT.md
// section 6), and an oversized body is never read past the limit either way.
func bodyLimitMiddleware(limits []BodyLimit) gin.HandlerFunc {
	type route struct{ method, path string }
	byRoute := map[route]int64{}
	for _, l := range limits {
		byRoute[route{l.Method, l.Path}] = l.Bytes
	}
	return func(c *gin.Context) {
		if c.Request.Body != nil && c.Request.Body != http.NoBody {
			limit := int64(MaxBodyBytes)
			if l, ok := byRoute[route{c.Request.Method, c.FullPath()}]; ok {
				limit = l
			}
			c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, limit)
		}
		c.Next()
	}
}

// Gate holds the requests of one route until they may run, before anything reads their body (the
// idempotency middleware reads it to hash it): imports take turns (modules/imports). Method and
// Path are the route as its module registers it, under the API base. Enter runs after the guard,
// on authenticated requests, and before the idempotency middleware; it returns the function that
// gives the turn back once the request is answered, or the error to answer with instead. A module
// declares its gate with AsGate, beside its handler.
type Gate struct {
	Method, Path string
	Enter        func(c *gin.Context) (release func(), err error)
}

// AsGate annotates a constructor of a Gate so that it joins the "gates" value group the engine
// reads: fx.Provide(httpx.AsGate(func(h *Handler) httpx.Gate { ... })).
func AsGate(constructor any) any {
	return fx.Annotate(constructor, fx.ResultTags(`group:"gates"`))
}

// gateMiddleware runs the Gate of the request's route, if it has one; nil without gates.
func gateMiddleware(gates []Gate) gin.HandlerFunc {
	if len(gates) == 0 {
		return nil
	}
	type route struct{ method, path string }
	byRoute := map[route]func(*gin.Context) (func(), error){}
	for _, g := range gates {
		byRoute[route{g.Method, g.Path}] = g.Enter
	}
	return func(c *gin.Context) {
		enter, ok := byRoute[route{c.Request.Method, c.FullPath()}]
		if !ok {
			c.Next()
			return
		}
		release, err := enter(c)
		if err != nil {
			WriteError(c, err)
			c.Abort()
			return
		}
		defer release()
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

// BodyTooLarge is the 400 of a body over its limit: the 1 MiB of a JSON body, or a route's own.
func BodyTooLarge(limit int64) error {
	if limit == MaxBodyBytes {
		return errBodyTooLarge
	}
	return apierr.Validation("request body exceeds the %s limit", SizeText(limit))
}

// SizeText writes a byte count as an error message says it: "1 MiB", "50 MB", "512 bytes".
func SizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%d MB", n/1_000_000)
	}
	return fmt.Sprintf("%d bytes", n)
}

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
			err = BodyTooLarge(maxErr.Limit)
		}
		WriteError(c, err)
	}
}
