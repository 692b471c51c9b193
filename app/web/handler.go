package web

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"folio/modules/accounts"
	"folio/modules/content"
	"folio/platform"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/config"
	"folio/platform/httpx"
	"folio/platform/ratelimit"
)

// Handler is the web UI for people: sign-up, sign-in and sign-out, the account page, API key
// management with the webhooks the keys own, and the review of suggestions and history (review.go), as server-rendered pages (html/template, assets embedded in the binary). Every page works
// without JavaScript; one small external script only adds a copy button.
//
// Routes:
//
//	GET  /signup, POST /signup                create an account (and sign in)
//	GET  /signin, POST /signin                sign in (failures limited per client address)
//	POST /signout                             end the session
//	GET  /settings                            redirects to /settings/keys
//	GET  /settings/keys                       the user's keys
//	GET  /settings/keys/new, POST /settings/keys          create a key (its raw form shown once)
//	GET  /settings/keys/:prefix/rotate, POST ... /rotate  confirm, then rotate (new key shown once)
//	GET  /settings/keys/:prefix/revoke, POST ... /revoke  confirm, then revoke
//	GET  /settings/webhooks                   redirects to the webhooks section of /settings/keys
//	GET  /settings/webhooks/:id/delete, POST ... /delete  confirm, then delete (webhooks.go)
//	GET  /settings/account, POST /settings/account/password   profile and password change
//	GET  /review ...                          the review pages (review.go)
//	GET  /assets/:name                        stylesheet, script, icon
type Handler struct {
	svc        Accounts
	places     auth.KeyPlaces
	failures   ratelimit.Limiter
	clock      clock.Clock
	log        *zap.Logger
	secureMode string        // FOLIO_COOKIE_SECURE: auto, true or false
	proxies    httpx.Proxies // FOLIO_TRUSTED_PROXIES, for X-Forwarded-Proto
	pages      pages
	assets     httpx.Assets
	reviews    Reviews
	histories  Histories
	webhooks   Webhooks
	targets    map[string]content.Target // by item kind: labels, ETags and access of the reviewed items
}

// HandlerParams are the dependencies of NewHandler.
type HandlerParams struct {
	fx.In
	Accounts  Accounts
	Places    auth.KeyPlaces
	Limiters  platform.Limiters
	Clock     clock.Clock
	Config    config.Config
	Proxies   httpx.TrustedProxies
	Logger    *zap.Logger
	Reviews   Reviews
	Histories Histories
	Webhooks  Webhooks
	Targets   []content.Target `group:"contentTargets"`
}

// NewHandler returns the settings UI.
func NewHandler(p HandlerParams) (*Handler, error) {
	w := &Handler{
		svc: p.Accounts, places: p.Places, failures: p.Limiters.Failure, clock: p.Clock,
		log: p.Logger.Named("web"), secureMode: p.Config.CookieSecure, proxies: httpx.ParseProxies(p.Proxies),
		reviews: p.Reviews, histories: p.Histories, webhooks: p.Webhooks, targets: map[string]content.Target{},
	}
	for _, t := range p.Targets {
		w.targets[t.Kind()] = t
	}
	var err error
	if w.assets, err = httpx.LoadAssets(staticFS, "web/static", "/assets/"); err != nil {
		return nil, err
	}
	if w.pages, err = loadPages(w.assets); err != nil {
		return nil, err
	}
	return w, nil
}

// Form fields and cookies of the UI.
const (
	csrfField      = "csrf_token"
	preSessionCSRF = "folio_csrf" // double-submit token of the sign-in and sign-up forms
)

// contentSecurityPolicy allows the page's own stylesheet, script and icon and nothing else: no
// inline script or style, no framing, forms post only to this origin.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Register implements httpx.Routes.
func (w *Handler) Register(r httpx.Router) {
	g := r.Public.Group("", securityHeaders)
	g.GET("/signup", w.signupPage)
	g.POST("/signup", w.signup)
	g.GET("/signin", w.signinPage)
	g.POST("/signin", w.signin)
	g.GET("/signout", func(c *gin.Context) { c.Redirect(http.StatusSeeOther, "/settings/keys") })
	g.POST("/signout", w.signedIn(w.signout))
	g.GET("/settings", func(c *gin.Context) { c.Redirect(http.StatusSeeOther, "/settings/keys") })
	g.GET("/settings/keys", w.signedIn(w.keysPage))
	g.GET("/settings/keys/new", w.signedIn(w.newKeyPage))
	g.POST("/settings/keys", w.signedIn(w.createKey))
	g.GET("/settings/keys/:prefix/rotate", w.signedIn(w.confirmPage(actionRotate)))
	g.POST("/settings/keys/:prefix/rotate", w.signedIn(w.rotateKey))
	g.GET("/settings/keys/:prefix/revoke", w.signedIn(w.confirmPage(actionRevoke)))
	g.POST("/settings/keys/:prefix/revoke", w.signedIn(w.revokeKey))
	g.GET("/settings/webhooks", func(c *gin.Context) { c.Redirect(http.StatusSeeOther, "/settings/keys#webhooks") })
	g.GET("/settings/webhooks/:id/delete", w.signedIn(w.deleteWebhookPage))
	g.POST("/settings/webhooks/:id/delete", w.signedIn(w.deleteWebhook))
	g.GET("/settings/account", w.signedIn(w.accountPage))
	g.POST("/settings/account/password", w.signedIn(w.changePassword))
	w.registerReview(g)
	r.Public.GET("/assets/:name", w.assets.Serve)
}

// securityHeaders are set on every page of the UI. Pages carry CSRF tokens and key details, so no
// cache keeps them.
func securityHeaders(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	c.Next()
}

