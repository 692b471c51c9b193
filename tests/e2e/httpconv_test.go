package e2e

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"

	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/config"
	"folio/platform/httpx"
	"folio/tests/apitest"
)

// rawResponse is what rawDo got: status, headers and the body exactly as sent (not decompressed).
type rawResponse struct {
	Status int
	Header http.Header
	Body   []byte
}

// noRedirects is a client that neither follows redirects nor decompresses on its own: these tests
// look at exactly what the server sent.
var noRedirects = &http.Client{
	Timeout:       30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Transport:     &http.Transport{DisableCompression: true},
}

// rawDo sends method to the server's root-relative path with the given headers.
func rawDo(t *testing.T, s *apitest.Server, method, path string, header map[string]string) rawResponse {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	// Held to the OpenAPI document like every exchange of apitest.Server.Do.
	s.Contract.Check(t, req, nil, apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: body})
	return rawResponse{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

// headVaries are the response headers whose value may differ between two requests in a row (not
// their presence): the request id, the clock, the rate limit's count, the settings UI's fresh
// CSRF cookie and the docs page's fresh CSP nonce. Content-Length and Transfer-Encoding are framing, checked apart.
var headVaries = []string{"Date", "X-Request-Id", "X-Ratelimit-Remaining", "X-Ratelimit-Reset", "Ratelimit", "Set-Cookie", "Content-Security-Policy", "Content-Length", "Transfer-Encoding"}

// TestHeadOnEveryGet: every GET route of the engine has a HEAD route, and for every GET route
// (parameters filled with real ids where it has them) HEAD answers the same status and the same
// headers with no body; HEAD on a path without GET stays 405.
func TestHeadOnEveryGet(t *testing.T) {
	apitest.EachDB(t, func(t *testing.T, kind string) {
		var engine *gin.Engine
		s := apitest.StartFx(t, kind, nil, fx.Populate(&engine))
		w := newWorld(t, s)
		note := createNote(t, s, w.annRW, w.teamNB, "HEAD #check with @Ann")["id"].(string)
		task := apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"title": "head", "notebookId": w.teamNB}), http.StatusCreated).Str(t, "id")
		session := s.OpenSession(t, w.ann)
		params := map[string]string{
			"/api/v1/notes/:id": note, "/api/v1/tasks/:id": task, "/api/v1/notebooks/:id": w.teamNB,
			"/assets/:name": "app.css", "/settings/keys/:prefix": apitest.KeyPrefix(t, w.annRead),
		}
		fill := func(route string) string {
			parts := strings.Split(route, "/")
			for i, p := range parts {
				if !strings.HasPrefix(p, ":") && !strings.HasPrefix(p, "*") {
					continue
				}
				v, ok := params[strings.Join(parts[:i+1], "/")]
				if !ok {
					v = "x" // an unknown parameter: GET and HEAD must still agree
				}
				parts[i] = v
			}
			return strings.Join(parts, "/")
		}

		methods := map[string][]string{}
		for _, r := range engine.Routes() {
			methods[r.Path] = append(methods[r.Path], r.Method)
		}
		gets := 0
		for route, ms := range methods {
			if !slices.Contains(ms, http.MethodGet) {
				if slices.Contains(ms, http.MethodHead) {
					t.Errorf("%s answers HEAD without GET (%v)", route, ms)
				}
				continue
			}
			gets++
			if !slices.Contains(ms, http.MethodHead) {
				t.Errorf("GET %s has no HEAD route", route)
				continue
			}
			path := fill(route)
			h := map[string]string{
				"Authorization":   "Bearer " + w.annRW,
				"Cookie":          auth.SessionCookie + "=" + session.Token,
				"Accept-Encoding": "identity", // gzip is never applied to HEAD; compare like with like
			}
			get, head := rawDo(t, s, http.MethodGet, path, h), rawDo(t, s, http.MethodHead, path, h)
			if get.Status != head.Status {
				t.Errorf("%s: GET %d, HEAD %d", path, get.Status, head.Status)
				continue
			}
			if strings.HasPrefix(route, httpx.APIBase) && !slices.Contains(strings.Split(path, "/"), "x") && get.Status != http.StatusOK {
				t.Errorf("GET %s: %d (%s), want 200", path, get.Status, get.Body)
			}
			if len(head.Body) != 0 {
				t.Errorf("HEAD %s has a body: %q", path, head.Body)
			}
			if cl := head.Header.Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(get.Body)) {
				t.Errorf("HEAD %s: Content-Length %s, GET's body is %d bytes", path, cl, len(get.Body))
			}
			for name := range get.Header {
				if slices.Contains(headVaries, name) {
					if (head.Header[name] == nil) != (get.Header[name] == nil) && name != "Content-Length" && name != "Transfer-Encoding" {
						t.Errorf("%s: header %s on GET %q, on HEAD %q", path, name, get.Header[name], head.Header[name])
					}
					continue
				}
				if !slices.Equal(get.Header[name], head.Header[name]) {
					t.Errorf("%s: header %s: GET %q, HEAD %q", path, name, get.Header[name], head.Header[name])
				}
			}
			for name := range head.Header {
				if get.Header[name] == nil && name != "Content-Length" {
					t.Errorf("%s: header %s only on HEAD (%q)", path, name, head.Header[name])
				}
			}
		}
		if gets < 15 {
			t.Fatalf("only %d GET routes found in the engine", gets)
		}
		// A path without GET: HEAD is 405 like any other method it does not have.
		r := s.Do(t, apitest.Request{Method: http.MethodHead, Path: "/suggestions/x/approve", Key: w.annRW})
		if r.Status != http.StatusMethodNotAllowed {
			t.Fatalf("HEAD /suggestions/x/approve: %d, want 405", r.Status)
		}
		// HEAD is a read: a read-only key may send it, and it is rate limited like a GET.
		r = s.Do(t, apitest.Request{Method: http.MethodHead, Path: "/notes/" + note, Key: w.annRead})
		if r.Status != http.StatusOK || r.Header.Get("X-RateLimit-Limit") == "" || r.Header.Get("RateLimit") == "" {
			t.Fatalf("HEAD with a read key: %d, headers %v", r.Status, r.Header)
		}
	})
}

