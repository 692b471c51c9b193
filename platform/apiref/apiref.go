// Package apiref serves GET /docs: folio's API reference for people, rendered in the browser from
// the OpenAPI document (GET /api/v1/openapi.json) by Redoc, which is vendored here (web/static,
// embedded in the binary: no CDN, it works offline). See docs/api.md "API" for why Redoc and how the
// bundle is pinned and updated.
package apiref

import (
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/platform/apierr"
	"folio/platform/httpx"
)

// Path is where the reference is served (outside /api/v1: it is a page, not part of the API).
const Path = "/docs"

// SpecURL is the OpenAPI document the page renders.
const SpecURL = httpx.APIBase + "/openapi.json"

//go:embed web/index.html
var pageHTML string

//go:embed web/static/*
var staticFS embed.FS

// Handler serves the page and its assets.
type Handler struct {
	page   *template.Template
	assets httpx.Assets
}

// New loads the embedded page and assets.
func New() (*Handler, error) {
	assets, err := httpx.LoadAssets(staticFS, "web/static", Path+"/assets/")
	if err != nil {
		return nil, err
	}
	page, err := template.New("docs").Funcs(template.FuncMap{"asset": assets.URL}).Parse(pageHTML)
	if err != nil {
		return nil, err
	}
	return &Handler{page: page, assets: assets}, nil
}

// Register implements httpx.Routes: the page and its assets, without authentication (the
// document is public too).
func (h *Handler) Register(r httpx.Router) {
	r.Public.GET(Path, h.serve)
	r.Public.GET(Path+"/assets/:name", h.assets.Serve)
}

// contentSecurityPolicy is as strict as Redoc allows (see docs/api.md "API"):
//   - scripts only from this origin: the bundle and the page's init script; no inline script, no eval;
//   - styles from this origin, the <style> elements Redoc's styled-components adds, which carry
//     this response's nonce, and the one stylesheet the bundle injects when it loads, before it
//     can know the nonce (perfect-scrollbar's CSS), allowed by its hash, as is the empty <style>
//     it is first inserted as; no 'unsafe-inline';
//   - images from this origin and data: URLs (Redoc's icons are inline SVG); fetches only to this
//     origin (the document); the search index runs in a Worker Redoc starts from a blob: URL;
//   - no frames, forms, plugins, fonts from elsewhere, or base URL.
//
// The two hashes belong to the pinned bundle (redoc_pin_test.go); TestBrowserDocs fails on any
// style the policy refuses.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; " +
	"style-src 'self' 'nonce-%s' " + perfectScrollbarCSS + " " + emptyStyle + "; " +
	"img-src 'self' data:; font-src 'self'; connect-src 'self'; worker-src blob:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const (
	perfectScrollbarCSS = "'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc='"
	emptyStyle          = "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
)

// serve renders the page with a fresh nonce.
func (h *Handler) serve(c *gin.Context) {
	raw := make([]byte, 18)
	if _, err := rand.Read(raw); err != nil {
		httpx.WriteError(c, apierr.ErrInternal.Wrap(err))
		return
	}
	// URL-safe characters: html/template would escape "+" in the attribute.
	nonce := base64.RawURLEncoding.EncodeToString(raw)
	var buf bytes.Buffer
	if err := h.page.Execute(&buf, struct{ Nonce, SpecURL string }{nonce, SpecURL}); err != nil {
		httpx.WriteError(c, apierr.ErrInternal.Wrap(err))
		return
	}
	hd := c.Writer.Header()
	hd.Set("Content-Security-Policy", fmt.Sprintf(contentSecurityPolicy, nonce))
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	// The nonce is new on every response: a cached page would be fine with its cached header, but
	// nothing is gained by keeping it.
	hd.Set("Cache-Control", "no-cache")
	c.Data(http.StatusOK, "text/html; charset=utf-8", buf.Bytes())
}
