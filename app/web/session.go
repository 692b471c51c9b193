package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"folio/modules/accounts"
	"folio/platform/auth"
	"folio/platform/httpx"
)

// SignedIn wraps a page that needs a session: without one the browser goes to the sign-in page;
// a POST must carry the session's CSRF token in the csrf_token field (the same token the JSON API
// takes in X-CSRF-Token).
func (p *Pages) SignedIn(h func(c *gin.Context, s accounts.Session)) gin.HandlerFunc {
	return func(c *gin.Context) {
		token, _ := c.Cookie(auth.SessionCookie)
		sess, err := p.sessions.CurrentSession(c.Request.Context(), token)
		if errors.Is(err, accounts.ErrNoSession) {
			if token != "" {
				p.SetCookie(c, auth.SessionCookie, "", -1)
			}
			c.Redirect(http.StatusSeeOther, SignInFor(c.Request))
			return
		}
		if err != nil {
			p.Internal(c, nil, err)
			return
		}
		httpx.SetUserID(c, sess.UserID)
		if c.Request.Method == http.MethodPost && c.Request.ParseForm() != nil {
			p.Message(c, http.StatusBadRequest, &sess, "This form could not be read",
				"The form was too large or malformed, so nothing was changed. Go back and try again.")
			return
		}
		if c.Request.Method == http.MethodPost && !FormTokenMatches(c, sess.CSRFToken) {
			p.Message(c, http.StatusForbidden, &sess, "This form has expired",
				"The form was out of date or came from another site, so nothing was changed. Go back, reload the page and try again.")
			return
		}
		h(c, sess)
	}
}

// SetCookie sets (maxAge > 0: for that many seconds; 0: for the browser session; < 0: deletes) an
// HttpOnly, SameSite=Lax cookie on the whole site, Secure as FOLIO_COOKIE_SECURE says.
func (s *Site) SetCookie(c *gin.Context, name, value string, maxAge int) {
	http.SetCookie(c.Writer, &http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: s.Secure(c), SameSite: http.SameSiteLaxMode,
	})
}

// Secure tells whether cookies get the Secure flag (and links to the site say https): always or
// never when FOLIO_COOKIE_SECURE says so; with auto, when the request came over TLS, directly or
// through a trusted proxy that says so in X-Forwarded-Proto (httpx.Proxies.HTTPS).
func (s *Site) Secure(c *gin.Context) bool {
	switch s.secureMode {
	case "true":
		return true
	case "false":
		return false
	}
	return s.proxies.HTTPS(c.Request)
}

// Principal is the session as the modules' services know a caller: the same principal the API
// guard makes for a session cookie, so a page asks exactly what the API would.
func Principal(sess accounts.Session) *auth.Principal {
	p := auth.SessionPrincipal(sess.UserID, sess.ID)
	return &p
}

// Home is where a signed-in browser lands when it asked for no page: the web app's Focus.
const Home = "/app"

// SignInFor is the sign-in page for a browser that asked for r without a session: a GET or HEAD
// of a page other than Home (and /, which leads there) names it in next, so that the sign-in returns there; a form's POST
// does not (its content is gone with the redirect: the sign-in lands on Home).
func SignInFor(r *http.Request) string {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return "/signin"
	}
	if next := LocalPath(r.URL.RequestURI()); next != "" && next != Home && next != "/" {
		return "/signin?next=" + url.QueryEscape(next)
	}
	return "/signin"
}

// LocalPath returns p when it is a path of this site a sign-in may send the browser to (starts
// with one "/", names no other host: not "//host" nor "/\\host", no scheme, no control
// character, at most 2,048 bytes), else "".
func LocalPath(p string) string {
	if len(p) == 0 || len(p) > 2048 || p[0] != '/' || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") {
		return ""
	}
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] == 0x7f || p[i] == '\\' {
			return ""
		}
	}
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return ""
	}
	return p
}