var (
	rateLimitPolicyRE = regexp.MustCompile(`^"default";q=(\d+);w=60$`)
	rateLimitRE       = regexp.MustCompile(`^"default";r=(\d+);t=(\d+)$`)
)

// ietfLimit returns q of RateLimit-Policy and r, t of RateLimit, failing when they are missing or
// malformed.
func ietfLimit(t *testing.T, r apitest.Response) (q, remaining, reset int) {
	t.Helper()
	p := rateLimitPolicyRE.FindStringSubmatch(r.Header.Get("RateLimit-Policy"))
	l := rateLimitRE.FindStringSubmatch(r.Header.Get("RateLimit"))
	if p == nil || l == nil {
		t.Fatalf("%d response: RateLimit-Policy %q, RateLimit %q", r.Status, r.Header.Get("RateLimit-Policy"), r.Header.Get("RateLimit"))
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	return atoi(p[1]), atoi(l[1]), atoi(l[2])
}

// TestRateLimitIETFHeaders walks the rolling window on a fake clock: RateLimit-Policy names the
// limit and the 60 s window, RateLimit's r is X-RateLimit-Remaining and its t the seconds until the
// oldest counted request leaves the window (X-RateLimit-Reset minus now), on accepted requests and
// on the 429 alike; a request that does not authenticate carries neither.
func TestRateLimitIETFHeaders(t *testing.T) {
	t0 := time.Date(2031, 3, 1, 9, 0, 0, 0, time.UTC)
	apitest.ForEachDBWithClock(t, t0, func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		key := s.NewKey(t, s.NewUser(t, "Rita Limit"), auth.ScopeRead)
		check := func(r apitest.Response, wantStatus, wantR, wantT int) {
			t.Helper()
			if r.Status != wantStatus {
				t.Fatalf("status %d, want %d: %s", r.Status, wantStatus, r.Body)
			}
			q, rem, reset := ietfLimit(t, r)
			if q != smallLimit || rem != wantR || reset != wantT {
				t.Fatalf("q=%d r=%d t=%d, want q=%d r=%d t=%d", q, rem, reset, smallLimit, wantR, wantT)
			}
			_, xrem, xreset := limitHeaders(t, r)
			if xrem != rem || xreset-fake.Now().Unix() != int64(reset) {
				t.Fatalf("RateLimit r=%d t=%d disagrees with X-RateLimit-Remaining %d, X-RateLimit-Reset %d (now %d)", rem, reset, xrem, xreset, fake.Now().Unix())
			}
		}
		check(s.Get(t, key, "/notebooks"), 200, 4, 60) // counted at t0: leaves at t0+60
		fake.Set(t0.Add(10 * time.Second))
		check(s.Get(t, key, "/notebooks"), 200, 3, 50) // the oldest still leaves at t0+60
		fake.Set(t0.Add(20 * time.Second))
		check(s.Get(t, key, "/notebooks"), 200, 2, 40)
		check(s.Get(t, key, "/notebooks"), 200, 1, 40)
		check(s.Get(t, key, "/notebooks"), 200, 0, 40)
		fake.Set(t0.Add(45 * time.Second))
		r := s.Get(t, key, "/notebooks")
		checkLimited(t, r)
		check(r, 429, 0, 15)
		fake.Set(t0.Add(60 * time.Second)) // the first request leaves the window
		check(s.Get(t, key, "/notebooks"), 200, 0, 10)
		fake.Set(t0.Add(70 * time.Second))
		check(s.Get(t, key, "/notebooks"), 200, 0, 10) // t0+10 left too: the oldest is at t0+20, 10 s to go

		// Not authenticated: no rate-limit headers of either kind.
		r = s.Get(t, "", "/notebooks")
		apitest.CheckEnvelope(t, r, http.StatusUnauthorized, "UNAUTHENTICATED")
		for _, h := range []string{"RateLimit", "RateLimit-Policy", "X-RateLimit-Limit"} {
			if v := r.Header.Get(h); v != "" {
				t.Fatalf("401 carries %s: %q", h, v)
			}
		}
	}, apitest.RateLimit(smallLimit))
}

