package signin

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"

	"folio/app/web"
	"folio/modules/accounts"
	"folio/platform"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/httpx"
	"folio/platform/ratelimit"
)

// Handler serves the sign-in pages.
type Handler struct {
	svc      Accounts
	failures ratelimit.Limiter
	clock    clock.Clock
	pages    *web.Pages
}

// HandlerParams are the dependencies of NewHandler.
type HandlerParams struct {
	fx.In
	Accounts Accounts
	Limiters platform.Limiters
	Clock    clock.Clock
	Site     *web.Site
}

// NewHandler returns the sign-in pages.
func NewHandler(p HandlerParams) (*Handler, error) {
	pages, err := p.Site.Pages(templateFS, "templates", nil)
	if err != nil {
		return nil, err
	}
	return &Handler{svc: p.Accounts, failures: p.Limiters.Failure, clock: p.Clock, pages: pages}, nil
}

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	g := web.Group(r)
	g.GET("/signup", h.signupPage)
	g.POST("/signup", h.signup)
	g.GET("/signin", h.signinPage)
	g.POST("/signin", h.signin)
	g.GET("/signout", func(c *gin.Context) { c.Redirect(http.StatusSeeOther, "/settings/keys") })
	g.POST("/signout", h.pages.SignedIn(h.signout))
	g.GET("/settings/account", h.pages.SignedIn(h.accountPage))
	g.POST("/settings/account/password", h.pages.SignedIn(h.changePassword))
}

// Messages the forms show. Tests match them; keep them plain and specific.
const (
	msgBadSignIn     = "The email address or password is wrong."
	msgTooMany       = "Too many failed attempts from your network. Wait a minute, then try again."
	msgFormExpired   = "This form had expired, so nothing was sent. Please try again."
	msgSignInMissing = "Enter your email address and password."
)

// authView is the view of the sign-up and sign-in forms.
type authView struct {
	web.View
	Name, Email string
	Errors      map[string]string // by field name
	Next        string            // sign-in: the page to return to (a path of this site), or ""
}

// signedOutPage starts a signed-out page (sign-up, sign-in) titled title; a browser that has a
// session is sent where a sign-in would land instead (false): the page next names, else /app.
func (h *Handler) signedOutPage(c *gin.Context, title string) (authView, bool) {
	if h.hasSession(c) {
		c.Redirect(http.StatusSeeOther, landing(c.Query("next")))
		return authView{}, false
	}
	v := authView{View: web.Base(nil, title, "")}
	v.CSRF = h.pages.PreSessionToken(c)
	return v, true
}

func (h *Handler) signupPage(c *gin.Context) {
	if v, ok := h.signedOutPage(c, "Create your account"); ok {
		h.pages.Render(c, http.StatusOK, "signup", v)
	}
}

func (h *Handler) signup(c *gin.Context) {
	ctx := c.Request.Context()
	v := authView{View: web.Base(nil, "Create your account", ""), Errors: map[string]string{}}
	token, ok := web.PreSessionMatches(c)
	if !ok {
		v.Name, v.Email = c.Request.PostForm.Get("name"), c.Request.PostForm.Get("email")
		v.CSRF, v.Error = h.pages.FreshPreSessionToken(c), msgFormExpired
		h.pages.Render(c, http.StatusForbidden, "signup", v)
		return
	}
	v.CSRF = token
	form := c.Request.PostForm
	v.Name, v.Email = strings.TrimSpace(form.Get("name")), strings.TrimSpace(form.Get("email"))
	password, confirm := form.Get("password"), form.Get("confirm")
	if h.overFailureLimit(ctx, c) {
		c.Header("Retry-After", "60")
		v.Error = msgTooMany
		h.pages.Render(c, http.StatusTooManyRequests, "signup", v)
		return
	}
	maps.Copy(v.Errors, accounts.CheckNewUser(v.Email, v.Name, password))
	if password == "" { // the service lets the CLI create an account without one; the form does not
		v.Errors["password"] = "Choose a password."
	}
	if password != "" && v.Errors["password"] == "" && confirm != password {
		v.Errors["confirm"] = "The two passwords don't match."
	}
	if len(v.Errors) > 0 {
		h.pages.Render(c, http.StatusBadRequest, "signup", v)
		return
	}
	u, err := h.svc.CreateUser(ctx, v.Email, v.Name, password)
	var invalid accounts.Invalid
	switch {
	case errors.Is(err, accounts.ErrEmailTaken):
		// Telling this is what a sign-up form must do; counting it against the address keeps the
		// form from being a faster way than sign-in to learn which addresses have accounts.
		h.countFailure(ctx, c)
		v.Errors["email"] = "An account with this email address already exists. Sign in instead."
	case errors.As(err, &invalid):
		maps.Copy(v.Errors, invalid)
	case err != nil:
		h.pages.Internal(c, nil, err)
		return
	}
	if len(v.Errors) > 0 {
		h.pages.Render(c, http.StatusBadRequest, "signup", v)
		return
	}
	si, err := h.svc.OpenSession(ctx, u)
	if err != nil {
		h.pages.Internal(c, nil, err)
		return
	}
	h.startSession(c, si)
	c.Redirect(http.StatusSeeOther, "/settings/keys?welcome=1")
}

func (h *Handler) signinPage(c *gin.Context) {
	v, ok := h.signedOutPage(c, "Sign in")
	if !ok {
		return
	}
	v.Next = web.LocalPath(c.Query("next"))
	switch {
	case c.Query("signedout") != "":
		v.Notice = "You have signed out."
	case c.Query("password") != "":
		v.Notice = "Your password was changed. Sign in with the new one."
	}
	h.pages.Render(c, http.StatusOK, "signin", v)
}