// signedIn wraps a page that needs a session: without one the browser goes to the sign-in page;
// a POST must carry the session's CSRF token in the csrf_token field (the same token the JSON API
// takes in X-CSRF-Token).
func (w *Handler) signedIn(h func(c *gin.Context, s accounts.Session)) gin.HandlerFunc {
	return func(c *gin.Context) {
		token, _ := c.Cookie(auth.SessionCookie)
		sess, err := w.svc.CurrentSession(c.Request.Context(), token)
		if errors.Is(err, accounts.ErrNoSession) {
			if token != "" {
				w.setCookie(c, auth.SessionCookie, "", -1)
			}
			c.Redirect(http.StatusSeeOther, "/signin")
			return
		}
		if err != nil {
			w.internal(c, nil, err)
			return
		}
		httpx.SetUserID(c, sess.UserID)
		if c.Request.Method == http.MethodPost && c.Request.ParseForm() != nil {
			w.message(c, http.StatusBadRequest, &sess, "This form could not be read",
				"The form was too large or malformed, so nothing was changed. Go back and try again.")
			return
		}
		if c.Request.Method == http.MethodPost && !w.formTokenMatches(c, sess.CSRFToken) {
			w.message(c, http.StatusForbidden, &sess, "This form has expired",
				"The form was out of date or came from another site, so nothing was changed. Go back, reload the page and try again.")
			return
		}
		h(c, sess)
	}
}

// formTokenMatches parses the form (the handlers then read c.Request.PostForm) and compares its
// csrf_token with want in constant time.
func (w *Handler) formTokenMatches(c *gin.Context, want string) bool {
	if err := c.Request.ParseForm(); err != nil {
		return false
	}
	got := c.Request.PostForm.Get(csrfField)
	return want != "" && got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// preSessionToken returns the double-submit token for the sign-in and sign-up forms, setting its
// cookie when the browser has none yet. (Without it, another site could sign a visitor in to the
// other site's account: login CSRF.)
func (w *Handler) preSessionToken(c *gin.Context) string {
	if v, err := c.Cookie(preSessionCSRF); err == nil && len(v) == 43 {
		return v
	}
	v := randomToken()
	w.setCookie(c, preSessionCSRF, v, 0)
	return v
}

// freshPreSessionToken replaces the double-submit token (after a mismatch, the form is shown
// again with a token that will match).
func (w *Handler) freshPreSessionToken(c *gin.Context) string {
	v := randomToken()
	w.setCookie(c, preSessionCSRF, v, 0)
	return v
}

// setCookie sets (maxAge > 0: for that many seconds; 0: for the browser session; < 0: deletes) an
// HttpOnly, SameSite=Lax cookie on the whole site, Secure as FOLIO_COOKIE_SECURE says.
func (w *Handler) setCookie(c *gin.Context, name, value string, maxAge int) {
	http.SetCookie(c.Writer, &http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: w.secure(c), SameSite: http.SameSiteLaxMode,
	})
}

// setSession sets the session cookie; it lives as long as the session.
func (w *Handler) setSession(c *gin.Context, si accounts.SignedIn) {
	maxAge := int(si.Session.ExpiresAt.Sub(w.clock.Now()) / time.Second)
	w.setCookie(c, auth.SessionCookie, si.Token, max(maxAge, 1))
	w.setDevice(c, si)
}

// secure tells whether cookies get the Secure flag: always or never when FOLIO_COOKIE_SECURE says
// so; with auto, when the request came over TLS, directly or through a trusted proxy that says so
// in X-Forwarded-Proto (anyone else's X-Forwarded-Proto is ignored).
func (w *Handler) secure(c *gin.Context) bool {
	switch w.secureMode {
	case "true":
		return true
	case "false":
		return false
	}
	return w.proxies.HTTPS(c.Request)
}

// render writes a page. A template error is a 500 (the page is rendered to a buffer first, so
// nothing half-written reaches the browser).
func (w *Handler) render(c *gin.Context, status int, page string, data any) {
	var buf bytes.Buffer
	if err := w.pages.execute(&buf, page, data); err != nil {
		httpx.Logger(c).Error("render page", zap.String("page", page), zap.Error(err))
		c.Data(http.StatusInternalServerError, "text/plain; charset=utf-8", []byte("Something went wrong on our side. Please try again.\n"))
		return
	}
	c.Data(status, "text/html; charset=utf-8", buf.Bytes())
}

// message renders a page that only says something (not found, expired form, too many attempts).
func (w *Handler) message(c *gin.Context, status int, sess *accounts.Session, title, body string) {
	v := messageView{view: w.base(sess, title, ""), Status: status, Body: body}
	if sess == nil {
		v.Back, v.BackText = "/signin", "Go to sign in"
	} else {
		v.Back, v.BackText = "/settings/keys", "Back to API keys"
	}
	w.render(c, status, "message", v)
}

// internal logs an unexpected error with the request id and shows a page that leaks nothing.
func (w *Handler) internal(c *gin.Context, sess *accounts.Session, err error) {
	httpx.Logger(c).Error("settings UI request failed", zap.Error(err))
	if apierr.From(err).Status == http.StatusServiceUnavailable {
		c.Header("Retry-After", apierr.RetryAfterUnavailable)
		w.message(c, http.StatusServiceUnavailable, sess, "Temporarily unavailable",
			"folio cannot reach its database right now and nothing was changed. Please try again in a moment.")
		return
	}
	w.message(c, http.StatusInternalServerError, sess, "Something went wrong",
		"Something went wrong on our side and nothing was changed. Please try again in a moment.")
}

// randomToken is 256 random bits, URL-safe (the double-submit token of the signed-out forms).
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
