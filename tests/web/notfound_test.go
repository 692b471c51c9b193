package web

import (
	"net/http"
	"strings"
	"testing"

	"folio/tests/apitest"
)

// TestPageNotFound: an unknown address under the pages' prefixes (/app/, /settings/, /review/)
// is a page that says so (404, HTML, the pages' security headers), leading to Focus signed in and
// to the sign-in page signed out, for GET, HEAD and POST alike; so is a method a page's address
// does not take (405 with Allow); elsewhere an unknown path or method keeps the API's JSON
// envelope. On both databases.
func TestPageNotFound(t *testing.T) {
	apitest.EachDB(t, func(t *testing.T, kind string) {
		f := newAppFixture(t, kind)
		out := newBrowser(t, f.s)
		for _, path := range []string{"/app/nope", "/app/notes/" + f.note + "/nope", "/settings/nope", "/review/notes/x/y/z/w", "/app/"} {
			for _, tc := range []struct {
				b    *browser
				back string
			}{{f.b, `href="/app">Back to Focus`}, {out, `href="/signin">Go to sign in`}} {
				p := tc.b.get(path)
				want(t, p, http.StatusNotFound, "Page not found", "There is no page at this address.")
				checkPageHeaders(t, p)
				if ct := p.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
					t.Fatalf("GET %s: Content-Type %q", path, ct)
				}
				if !strings.Contains(p.Body, tc.back) {
					t.Fatalf("GET %s: the page does not lead back with %s:\n%s", path, tc.back, p.Body)
				}
			}
			head := f.s.Do(t, apitest.Request{Method: http.MethodHead, Path: "/" + path})
			if head.Status != http.StatusNotFound || len(head.Body) != 0 || !strings.HasPrefix(head.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("HEAD %s: %d %q %s", path, head.Status, head.Header.Get("Content-Type"), head.Body)
			}
		}
		want(t, f.b.post("/app/nope", nil), http.StatusNotFound, "Page not found")

		// A path that exists but does not take the method: a page too (405, Allow, HTML).
		for _, tc := range []struct {
			b    *browser
			back string
		}{{f.b, `href="/app">Back to Focus`}, {out, `href="/signin">Go to sign in`}} {
			p := tc.b.post("/app/notes/"+f.note, nil)
			want(t, p, http.StatusMethodNotAllowed, "Not a request this page takes", "This address does not take a POST request.")
			checkPageHeaders(t, p)
			if allow := p.Header.Get("Allow"); allow != "GET, HEAD" {
				t.Fatalf("POST /app/notes/:id: Allow %q, want \"GET, HEAD\"", allow)
			}
			if !strings.Contains(p.Body, tc.back) {
				t.Fatalf("POST /app/notes/:id: the page does not lead back with %s:\n%s", tc.back, p.Body)
			}
		}

		// Outside the pages' prefixes, and for the API, the JSON envelope as before.
		for _, path := range []string{"//nope", "//appx", "//app-nope", "//settingsx", "/nope", "/notes/nope/x"} {
			apitest.CheckEnvelope(t, f.s.Do(t, apitest.Request{Method: http.MethodGet, Path: path}), http.StatusNotFound, "ROUTE_NOT_FOUND")
		}
		apitest.CheckEnvelope(t, f.s.Do(t, apitest.Request{Method: http.MethodPut, Path: "/notebooks"}), http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
	})
}