func (h *Handler) signin(c *gin.Context) {
	ctx := c.Request.Context()
	v := authView{View: web.Base(nil, "Sign in", "")}
	v.Next = web.LocalPath(c.PostForm("next")) // kept on every page the form comes back on
	token, ok := web.PreSessionMatches(c)
	if !ok {
		v.Email = c.Request.PostForm.Get("email")
		v.CSRF, v.Error = h.pages.FreshPreSessionToken(c), msgFormExpired
		h.pages.Render(c, http.StatusForbidden, "signin", v)
		return
	}
	v.CSRF = token
	v.Email = strings.TrimSpace(c.Request.PostForm.Get("email"))
	password := c.Request.PostForm.Get("password")
	// Over the limit, the password is not even checked: a right guess must look like a wrong one.
	// Except from a known device of this account (a browser that signed in to it before, since
	// its last password change), which has a budget of its own: a client failing sign-ins
	// behind the same address does not lock it out.
	device := ""
	if h.overFailureLimit(ctx, c) {
		if d, ok := h.knownDevice(ctx, c, v.Email); ok && !h.overLimit(ctx, deviceFailureKey(d)) {
			device = d
		} else {
			c.Header("Retry-After", "60")
			v.Error = msgTooMany
			h.pages.Render(c, http.StatusTooManyRequests, "signin", v)
			return
		}
	}
	if v.Email == "" || password == "" {
		v.Error = msgSignInMissing
		h.pages.Render(c, http.StatusBadRequest, "signin", v)
		return
	}
	si, err := h.svc.SignIn(ctx, v.Email, password)
	if errors.Is(err, accounts.ErrBadSignIn) {
		h.countFailure(ctx, c)
		if device != "" {
			_, _ = h.failures.Allow(ctx, deviceFailureKey(device))
		}
		v.Error = msgBadSignIn
		h.pages.Render(c, http.StatusUnauthorized, "signin", v)
		return
	}
	if err != nil {
		h.pages.Internal(c, nil, err)
		return
	}
	h.startSession(c, si)
	c.Redirect(http.StatusSeeOther, landing(v.Next))
}

// landing is where a sign-in sends the browser: the page it asked for (next, when it is a path
// of this site: web.LocalPath), else the web app's Focus (web.Home).
func landing(next string) string {
	if p := web.LocalPath(next); p != "" {
		return p
	}
	return web.Home
}

func (h *Handler) signout(c *gin.Context, sess accounts.Session) {
	token, _ := c.Cookie(auth.SessionCookie)
	if err := h.svc.SignOut(c.Request.Context(), token); err != nil {
		h.pages.Internal(c, &sess, err)
		return
	}
	h.pages.SetCookie(c, auth.SessionCookie, "", -1)
	c.Redirect(http.StatusSeeOther, "/signin?signedout=1")
}

// startSession sets the new session's cookie, ending the session the browser had before (if
// any). The pre-session token stays, so that a sign-in form open in another tab still works.
func (h *Handler) startSession(c *gin.Context, si accounts.SignedIn) {
	if old, err := c.Cookie(auth.SessionCookie); err == nil && old != "" {
		_ = h.svc.SignOut(c.Request.Context(), old)
	}
	h.setSession(c, si)
}

// setSession sets the session cookie (it lives as long as the session) and the known-device one.
func (h *Handler) setSession(c *gin.Context, si accounts.SignedIn) {
	maxAge := int(si.Session.ExpiresAt.Sub(h.clock.Now()) / time.Second)
	h.pages.SetCookie(c, auth.SessionCookie, si.Token, max(maxAge, 1))
	h.setDevice(c, si)
}

// hasSession tells whether the browser is signed in (the sign-in and sign-up pages then send it on).
func (h *Handler) hasSession(c *gin.Context) bool {
	token, err := c.Cookie(auth.SessionCookie)
	if err != nil || token == "" {
		return false
	}
	_, err = h.svc.CurrentSession(c.Request.Context(), token)
	return err == nil
}

// overFailureLimit reports whether the client address has used up its failed attempts on the
// forms (sign-in, sign-up, password change: one budget, auth.FormFailureKey).
func (h *Handler) overFailureLimit(ctx context.Context, c *gin.Context) bool {
	return h.overLimit(ctx, auth.FormFailureKey(c.ClientIP()))
}

func (h *Handler) overLimit(ctx context.Context, key string) bool {
	d, err := h.failures.Peek(ctx, key)
	return err == nil && !d.Allowed
}

func (h *Handler) countFailure(ctx context.Context, c *gin.Context) {
	_, _ = h.failures.Allow(ctx, auth.FormFailureKey(c.ClientIP()))
}

// deviceFailureKey is the failure limiter's key of a known device (by its token's nonce).
func deviceFailureKey(nonce string) string { return "devicefail:" + nonce }

// knownDevice reports whether the browser holds a known-device token of the account with this
// email, and returns its nonce.
func (h *Handler) knownDevice(ctx context.Context, c *gin.Context, email string) (string, bool) {
	token, err := c.Cookie(accounts.DeviceCookie)
	if err != nil || token == "" || email == "" {
		return "", false
	}
	return h.svc.KnownDevice(ctx, email, token)
}

// setDevice gives the browser its known-device token (after a sign-in or a password change).
func (h *Handler) setDevice(c *gin.Context, si accounts.SignedIn) {
	if si.Device != "" {
		h.pages.SetCookie(c, accounts.DeviceCookie, si.Device, accounts.DeviceCookieMaxAge)
	}
}
