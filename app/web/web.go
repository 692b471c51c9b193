// Package web is what every page of folio's web front end shares, whatever its job: the layout,
// the stylesheet and script (templates/, static/, embedded), rendering a page, the security
// headers, the session check and the CSRF token of the forms, cookies. The pages themselves are
// split by job, one package each, each with its handler, its templates and the narrow interfaces
// it asks the modules through:
//
//	app/web/signin   sign-up, sign-in, sign-out, the account page and its password change
//	app/web/keys     API keys, and the webhooks they own (listed below them)
//	app/web/review   suggestions to approve or reject, an item's history to restore
//
// Another job (the notes and tasks pages of issue 32) is another package beside them: its
// handler takes the *Site, parses its templates with Site.Pages, registers its routes in
// Group(r), and its module is one more line in app.FrontEnds.
package web

import (
	"context"
	"embed"
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"folio/modules/accounts"
	"folio/platform/auth"
	"folio/platform/config"
	"folio/platform/httpx"
)

// Module provides the Site (and serves its assets); each job's module adds its pages.
var Module = fx.Module("web",
	fx.Provide(
		NewSite,
		httpx.AsRoutes(func(s *Site) *Site { return s }),
		httpx.AsNotFound(func(s *Site) []httpx.NotFound { return s.NotFound() }),
		func(s *accounts.Service) Sessions { return s },
	),
)

// Sessions is what every signed-in page asks of the accounts module (bound to *accounts.Service
// in module.go): the session a browser's cookie names.
type Sessions interface {
	CurrentSession(ctx context.Context, token string) (accounts.Session, error)
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/*
var staticFS embed.FS

// Site is what the jobs' pages share: the session check, cookies, the layout and the assets.
type Site struct {
	sessions   Sessions
	secureMode string // FOLIO_COOKIE_SECURE: auto, true or false
	proxies    httpx.Proxies
	assets     httpx.Assets
	shared     *lazyPages // the pages every job may render: "message"
}

// SiteParams are the dependencies of NewSite.
type SiteParams struct {
	fx.In
	Sessions Sessions
	Config   config.Config
	Proxies  httpx.TrustedProxies
}

// NewSite loads the assets and the shared templates.
func NewSite(p SiteParams) (*Site, error) {
	s := &Site{sessions: p.Sessions, secureMode: p.Config.CookieSecure, proxies: httpx.ParseProxies(p.Proxies)}
	var err error
	if s.assets, err = httpx.LoadAssets(staticFS, "static", "/assets/"); err != nil {
		return nil, err
	}
	if s.shared, err = newLazyPages(func() (pages, error) { return s.parse(nil, "", nil) }); err != nil {
		return nil, err
	}
	return s, nil
}

// Register implements httpx.Routes: the stylesheet, script and icon of every page.
//
//	GET  /assets/:name
func (s *Site) Register(r httpx.Router) { r.Public.GET("/assets/:name", s.assets.Serve) }

// Prefixes are the paths under which every address is a page (the web app, the settings UI, the
// review pages): an unknown one there gets the "Page not found" page, not the API's JSON 404.
var Prefixes = []string{"/app/", "/settings/", "/review/"}

// NotFound answers the unknown paths under Prefixes.
func (s *Site) NotFound() []httpx.NotFound {
	out := make([]httpx.NotFound, len(Prefixes))
	for i, p := range Prefixes {
		out[i] = httpx.NotFound{Prefix: p, Handler: s.pageNotFound}
	}
	return out
}

// pageNotFound is the 404 page, and the 405 page when the path exists but does not take the
// request's method (gin has set the status and the Allow header), with the security headers of
// every page; signed in (a live session cookie) it leads back to Focus, signed out to the sign-in
// page. A session that cannot be checked (the database is down) is treated as none: the page says
// the same either way.
func (s *Site) pageNotFound(c *gin.Context) {
	setSecurityHeaders(c)
	title := "Page not found"
	v := MessageView{Status: http.StatusNotFound,
		Body: "There is no page at this address. The link may be out of date, or the address mistyped."}
	if c.Writer.Status() == http.StatusMethodNotAllowed {
		title = "Not a request this page takes"
		v.Status = http.StatusMethodNotAllowed
		v.Body = "This address does not take a " + c.Request.Method + " request. The form or link that sent it may be out of date."
	}
	if token, _ := c.Cookie(auth.SessionCookie); token != "" {
		sess, err := s.sessions.CurrentSession(c.Request.Context(), token)
		switch {
		case err == nil:
			v.View, v.Back, v.BackText = Base(&sess, title, ""), Home, "Back to Focus"
		case !errors.Is(err, accounts.ErrNoSession):
			httpx.Logger(c).Debug("the 404 page could not check the session; shown signed out", zap.Error(err))
		}
	}
	if v.Back == "" {
		v.View, v.Back, v.BackText = Base(nil, title, ""), "/signin", "Go to sign in"
	}
	(&Pages{Site: s, own: s.shared}).Render(c, v.Status, "message", v)
}

// Group is the route group a job registers its pages in: every page gets the security headers.
func Group(r httpx.Router) httpx.RouteGroup { return r.Public.Group("", securityHeaders) }
