package web

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"folio/platform/apiref"
	"folio/tests/apitest"
)

// operationSummaries returns the summary of every operation of the served OpenAPI document.
func operationSummaries(t *testing.T, s *apitest.Server) []string {
	t.Helper()
	r := apitest.Must(t, s.Do(t, apitest.Request{Method: http.MethodGet, Path: "//" + strings.TrimPrefix(apiref.SpecURL, "/")}), http.StatusOK)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(r.Body, &doc); err != nil {
		t.Fatalf("the OpenAPI document is not JSON: %v", err)
	}
	var out []string
	for _, ops := range doc.Paths {
		for method, raw := range ops {
			if !slices.Contains([]string{"get", "post", "patch", "put", "delete"}, method) {
				continue
			}
			var op struct{ Summary string }
			if err := json.Unmarshal(raw, &op); err != nil || op.Summary == "" {
				t.Fatalf("%s operation without a summary: %s", method, raw)
			}
			out = append(out, op.Summary)
		}
	}
	if len(out) < 5 {
		t.Fatalf("the document lists only %d operations", len(out))
	}
	slices.Sort(out)
	return out
}

// TestBrowserDocs opens the API reference (/docs) in headless Chromium: Redoc, served from the
// binary, renders the served OpenAPI document, every operation's summary is in the page, and
// nothing was reported on the console (a style or script the page's CSP refused, a failed load,
// an exception). It keeps a screenshot, tests/output/web/docs.png.
func TestBrowserDocs(t *testing.T) {
	ctx, logs := chromium(t)
	s := apitest.Start(t, "sqlite")
	summaries := operationSummaries(t, s)

	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+apiref.Path)); err != nil {
		t.Fatalf("open %s: %v", apiref.Path, err)
	}
	first, _ := json.Marshal(summaries[0])
	// Redoc's menu lists every operation by its summary once the document is rendered.
	if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`document.querySelector("#redoc .menu-content") !== null && document.body.innerText.includes(`+string(first)+`)`,
		chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("the reference did not render (%v); console: %v", err, logs.all())
	}
	want, _ := json.Marshal(summaries)
	missing, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](string(want)+`.filter(s => !document.body.innerText.includes(s))`))
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Fatalf("operations missing from the page: %q", missing)
	}
	// Open the notes group of the menu, so the screenshot shows operations.
	click, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Do(click, chromedp.Click(chromedp.CSS(`#redoc [role="menuitem"][aria-label="notes"]`), chromedp.NodeVisible), chromedp.Sleep(300*time.Millisecond)); err != nil {
		t.Fatalf("open a menu group: %v", err)
	}
	// The visible window (the menu and the first operations): the whole page is tens of thousands
	// of pixels tall.
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(outputDir(t), "docs.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	if errs := logs.all(); len(errs) > 0 {
		t.Fatalf("console errors on %s:\n%s", apiref.Path, strings.Join(errs, "\n"))
	}
}

// TestDocsPage: GET /docs needs no authentication and serves the page under its CSP: a fresh
// nonce per response, named by the page for Redoc's styles; no inline script, no 'unsafe-inline'
// or 'unsafe-eval'; scripts, styles and the icon only from /docs/assets, each served with nosniff.
// HEAD answers like GET.
func TestDocsPage(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		get := func() apitest.Response {
			return apitest.Must(t, s.Do(t, apitest.Request{Method: http.MethodGet, Path: "/" + apiref.Path}), http.StatusOK)
		}
		a, b := get(), get()
		nonceRE := regexp.MustCompile(`'nonce-([A-Za-z0-9_-]{24})'`)
		m := nonceRE.FindStringSubmatch(a.Header.Get("Content-Security-Policy"))
		if m == nil || nonceRE.FindStringSubmatch(b.Header.Get("Content-Security-Policy"))[1] == m[1] {
			t.Fatalf("no nonce, or the same one twice: %q / %q", a.Header.Get("Content-Security-Policy"), b.Header.Get("Content-Security-Policy"))
		}
		csp := a.Header.Get("Content-Security-Policy")
		for _, d := range []string{"default-src 'none'", "script-src 'self';", "connect-src 'self'", "img-src 'self' data:", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"} {
			if !strings.Contains(csp, d) {
				t.Errorf("Content-Security-Policy %q lacks %q", csp, d)
			}
		}
		if strings.Contains(csp, "unsafe-") || strings.Contains(csp, "http") {
			t.Errorf("Content-Security-Policy %q allows inline code or another origin", csp)
		}
		body := string(a.Body)
		if !strings.Contains(body, `data-nonce="`+m[1]+`"`) || !strings.Contains(body, `data-spec-url="`+apiref.SpecURL+`"`) {
			t.Fatalf("the page does not name its nonce and the document:\n%s", body)
		}
		for k, v := range map[string]string{"Content-Type": "text/html; charset=utf-8", "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"} {
			if a.Header.Get(k) != v {
				t.Errorf("%s: %q, want %q", k, a.Header.Get(k), v)
			}
		}
		if regexp.MustCompile(`<script>|<script [^>]*>[^<]|\son[a-z]+=|style=|<style`).MatchString(body) {
			t.Fatalf("inline script or style in the page:\n%s", body)
		}
		refs := regexp.MustCompile(`(?:href|src)="([^"]+)"`).FindAllStringSubmatch(body, -1)
		assets := 0
		for _, ref := range refs {
			u := strings.ReplaceAll(ref[1], "&amp;", "&")
			if u == apiref.SpecURL {
				continue
			}
			if !strings.HasPrefix(u, apiref.Path+"/assets/") {
				t.Fatalf("the page loads %s from outside %s/assets/", u, apiref.Path)
			}
			assets++
			r := apitest.Must(t, s.Do(t, apitest.Request{Method: http.MethodGet, Path: "/" + u}), http.StatusOK)
			if r.Header.Get("X-Content-Type-Options") != "nosniff" || len(r.Body) == 0 {
				t.Fatalf("%s: %v", u, r.Header)
			}
		}
		if assets != 4 {
			t.Fatalf("the page loads %d assets, want Redoc, its init script, the stylesheet and the icon", assets)
		}
		if h := s.Do(t, apitest.Request{Method: http.MethodHead, Path: "/" + apiref.Path}); h.Status != 200 || h.Header.Get("Content-Security-Policy") == "" || len(h.Body) != 0 {
			t.Fatalf("HEAD /docs: %d %v", h.Status, h.Header)
		}
		apitest.CheckEnvelope(t, s.Do(t, apitest.Request{Method: http.MethodGet, Path: "/" + apiref.Path + "/assets/nothing.js"}), 404, "ROUTE_NOT_FOUND")
	})
}
