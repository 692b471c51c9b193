package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"folio/platform/auth"
	"folio/platform/config"
	"folio/platform/httpx"
	"folio/tests/apitest"
)

// Cross-origin requests: CORS with and without FOLIO_CORS_ORIGINS, and a session cookie that is
// never a credential on a request a browser sent from another origin.

const corsOrigin = "https://app.example.com"

// withCORS is an Option that allows corsOrigin.
func withCORS(c *config.Config) { c.CORSOrigins = []string{corsOrigin, "http://localhost:5173"} }

// TestCORS: with FOLIO_CORS_ORIGINS, a preflight from an allowed origin is answered 204 with the
// method and the contract's request headers allowed and never credentials; every API response to
// an allowed origin (errors included) names it and exposes the contract's headers; other origins,
// other request headers (X-CSRF-Token) and paths outside /api/v1 get no CORS headers.
func TestCORS(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key := s.NewKey(t, s.NewUser(t, "Cora Cors"), auth.ScopeReadWrite)
		preflight := func(origin, method, headers string) rawResponse {
			h := map[string]string{"Origin": origin, "Access-Control-Request-Method": method}
			if headers != "" {
				h["Access-Control-Request-Headers"] = headers
			}
			return rawDo(t, s, http.MethodOptions, httpx.APIBase+"/notes/x", h)
		}
		// Lower case and sorted, as browsers send Access-Control-Request-Headers (the Fetch standard).
		allHeaders := "authorization,content-type,idempotency-key,if-match,if-none-match,x-request-id"
		for _, m := range []string{"GET", "HEAD", "POST", "PATCH", "DELETE"} {
			r := preflight(corsOrigin, m, allHeaders)
			if r.Status != http.StatusNoContent || len(r.Body) != 0 {
				t.Fatalf("preflight %s: %d %s", m, r.Status, r.Body)
			}
			if r.Header.Get("Access-Control-Allow-Origin") != corsOrigin || r.Header.Get("Access-Control-Allow-Methods") != m ||
				r.Header.Get("Access-Control-Allow-Headers") != allHeaders || r.Header.Get("Access-Control-Max-Age") != "600" {
				t.Fatalf("preflight %s: headers %v", m, r.Header)
			}
			if r.Header.Get("Access-Control-Allow-Credentials") != "" || !uuidV4RE.MatchString(r.Header.Get("X-Request-Id")) {
				t.Fatalf("preflight %s: credentials allowed or no request id: %v", m, r.Header)
			}
		}
		// The second allowed origin, and a preflight of an API path that does not exist.
		if r := preflight("http://localhost:5173", "GET", ""); r.Status != 204 || r.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" {
			t.Fatalf("second origin: %d %v", r.Status, r.Header)
		}
		// Refused preflights: no Access-Control-Allow-* at all, so the browser stops there.
		for name, r := range map[string]rawResponse{
			"other origin":    preflight("https://evil.example", "GET", "authorization"),
			"sibling":         preflight("https://api.example.com", "GET", ""),
			"csrf header":     preflight(corsOrigin, "POST", "content-type,x-csrf-token"),
			"cookie-ish":      preflight(corsOrigin, "GET", "cookie"),
			"method PUT":      preflight(corsOrigin, "PUT", ""),
			"scheme differs":  preflight("http://app.example.com", "GET", ""),
			"origin + suffix": preflight(corsOrigin+".evil", "GET", ""),
		} {
			for h := range r.Header {
				if strings.HasPrefix(h, "Access-Control-Allow") {
					t.Errorf("%s: %s = %q", name, h, r.Header.Get(h))
				}
			}
		}

		exposed := func(r rawResponse) {
			t.Helper()
			if r.Header.Get("Access-Control-Allow-Origin") != corsOrigin || r.Header.Get("Access-Control-Allow-Credentials") != "" {
				t.Fatalf("%d: Allow-Origin %q, Allow-Credentials %q", r.Status, r.Header.Get("Access-Control-Allow-Origin"), r.Header.Get("Access-Control-Allow-Credentials"))
			}
			got := strings.Split(r.Header.Get("Access-Control-Expose-Headers"), ",")
			for _, h := range []string{"Etag", "Location", "Retry-After", "X-Request-Id", "X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset", "Ratelimit", "Ratelimit-Policy"} {
				if !slices.ContainsFunc(got, func(g string) bool { return strings.EqualFold(strings.TrimSpace(g), h) }) {
					t.Fatalf("%d: Access-Control-Expose-Headers %q lacks %s", r.Status, got, h)
				}
			}
			if !slices.Contains(r.Header.Values("Vary"), "Origin") {
				t.Fatalf("%d: Vary %q lacks Origin", r.Status, r.Header.Values("Vary"))
			}
		}
		fromApp := map[string]string{"Origin": corsOrigin, "Authorization": "Bearer " + key}
		exposed(rawDo(t, s, http.MethodGet, httpx.APIBase+"/notebooks", fromApp))
		r := s.Do(t, apitest.Request{Method: http.MethodPost, Path: "/notebooks", Key: key, Body: map[string]any{"name": "cors"}, Header: map[string]string{"Origin": corsOrigin}})
		apitest.Must(t, r, http.StatusCreated)
		exposed(rawResponse{Status: r.Status, Header: r.Header})
		// Refusals are readable too: 401, 404.
		exposed(rawDo(t, s, http.MethodGet, httpx.APIBase+"/notebooks", map[string]string{"Origin": corsOrigin}))
		exposed(rawDo(t, s, http.MethodGet, httpx.APIBase+"/nowhere", fromApp))

		// Another origin is served as before (the browser, not the server, withholds the answer),
		// without Access-Control-Allow-Origin.
		other := rawDo(t, s, http.MethodGet, httpx.APIBase+"/notebooks", map[string]string{"Origin": "https://evil.example", "Authorization": "Bearer " + key})
		if other.Status != 200 || other.Header.Get("Access-Control-Allow-Origin") != "" || other.Header.Get("Access-Control-Expose-Headers") != "" {
			t.Fatalf("other origin: %d %v", other.Status, other.Header)
		}
		// Outside /api/v1: no CORS, even for an allowed origin.
		for _, p := range []string{"/healthz", "/signin"} {
			r := rawDo(t, s, http.MethodGet, p, map[string]string{"Origin": corsOrigin})
			for h := range r.Header {
				if strings.HasPrefix(h, "Access-Control-") {
					t.Fatalf("%s carries %s", p, h)
				}
			}
		}
	}, withCORS)
}

