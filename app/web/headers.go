package web

import "github.com/gin-gonic/gin"

// contentSecurityPolicy allows the page's own stylesheet, script and icon and nothing else: no
// inline script or style, no framing, forms post only to this origin.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// securityHeaders are set on every page (Group, and the 404 page). Pages carry CSRF tokens and key
// details, so no cache keeps them.
func securityHeaders(c *gin.Context) {
	setSecurityHeaders(c)
	c.Next()
}

func setSecurityHeaders(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}
