package web

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"maps"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"go.uber.org/zap"

	"folio/modules/accounts"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/httpx"
)

// Pages are one job's pages: each of its templates parsed with the layout, and what renders them
// (the shared "message" page too). A job's handler keeps one and calls Render, Message, Internal
// and SignedIn on it.
type Pages struct {
	*Site
	own *lazyPages
}

// pages are parsed templates, one set per page: the layout plus the page's "content".
type pages map[string]*template.Template

// lazyPages are a set of pages parsed when first rendered. They are parsed once at start too, so
// that a broken template still fails start-up, and that parse is dropped: parsed templates are
// about 1.8 MB of long-lived heap, which the collector lets the heap grow twice over, for pages
// that a server answering only the API never shows (docs/performance.md, Memory).
type lazyPages struct {
	parse func() (pages, error)
	once  sync.Once
	set   pages
	err   error
}

// newLazyPages checks that parse succeeds and returns the pages it parses on first use.
func newLazyPages(parse func() (pages, error)) (*lazyPages, error) {
	if _, err := parse(); err != nil {
		return nil, err
	}
	return &lazyPages{parse: parse}, nil
}

// get returns the pages, parsed on the first call.
func (l *lazyPages) get() (pages, error) {
	l.once.Do(func() { l.set, l.err = l.parse() })
	return l.set, l.err
}

// The template files that are no page: the layout every page is shown in (this package's), and
// the pieces a job's pages share (a job's partials.html, parsed with each of its pages).
const (
	layout   = "layout.html"
	partials = "partials.html"
)

// Pages parses a job's templates: every *.html of dir in fsys is a page (it defines "content",
// which the layout shows), parsed with the layout and, when dir has one, partials.html. funcs add
// to the layout's (asset, date, day, clock, iso).
func (s *Site) Pages(fsys fs.FS, dir string, funcs template.FuncMap) (*Pages, error) {
	own, err := newLazyPages(func() (pages, error) { return s.parse(fsys, dir, funcs) })
	if err != nil {
		return nil, err
	}
	return &Pages{Site: s, own: own}, nil
}

// parse parses the pages of dir in fsys; with fsys nil, the shared pages of this package's
// templates/ (all but the layout).
func (s *Site) parse(fsys fs.FS, dir string, extra template.FuncMap) (pages, error) {
	funcs := template.FuncMap{
		"asset": s.assets.URL,
		"date":  func(t time.Time) string { return t.UTC().Format("2 Jan 2006, 15:04 UTC") },
		"day":   func(t time.Time) string { return t.UTC().Format("2 Jan 2006") },
		"clock": func(t time.Time) string { return t.UTC().Format("15:04 UTC") },
		"iso":   func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	}
	maps.Copy(funcs, extra)
	skip := map[string]bool{partials: true}
	if fsys == nil {
		fsys, dir, skip[layout] = templateFS, "templates", true
	}
	names, err := fs.Glob(fsys, path.Join(dir, "*.html"))
	if err != nil {
		return nil, err
	}
	var common []string
	if _, err := fs.Stat(fsys, path.Join(dir, partials)); err == nil {
		common = append(common, path.Join(dir, partials))
	}
	out := pages{}
	for _, n := range names {
		if skip[path.Base(n)] {
			continue
		}
		name := strings.TrimSuffix(path.Base(n), ".html")
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, path.Join("templates", layout))
		if err == nil {
			t, err = t.ParseFS(fsys, append(common, n)...)
		}
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}

// Render writes a page. A template error is a 500 (the page is rendered to a buffer first, so
// nothing half-written reaches the browser).
func (p *Pages) Render(c *gin.Context, status int, page string, data any) {
	var buf bytes.Buffer
	own, err := p.own.get()
	var shared pages
	if err == nil {
		shared, err = p.shared.get()
	}
	if err == nil {
		t, ok := own[page]
		if !ok {
			t, ok = shared[page]
		}
		err = fmt.Errorf("no page %q", page)
		if ok {
			err = t.ExecuteTemplate(&buf, "layout", data)
		}
	}
	if err != nil {
		httpx.Logger(c).Error("render page", zap.String("page", page), zap.Error(err))
		c.Data(http.StatusInternalServerError, "text/plain; charset=utf-8", []byte("Something went wrong on our side. Please try again.\n"))
		return
	}
	c.Data(status, "text/html; charset=utf-8", buf.Bytes())
}

// Message renders a page that only says something (not found, expired form, too many attempts),
// with a link back to the sign-in page (signed out) or the keys page.
func (p *Pages) Message(c *gin.Context, status int, sess *accounts.Session, title, body string) {
	v := MessageView{View: Base(sess, title, ""), Status: status, Body: body}
	if sess == nil {
		v.Back, v.BackText = "/signin", "Go to sign in"
	} else {
		v.Back, v.BackText = "/settings/keys", "Back to API keys"
	}
	p.Render(c, status, "message", v)
}

// Internal logs an unexpected error with the request id and shows a page that leaks nothing.
func (p *Pages) Internal(c *gin.Context, sess *accounts.Session, err error) {
	httpx.Logger(c).Error("settings UI request failed", zap.Error(err))
	if apierr.From(err).Status == http.StatusServiceUnavailable {
		c.Header("Retry-After", apierr.RetryAfterUnavailable)
		p.Message(c, http.StatusServiceUnavailable, sess, "Temporarily unavailable",
			"folio cannot reach its database right now and nothing was changed. Please try again in a moment.")
		return
	}
	p.Message(c, http.StatusInternalServerError, sess, "Something went wrong",
		"Something went wrong on our side and nothing was changed. Please try again in a moment.")
}

// View is what every page's layout needs; each page's view embeds it.
type View struct {
	Title  string
	User   *accounts.User // the signed-in user; nil on the signed-out pages
	CSRF   string         // the token every form of the page carries
	Nav    string         // the current section: "keys", "account" or "review"
	Notice string         // a confirmation ("Key revoked.")
	Error  string         // a problem with the whole form ("The email address or password is wrong.")
}

// Base starts a page's view; sess may be nil (signed out).
func Base(sess *accounts.Session, title, nav string) View {
	v := View{Title: title, Nav: nav}
	if sess != nil {
		v.User, v.CSRF = sess.User, sess.CSRFToken
	}
	return v
}

// MessageView is the view of the "message" page: a title, a sentence, a way back.
type MessageView struct {
	View
	Status         int
	Body           string
	Back, BackText string
}

// PlaceLabel is a notebook or workspace as the pages name it: "1:1s (personal)", "Acme".
func PlaceLabel(p auth.Place) string {
	if p.In != "" {
		return p.Name + " (" + p.In + ")"
	}
	return p.Name
}