// TestCORSOff: without FOLIO_CORS_ORIGINS no response carries a CORS header (nor Vary: Origin),
// whatever the request, and a preflight is an OPTIONS like any other: 405 or 404 with the envelope.
func TestCORSOff(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key := s.NewKey(t, s.NewUser(t, "Otto Off"), auth.ScopeRead)
		pre := map[string]string{"Origin": corsOrigin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization"}
		for _, tc := range []struct {
			method, path string
			header       map[string]string
			status       int
		}{
			{http.MethodOptions, "/notebooks", pre, http.StatusMethodNotAllowed},
			{http.MethodOptions, "/nowhere", pre, http.StatusNotFound},
			{http.MethodGet, "/notebooks", map[string]string{"Origin": corsOrigin, "Authorization": "Bearer " + key}, http.StatusOK},
			{http.MethodGet, "/notebooks", map[string]string{"Origin": corsOrigin}, http.StatusUnauthorized},
		} {
			r := s.Do(t, apitest.Request{Method: tc.method, Path: tc.path, Header: tc.header})
			if r.Status != tc.status {
				t.Fatalf("%s %s: %d, want %d", tc.method, tc.path, r.Status, tc.status)
			}
			if r.Status >= 400 {
				apitest.CheckEnvelope(t, r, tc.status, r.ErrorCode(t))
			}
			for h := range r.Header {
				if strings.HasPrefix(h, "Access-Control-") {
					t.Fatalf("%s %s carries %s", tc.method, tc.path, h)
				}
			}
			if slices.Contains(r.Header.Values("Vary"), "Origin") {
				t.Fatalf("%s %s: Vary: Origin without CORS", tc.method, tc.path)
			}
		}
	})
}