// gunzip decompresses a gzip body, failing the test when it is not one.
func gunzip(t *testing.T, body []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gzip body: %v", err)
	}
	return out
}

// TestGzip: a response of 1024 bytes or more is gzip-compressed when the request accepts gzip, and
// its decompressed body is the identity body; 1023 bytes is not, nor is anything when the request
// does not accept gzip, nor a HEAD. The boundary is met exactly: a note's content is sized until
// its JSON is 1023, then 1024 bytes.
func TestGzip(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		id := createNote(t, s, w.annRW, w.teamNB, "x")["id"].(string)
		path := httpx.APIBase + "/notes/" + id
		auth := map[string]string{"Authorization": "Bearer " + w.annRW}
		with := func(extra map[string]string) map[string]string {
			h := map[string]string{}
			for k, v := range auth {
				h[k] = v
			}
			for k, v := range extra {
				h[k] = v
			}
			return h
		}
		identity := func() []byte {
			r := rawDo(t, s, http.MethodGet, path, with(map[string]string{"Accept-Encoding": "identity"}))
			if r.Status != 200 || r.Header.Get("Content-Encoding") != "" {
				t.Fatalf("identity GET: %d, Content-Encoding %q", r.Status, r.Header.Get("Content-Encoding"))
			}
			return r.Body
		}
		setSize := func(size int) []byte {
			t.Helper()
			content := "x"
			for range 3 {
				overhead := len(identity()) - len(content)
				content = strings.Repeat("x", size-overhead)
				apitest.Must(t, patch(t, s, w.annRW, "/notes/"+id, map[string]any{"content": content}), 200)
				if b := identity(); len(b) == size {
					return b
				}
			}
			t.Fatalf("could not size the note's JSON to %d bytes", size)
			return nil
		}
		for _, tc := range []struct {
			size int
			gzip bool
		}{{1023, false}, {1024, true}, {20000, true}} {
			plain := setSize(tc.size)
			for _, ae := range []string{"gzip", "gzip, deflate, br, zstd", "br;q=1.0, gzip;q=0.5"} {
				r := rawDo(t, s, http.MethodGet, path, with(map[string]string{"Accept-Encoding": ae}))
				if r.Status != 200 || !slices.Contains(r.Header.Values("Vary"), "Accept-Encoding") {
					t.Fatalf("%d bytes, Accept-Encoding %q: %d, Vary %q", tc.size, ae, r.Status, r.Header.Values("Vary"))
				}
				got := r.Body
				if ce := r.Header.Get("Content-Encoding"); tc.gzip != (ce == "gzip") || (!tc.gzip && ce != "") {
					t.Fatalf("%d bytes, Accept-Encoding %q: Content-Encoding %q", tc.size, ae, ce)
				}
				if tc.gzip {
					got = gunzip(t, r.Body)
					if tc.size > 10000 && len(r.Body) > tc.size/10 {
						t.Fatalf("%d bytes compressed to %d", tc.size, len(r.Body))
					}
				}
				if !bytes.Equal(got, plain) {
					t.Fatalf("%d bytes, Accept-Encoding %q: body differs from the identity body", tc.size, ae)
				}
			}
			for _, ae := range []string{"", "identity", "gzip;q=0", "zstd", "br"} {
				h := with(nil)
				if ae != "" {
					h["Accept-Encoding"] = ae
				}
				if r := rawDo(t, s, http.MethodGet, path, h); r.Header.Get("Content-Encoding") != "" || !bytes.Equal(r.Body, plain) {
					t.Fatalf("%d bytes, Accept-Encoding %q: Content-Encoding %q", tc.size, ae, r.Header.Get("Content-Encoding"))
				}
			}
			if r := rawDo(t, s, http.MethodHead, path, with(map[string]string{"Accept-Encoding": "gzip"})); r.Status != 200 || r.Header.Get("Content-Encoding") != "" {
				t.Fatalf("HEAD: %d, Content-Encoding %q", r.Status, r.Header.Get("Content-Encoding"))
			}
		}
		// Error envelopes and lists follow the same rule: a big list is compressed.
		for range 10 {
			createNote(t, s, w.annRW, w.teamNB, strings.Repeat("A longer note. ", 20))
		}
		r := rawDo(t, s, http.MethodGet, httpx.APIBase+"/notes", with(map[string]string{"Accept-Encoding": "gzip"}))
		if r.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("a list of %d bytes is not compressed", len(r.Body))
		}
		if !bytes.HasPrefix(gunzip(t, r.Body), []byte(`{"data":[`)) {
			t.Fatal("the compressed list is not the list")
		}
	})
}

const corsOrigin = "https://app.example.com"

// withCORS is an Option that allows corsOrigin.
func withCORS(c *config.Config) { c.CORSOrigins = []string{corsOrigin, "http://localhost:5173"} }

// TestCORS: with FOLIO_CORS_ORIGINS, a preflight from an allowed origin is answered 204 with the
// method and the contract's request headers allowed and never credentials; every API response to
// an allowed origin (errors included) names it and exposes the contract's headers; other origins,
// other request headers (X-CSRF-Token) and paths outside /api/v1 get no CORS headers.
func TestCORS(t *testing.T) {
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
