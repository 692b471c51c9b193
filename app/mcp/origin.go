package mcp

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"folio/platform/apierr"
	"folio/platform/httpx"
)

// errOrigin refuses a browser page of another site (CONTRACT.md section 25; the MCP Streamable
// HTTP transport: a server MUST answer 403 to an Origin it does not accept).
var errOrigin = apierr.New(http.StatusForbidden, "ORIGIN_NOT_ALLOWED",
	"requests to /mcp from this Origin are not allowed; add the origin to FOLIO_CORS_ORIGINS to allow a browser page there")

// checkOrigin runs before authentication: a request without Origin (every non-browser client)
// passes, and so does one from a loopback host, from the server's own origin (the Origin's host
// is the request's Host and an IP address: a name's own origin must be listed, see originAllowed),
// or from an origin listed in FOLIO_CORS_ORIGINS. Anything else, "null"
// included, is 403 ORIGIN_NOT_ALLOWED.
func checkOrigin(allowed httpx.CORSOrigins) gin.HandlerFunc {
	return func(c *gin.Context) {
		origin, sent := c.Request.Header["Origin"]
		if !sent || originAllowed(origin[0], c.Request.Host, allowed) {
			c.Next()
			return
		}
		httpx.Fail(c, errOrigin)
	}
}

func originAllowed(origin, host string, allowed httpx.CORSOrigins) bool {
	if slices.Contains(allowed, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		return false // "null", a file: page, anything that is not an origin
	}
	name := u.Hostname()
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	if ip == nil {
		// A name is the server's own origin only when listed: with DNS rebinding, the page of a
		// name that now resolves to this server sends that name as Host and Origin alike.
		return false
	}
	// An address cannot be rebound: a request whose Host is an address reached this server
	// there, so a page of that same origin is the server's own.
	return ip.IsLoopback() || strings.EqualFold(u.Host, host)
}