// TestCookieNeverCrossOrigin: a session cookie is not accepted on a request a browser sent from
// another origin (by Sec-Fetch-Site, or Origin against Host), allowed by FOLIO_CORS_ORIGINS or not,
// for reads and writes alike: 401 UNAUTHENTICATED, not counted as a failed authentication. The same
// cookie from the server's own origin, or from a client that is no browser, still works, and an
// API key from an allowed origin too.
func TestCookieNeverCrossOrigin(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		u := s.NewUser(t, "Cookie Monster")
		si := s.OpenSession(t, u)
		key := s.NewKey(t, u, auth.ScopeReadWrite)
		own, err := url.Parse(s.URL)
		if err != nil {
			t.Fatal(err)
		}
		req := func(method string, extra map[string]string) apitest.Response {
			h := apitest.SessionHeader(si.Token, si.CSRFToken)
			for k, v := range extra {
				h[k] = v
			}
			r := apitest.Request{Method: method, Path: "/notebooks", Header: h}
			if method == http.MethodPost {
				r.Body = map[string]any{"name": "from " + method}
			}
			return s.Do(t, r)
		}
		for name, h := range map[string]map[string]string{
			"allowed origin":               {"Origin": corsOrigin},
			"other origin":                 {"Origin": "https://evil.example"},
			"same host, other port":        {"Origin": "http://" + own.Hostname() + ":1"},
			"null origin":                  {"Origin": "null"},
			"malformed origin":             {"Origin": "::"},
			"cross-site fetch":             {"Sec-Fetch-Site": "cross-site"},
			"same-site fetch":              {"Sec-Fetch-Site": "same-site"},
			"fetch metadata wins (cross)":  {"Sec-Fetch-Site": "cross-site", "Origin": s.URL},
			"fetch metadata and an origin": {"Sec-Fetch-Site": "same-site", "Origin": corsOrigin},
		} {
			for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost} {
				r := req(m, h)
				if r.Status != http.StatusUnauthorized {
					t.Fatalf("%s, %s: %d, want 401: %s", name, m, r.Status, r.Body)
				}
				if m != http.MethodHead {
					apitest.CheckEnvelope(t, r, http.StatusUnauthorized, "UNAUTHENTICATED")
					if !strings.Contains(string(r.Body), "cross-origin") {
						t.Fatalf("%s: message %s", name, r.Body)
					}
				}
			}
		}
		// Not counted: the failure budget (2 here) is untouched, so a bad key still gets 401.
		bad := "svc_live_AAAAAAAA_" + strings.Repeat("B", 24)
		if r := s.Get(t, bad, "/notebooks"); r.Status != http.StatusUnauthorized {
			t.Fatalf("a bad key after cross-origin cookies: %d, want 401 (the refusals must not count as failures)", r.Status)
		}
		// The server's own origin, fetch metadata saying so, a navigation, or no browser at all.
		for name, h := range map[string]map[string]string{
			"same origin":         {"Origin": s.URL},
			"same origin (fetch)": {"Sec-Fetch-Site": "same-origin", "Origin": s.URL},
			"typed URL":           {"Sec-Fetch-Site": "none"},
			"no browser":          nil,
		} {
			if g, p := req(http.MethodGet, h), req(http.MethodPost, h); g.Status != http.StatusOK || p.Status != http.StatusCreated {
				t.Fatalf("%s: GET %d, POST %d (%s), want 200 and 201", name, g.Status, p.Status, p.Body)
			}
		}
		// An API key is accepted from any origin (the browser enforces FOLIO_CORS_ORIGINS).
		r := s.Do(t, apitest.Request{Method: http.MethodGet, Path: "/notebooks", Key: key, Header: map[string]string{"Origin": corsOrigin, "Sec-Fetch-Site": "cross-site"}})
		apitest.Must(t, r, http.StatusOK)
		if got := fmt.Sprint(r.Header.Get("Access-Control-Allow-Origin")); got != corsOrigin {
			t.Fatalf("Access-Control-Allow-Origin %q", got)
		}
	}, withCORS, apitest.AuthFailureLimit(2))
}
