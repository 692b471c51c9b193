package httpx

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/rs/cors"
)

// CORSOrigins are the origins (FOLIO_CORS_ORIGINS) whose pages may call the API from a browser.
// Empty: no CORS headers at all.
type CORSOrigins []string

// CORS request and response headers (CONTRACT.md section 11). X-CSRF-Token is deliberately not an
// allowed request header: it only goes with a session cookie, and cookies are never accepted
// cross-origin (auth.Guard refuses them), so a preflight asking for it fails in the browser.
var (
	corsAllowedMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPatch, http.MethodDelete}
	corsAllowedHeaders = []string{"Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key", "X-Request-Id"}
	corsExposedHeaders = []string{
		"ETag", "Location", "Retry-After", "X-Request-Id", "Idempotent-Replayed",
		"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit", "RateLimit-Policy",
	}
)

// corsMaxAge is how long a browser may keep a preflight's answer (seconds). Chromium caps it at
// 7200; ten minutes lets a change of FOLIO_CORS_ORIGINS reach open pages soon.
const corsMaxAge = 600

// corsMiddleware answers CORS for the API's paths with rs/cors (a maintained implementation of the
// Fetch standard's rules, used here through its net/http HandlerFunc so that gin's chain, and with
// it X-Request-Id and the access log, still covers the preflight). For an allowed origin a
// preflight is answered 204 with the allowed method and headers and is not passed on (it carries no
// credentials, so the API guard must not see it), and every other response gets
// Access-Control-Allow-Origin and the exposed headers. Access-Control-Allow-Credentials is never
// sent. Paths outside /api/v1 (the settings UI, the docs page, health checks) get no CORS headers.
// nil when no origin is configured: then no response carries any CORS header.
func corsMiddleware(origins CORSOrigins) gin.HandlerFunc {
	if len(origins) == 0 {
		return nil
	}
	c := cors.New(cors.Options{
		AllowedOrigins:   origins,
		AllowedMethods:   corsAllowedMethods,
		AllowedHeaders:   corsAllowedHeaders,
		ExposedHeaders:   corsExposedHeaders,
		MaxAge:           corsMaxAge,
		AllowCredentials: false,
	})
	return func(ctx *gin.Context) {
		p := ctx.Request.URL.Path
		if p != APIBase && !strings.HasPrefix(p, APIBase+"/") {
			ctx.Next()
			return
		}
		c.HandlerFunc(ctx.Writer, ctx.Request)
		if ctx.Request.Method == http.MethodOptions && ctx.GetHeader("Access-Control-Request-Method") != "" {
			ctx.AbortWithStatus(http.StatusNoContent)
			return
		}
		ctx.Next()
	}
}
