package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"

	"folio/platform/auth"
	"folio/platform/httpx"
	"folio/platform/ids"
	"folio/tests/apitest"
)

var (
	// uuidRE is a UUID in its canonical lower-case form.
	uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	// uuidV4RE is a random (version 4, RFC 4122 variant) UUID.
	uuidV4RE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
)

// TestRequestID checks X-Request-Id on every kind of response and the treatment of a client's id.
func TestRequestID(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		requests := []struct {
			name   string
			req    apitest.Request
			status int
		}{
			{"health check", apitest.Request{Method: "GET", Path: "//healthz"}, 200},
			{"readiness check", apitest.Request{Method: "GET", Path: "//readyz"}, 200},
			{"list", apitest.Request{Method: "GET", Path: "/notebooks", Key: w.annRW}, 200},
			{"create", apitest.Request{Method: "POST", Path: "/notebooks", Key: w.annRW, Body: map[string]any{"name": "n"}}, 201},
			{"no key", apitest.Request{Method: "GET", Path: "/notebooks"}, 401},
			{"bad body", apitest.Request{Method: "POST", Path: "/notebooks", Key: w.annRW, Body: "{"}, 400},
			{"scope", apitest.Request{Method: "POST", Path: "/notebooks", Key: w.annRead, Body: map[string]any{"name": "n"}}, 403},
			{"not found", apitest.Request{Method: "GET", Path: "/notebooks/" + ids.New(), Key: w.annRW}, 404},
			{"unknown route", apitest.Request{Method: "GET", Path: "/nothing-here"}, 404},
			{"wrong method", apitest.Request{Method: "PUT", Path: "/notebooks"}, 405},
		}
		t.Run("every response carries a fresh UUID", func(t *testing.T) {
			seen := map[string]string{}
			for _, rq := range requests {
				for range 2 {
					r := s.Do(t, rq.req)
					if r.Status != rq.status {
						t.Fatalf("%s: status %d, want %d: %s", rq.name, r.Status, rq.status, r.Body)
					}
					id := r.Header.Get("X-Request-Id")
					if !uuidV4RE.MatchString(id) {
						t.Fatalf("%s: X-Request-Id %q is not a UUIDv4", rq.name, id)
					}
					if other, dup := seen[id]; dup {
						t.Fatalf("%s: X-Request-Id %q was already used by %s", rq.name, id, other)
					}
					seen[id] = rq.name
					if r.Status >= 400 {
						apitest.CheckEnvelope(t, r, r.Status, r.ErrorCode(t))
					}
				}
			}
		})

		const clientID = "3f2a8f8e-1b7c-4d2e-9a51-0c8e4b7d6a19"
		t.Run("a client UUID is kept", func(t *testing.T) {
			for _, id := range []string{clientID, "00000000-0000-0000-0000-000000000000", "01890a5d-ac96-774b-bcce-b302099a8057" /* v7 */} {
				for _, rq := range requests {
					req := rq.req
					req.Header = map[string]string{"X-Request-Id": id}
					r := s.Do(t, req)
					if got := r.Header.Get("X-Request-Id"); got != id {
						t.Fatalf("%s: X-Request-Id %q, want the client's %q", rq.name, got, id)
					}
					if r.Status >= 400 {
						apitest.CheckEnvelope(t, r, rq.status, r.ErrorCode(t)) // requestId == header == client's id
					}
				}
			}
		})

		t.Run("an upper-case client UUID is kept (as the same UUID)", func(t *testing.T) {
			up := strings.ToUpper(clientID)
			r := s.Do(t, apitest.Request{Method: "GET", Path: "/notebooks", Header: map[string]string{"X-Request-Id": up}})
			if got := r.Header.Get("X-Request-Id"); !strings.EqualFold(got, up) || !uuidRE.MatchString(strings.ToLower(got)) {
				t.Fatalf("X-Request-Id %q, want %q", got, up)
			}
			apitest.CheckEnvelope(t, r, 401, "UNAUTHENTICATED")
		})

		t.Run("a client id that is not a UUID is replaced", func(t *testing.T) {
			for _, sent := range []string{
				"abc",
				"request-1",
				"3f2a8f8e-1b7c-4d2e-9a51-0c8e4b7d6a1g",   // 36 characters, not hex
				"3f2a8f8e1b7c4d2e9a510c8e4b7d6a19",       // no dashes
				"{3f2a8f8e-1b7c-4d2e-9a51-0c8e4b7d6a19}", // braces
				"urn:uuid:3f2a8f8e-1b7c-4d2e-9a51-0c8e4b7d6a19",
				"3f2a8f8e-1b7c-4d2e-9a51-0c8e4b7d6a19x",    // one character too many
				"3f2a8f8e-1b7c-4d2e-9a51-0c8e4b7d6a1",      // one too few
				"3f2a8f8e-1b7c-4d2e-9a51-0c8e4b7d6a19 abc", // a UUID followed by something else
				strings.Repeat("a", 2000),
				"<script>alert(1)</script>",
			} {
				for _, rq := range []apitest.Request{
					{Method: "GET", Path: "/notebooks", Key: w.annRW},
					{Method: "GET", Path: "/notebooks"},
					{Method: "GET", Path: "/nothing-here"},
				} {
					rq.Header = map[string]string{"X-Request-Id": sent}
					r := s.Do(t, rq)
					got := r.Header.Get("X-Request-Id")
					if got == sent || !uuidV4RE.MatchString(got) {
						t.Fatalf("sent %q: X-Request-Id %q, want a fresh UUIDv4", sent, got)
					}
					// The fresh id itself may contain a short value such as "abc" by chance.
					if strings.Contains(strings.ReplaceAll(string(r.Body), got, ""), sent) {
						t.Fatalf("sent %q: the body echoes it: %s", sent, r.Body)
					}
					if r.Status >= 400 {
						apitest.CheckEnvelope(t, r, r.Status, r.ErrorCode(t))
					}
				}
			}
		})
	})
}

// TestRoutingErrors checks the envelopes for an unknown route and a known path with another method.
// A path starting with "//" is sent from the server's root ("//api" is /api); the root itself is
// the web app's entry (CONTRACT.md section 23: / goes to /app or /signin, TestRoutesByJob).
func TestRoutingErrors(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for _, tc := range []struct {
			method, path string
			status       int
			code         string
			allow        []string // for 405: the methods the Allow header must list
		}{
			{"GET", "/nothing-here", 404, "ROUTE_NOT_FOUND", nil},
			{"POST", "/nothing-here", 404, "ROUTE_NOT_FOUND", nil},
			{"GET", "/notes-and-more", 404, "ROUTE_NOT_FOUND", nil},
			{"GET", "//api", 404, "ROUTE_NOT_FOUND", nil},
			{"GET", "//api/v2/notebooks", 404, "ROUTE_NOT_FOUND", nil},
			{"GET", "//API/V1/notebooks", 404, "ROUTE_NOT_FOUND", nil},
			{"GET", "/Notebooks", 404, "ROUTE_NOT_FOUND", nil},
			{"GET", "/notebooks/", 404, "ROUTE_NOT_FOUND", nil},
			{"GET", "/notebooks/" + w.annNB + "/extra", 404, "ROUTE_NOT_FOUND", nil},
			{"GET", "//notebooks", 404, "ROUTE_NOT_FOUND", nil},
			{"PUT", "/notebooks", 405, "METHOD_NOT_ALLOWED", []string{"GET", "POST"}},
			{"DELETE", "/notebooks", 405, "METHOD_NOT_ALLOWED", []string{"GET", "POST"}},
			{"PATCH", "/notebooks/" + w.annNB, 405, "METHOD_NOT_ALLOWED", []string{"GET"}},
			{"DELETE", "/notebooks/" + w.annNB, 405, "METHOD_NOT_ALLOWED", []string{"GET"}},
			{"PATCH", "/workspaces", 405, "METHOD_NOT_ALLOWED", []string{"GET", "POST"}},
			{"GET", "/workspaces/" + w.team + "/members", 405, "METHOD_NOT_ALLOWED", []string{"POST"}},
			{"GET", "/workspaces/" + w.team + "/members/" + w.bob.ID, 405, "METHOD_NOT_ALLOWED", []string{"DELETE"}},
			{"POST", "/audit-log", 405, "METHOD_NOT_ALLOWED", []string{"GET"}},
			{"POST", "//healthz", 405, "METHOD_NOT_ALLOWED", []string{"GET"}},
			{"DELETE", "//readyz", 405, "METHOD_NOT_ALLOWED", []string{"GET"}},
		} {
			for _, auth := range []struct{ name, key string }{{"without auth", ""}, {"with a key", w.annRW}, {"with a bad key", "nope"}} {
				t.Run(tc.method+" "+tc.path+" "+auth.name, func(t *testing.T) {
					r := s.Do(t, apitest.Request{Method: tc.method, Path: tc.path, Key: auth.key})
					apitest.CheckEnvelope(t, r, tc.status, tc.code)
					if tc.allow != nil {
						allow := strings.Split(strings.ReplaceAll(r.Header.Get("Allow"), " ", ""), ",")
						for _, m := range tc.allow {
							if !slices.Contains(allow, m) {
								t.Fatalf("Allow %q does not list %s", r.Header.Get("Allow"), m)
							}
						}
						if slices.Contains(allow, tc.method) {
							t.Fatalf("Allow %q lists the refused method %s", r.Header.Get("Allow"), tc.method)
						}
					}
				})
			}
		}
	})
}

// TestRequestBodies checks the strict JSON binding on every endpoint that takes a body: each bad
// body is 400 with the documented code and a message naming the field or the problem.
func TestRequestBodies(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		type row struct {
			name    string
			body    string
			noCType bool
			ctype   string
			code    string
			mention []string
		}
		common := []row{
			{name: "no Content-Type", body: `{}`, noCType: true, code: "VALIDATION_ERROR", mention: []string{"Content-Type"}},
			{name: "text/plain", body: `{}`, ctype: "text/plain", code: "VALIDATION_ERROR", mention: []string{"Content-Type"}},
			{name: "form encoded", body: `name=x`, ctype: "application/x-www-form-urlencoded", code: "VALIDATION_ERROR", mention: []string{"Content-Type"}},
			{name: "empty body", body: ``, code: "VALIDATION_ERROR", mention: []string{"JSON object"}},
			{name: "malformed JSON", body: `{"name": "x"`, code: "VALIDATION_ERROR", mention: []string{"JSON"}},
			{name: "not JSON at all", body: `hello`, code: "VALIDATION_ERROR", mention: []string{"JSON"}},
			{name: "JSON array", body: `[{"name":"x"}]`, code: "VALIDATION_ERROR", mention: []string{"JSON object"}},
			{name: "JSON string", body: `"x"`, code: "VALIDATION_ERROR", mention: []string{"JSON object"}},
			{name: "JSON number", body: `1`, code: "VALIDATION_ERROR", mention: []string{"JSON object"}},
			{name: "JSON null", body: `null`, code: "VALIDATION_ERROR", mention: []string{"JSON object"}},
			{name: "trailing garbage", body: `{"name":"x"} trailing`, code: "VALIDATION_ERROR", mention: []string{"one JSON object"}},
			{name: "two objects", body: `{"name":"x"}{"name":"y"}`, code: "VALIDATION_ERROR", mention: []string{"one JSON object"}},
			{name: "server field id", body: `{"id":"` + ids.New() + `"}`, code: "VALIDATION_ERROR", mention: []string{`"id"`}},
			{name: "server field createdAt", body: `{"createdAt":"2026-11-22T10:31:07.000Z"}`, code: "VALIDATION_ERROR", mention: []string{`"createdAt"`}},
			{name: "server field updatedAt", body: `{"updatedAt":"2026-11-22T10:31:07.000Z"}`, code: "VALIDATION_ERROR", mention: []string{`"updatedAt"`}},
			{name: "unknown field", body: `{"bogus":1}`, code: "VALIDATION_ERROR", mention: []string{`"bogus"`}},
			{name: "missing required field", body: `{}`, code: "MISSING_FIELD"},
		}
		endpoints := []struct {
			name, path, required string
			valid                map[string]any
			extra                []row
		}{
			{name: "POST /notebooks", path: "/notebooks", required: "name", valid: map[string]any{"name": "ok"}, extra: []row{
				{name: "wrong type for name", body: `{"name":7}`, code: "VALIDATION_ERROR", mention: []string{`"name"`, "string"}},
				{name: "wrong type for workspaceId", body: `{"name":"x","workspaceId":5}`, code: "VALIDATION_ERROR", mention: []string{`"workspaceId"`}},
				{name: "wrong type for color", body: `{"name":"x","color":true}`, code: "VALIDATION_ERROR", mention: []string{`"color"`}},
				{name: "object for name", body: `{"name":{"text":"x"}}`, code: "VALIDATION_ERROR", mention: []string{`"name"`}},
				{name: "null name", body: `{"name":null}`, code: "MISSING_FIELD", mention: []string{`"name"`}},
				{name: "server field members", body: `{"name":"x","members":[]}`, code: "VALIDATION_ERROR", mention: []string{`"members"`}},
				{name: "misspelt field", body: `{"name":"x","colour":"red"}`, code: "VALIDATION_ERROR", mention: []string{`"colour"`}},
				{name: "required field missing, another present", body: `{"color":"red"}`, code: "MISSING_FIELD", mention: []string{`"name"`}},
			}},
			{name: "POST /workspaces", path: "/workspaces", required: "name", valid: map[string]any{"name": "ok"}, extra: []row{
				{name: "wrong type for name", body: `{"name":["x"]}`, code: "VALIDATION_ERROR", mention: []string{`"name"`}},
				{name: "null name", body: `{"name":null}`, code: "MISSING_FIELD", mention: []string{`"name"`}},
				{name: "server field role", body: `{"name":"x","role":"OWNER"}`, code: "VALIDATION_ERROR", mention: []string{`"role"`}},
				{name: "server field members", body: `{"name":"x","members":[]}`, code: "VALIDATION_ERROR", mention: []string{`"members"`}},
			}},
			{name: "POST /workspaces/:id/members", path: "/workspaces/" + w.team + "/members", required: "email", valid: map[string]any{"email": w.bob.Email}, extra: []row{
				{name: "wrong type for email", body: `{"email":1}`, code: "VALIDATION_ERROR", mention: []string{`"email"`}},
				{name: "null email", body: `{"email":null}`, code: "MISSING_FIELD", mention: []string{`"email"`}},
				{name: "role is not accepted", body: `{"email":"` + w.bob.Email + `","role":"OWNER"}`, code: "VALIDATION_ERROR", mention: []string{`"role"`}},
				{name: "userId is not accepted", body: `{"email":"` + w.bob.Email + `","userId":"` + w.bob.ID + `"}`, code: "VALIDATION_ERROR", mention: []string{`"userId"`}},
			}},
		}
		for _, ep := range endpoints {
			t.Run(ep.name, func(t *testing.T) {
				// The valid body passes, so every rejection below is about the body alone.
				r := s.Post(t, w.annRW, ep.path, ep.valid)
				if r.Status != 200 && r.Status != 201 {
					t.Fatalf("valid body: %d %s", r.Status, r.Body)
				}
				for _, tc := range append(slices.Clone(common), ep.extra...) {
					t.Run(tc.name, func(t *testing.T) {
						req := apitest.Request{Method: "POST", Path: ep.path, Key: w.annRW, Body: tc.body, NoCType: tc.noCType}
						if tc.ctype != "" {
							req.Header = map[string]string{"Content-Type": tc.ctype}
						}
						mention := tc.mention
						if tc.code == "MISSING_FIELD" && mention == nil {
							mention = []string{`"` + ep.required + `"`}
						}
						wantErr(t, s.Do(t, req), 400, tc.code, mention...)
					})
				}
			})
		}
	})
}

// TestBodyLimit checks the 1 MiB limit on request bodies, whether the size is declared or not.
func TestBodyLimit(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		// body returns a JSON object of exactly n bytes whose name is far over 40 characters.
		body := func(n int) string {
			const head, tail = `{"name":"`, `"}`
			return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
		}
		t.Run("exactly 1 MiB is read (and then the name is too long)", func(t *testing.T) {
			r := s.Do(t, apitest.Request{Method: "POST", Path: "/notebooks", Key: w.annRW, Body: body(httpx.MaxBodyBytes)})
			wantErr(t, r, 400, "VALIDATION_ERROR", `"name"`)
		})
		t.Run("one byte over 1 MiB", func(t *testing.T) {
			r := s.Do(t, apitest.Request{Method: "POST", Path: "/notebooks", Key: w.annRW, Body: body(httpx.MaxBodyBytes + 1)})
			wantErr(t, r, 400, "VALIDATION_ERROR", "1 MiB")
		})
		t.Run("5 MiB on every endpoint with a body", func(t *testing.T) {
			for _, path := range []string{"/notebooks", "/workspaces", "/workspaces/" + w.team + "/members"} {
				r := s.Do(t, apitest.Request{Method: "POST", Path: path, Key: w.annRW, Body: body(5 << 20)})
				wantErr(t, r, 400, "VALIDATION_ERROR", "1 MiB")
			}
		})
		t.Run("over 1 MiB without a declared length (chunked)", func(t *testing.T) {
			// io.MultiReader hides the length from net/http, so the body goes out chunked.
			req, err := http.NewRequest("POST", s.URL+httpx.APIBase+"/notebooks", io.MultiReader(strings.NewReader(body(2<<20))))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+w.annRW)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			if len(resp.TransferEncoding) == 0 && resp.Request.ContentLength > 0 {
				t.Fatalf("the request was not sent chunked")
			}
			got := apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
			s.Contract.Check(t, req, nil, got)
			wantErr(t, got, 400, "VALIDATION_ERROR", "1 MiB")
		})
		t.Run("authentication is checked before the body", func(t *testing.T) {
			// CONTRACT.md section 6: 401 comes before any 400 about the request's shape.
			for _, key := range []string{"", "svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB"} {
				r := s.Do(t, apitest.Request{Method: "POST", Path: "/notebooks", Key: key, Body: body(2 << 20)})
				apitest.CheckEnvelope(t, r, 401, "UNAUTHENTICATED")
			}
		})
		t.Run("scope is checked before the body", func(t *testing.T) {
			r := s.Do(t, apitest.Request{Method: "POST", Path: "/notebooks", Key: w.annRead, Body: body(2 << 20)})
			apitest.CheckEnvelope(t, r, 403, "INSUFFICIENT_SCOPE")
		})
		t.Run("the server still answers afterwards", func(t *testing.T) {
			apitest.Must(t, s.Get(t, w.annRW, "/notebooks"), http.StatusOK)
		})
	})
}

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
	t.Parallel()
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
	t.Parallel()
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

// TestCreatedHasLocation: every 201 carries Location with the created resource's path
// (CONTRACT.md section 11); where the API reads the resource at that path, GET on it answers it.
func TestCreatedHasLocation(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		dave := s.NewUser(t, "Dave Invited")
		type created struct {
			name, path string
			body       any
			want       func(r apitest.Response) string // the Location the response must carry
			readable   bool                            // GET Location answers the resource
		}
		byID := func(prefix string) func(r apitest.Response) string {
			return func(r apitest.Response) string { return "/api/v1/" + prefix + "/" + r.Str(t, "id") }
		}
		note := apitest.Must(t, s.Post(t, w.annRW, "/notes", map[string]any{"content": "n", "notebookId": w.annNB}), http.StatusCreated).Str(t, "id")
		task := apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"title": "t", "notebookId": w.annNB}), http.StatusCreated).Str(t, "id")
		for _, tc := range []created{
			{"note", "/notes", map[string]any{"content": "x", "notebookId": w.annNB}, byID("notes"), true},
			{"task", "/tasks", map[string]any{"title": "x", "notebookId": w.annNB}, byID("tasks"), true},
			{"notebook", "/notebooks", map[string]any{"name": "x"}, byID("notebooks"), true},
			{"workspace", "/workspaces", map[string]any{"name": "x"}, byID("workspaces"), false},
			{"note suggestion", "/notes/" + note + "/suggest", map[string]any{"content": "y"}, byID("suggestions"), false},
			{"task suggestion", "/tasks/" + task + "/suggest", map[string]any{"content": "y"}, byID("suggestions"), false},
			{"calendar feed", "/calendar-feeds", map[string]any{"name": "x"}, byID("calendar-feeds"), false},
			{"membership", "/workspaces/" + w.team + "/members", map[string]any{"email": dave.Email}, func(apitest.Response) string {
				return "/api/v1/workspaces/" + w.team + "/members/" + dave.ID
			}, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := apitest.Must(t, s.Post(t, w.annRW, tc.path, tc.body), http.StatusCreated)
				want := tc.want(r)
				if got := r.Header.Get("Location"); got != want {
					t.Fatalf("Location %q, want %q", got, want)
				}
				if tc.readable {
					got := apitest.Must(t, s.Get(t, w.annRW, strings.TrimPrefix(want, "/api/v1")), http.StatusOK)
					if got.Str(t, "id") != r.Str(t, "id") {
						t.Fatalf("GET %s answered %s", want, got.Body)
					}
				}
			})
		}
		// An invitation of someone who already belongs creates nothing: 200, no Location.
		r := apitest.Must(t, s.Post(t, w.annRW, "/workspaces/"+w.team+"/members", map[string]any{"email": dave.Email}), http.StatusOK)
		if loc := r.Header.Get("Location"); loc != "" {
			t.Fatalf("a 200 carries Location %q", loc)
		}
	})
}

// TestJSONDoesNotEscapeHTML: JSON bodies show <, > and & as written, not as \u003c, \u003e,
// \u0026 (CONTRACT.md section 11): Markdown is full of `>`, and a client reading curl output
// should see it. Success bodies, lists and error messages alike.
func TestJSONDoesNotEscapeHTML(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		content := "> **Decision:** ship if a < b && b > c"
		r := apitest.Must(t, s.Post(t, w.annRW, "/notes", map[string]any{"content": content, "notebookId": w.annNB}), http.StatusCreated)
		list := apitest.Must(t, s.Get(t, w.annRW, "/notes"), http.StatusOK)
		bad := s.Post(t, w.annRW, "/notes", `{"content": "x", "notebookId": "`+w.annNB+`", "<&>": 1}`)
		apitest.CheckEnvelope(t, bad, http.StatusBadRequest, "VALIDATION_ERROR")
		for name, body := range map[string][]byte{"created note": r.Body, "list": list.Body, "error": bad.Body} {
			for _, escaped := range []string{`\u003c`, `\u003e`, `\u0026`} {
				if bytes.Contains(body, []byte(escaped)) {
					t.Errorf("%s: body escapes %s: %s", name, escaped, body)
				}
			}
		}
		var note struct{ Content string }
		if err := json.Unmarshal(r.Body, &note); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(r.Body, []byte("a < b && b > c")) || !strings.HasPrefix(note.Content, "> ") {
			t.Fatalf("the content's <, > and & are not in the body as written: %s", r.Body)
		}
		if !bytes.Contains(bad.Body, []byte(`<&>`)) {
			t.Fatalf("the error message does not name the field as sent: %s", bad.Body)
		}
	})
}

// TestHeaderLimit: a request whose headers are over 64 KiB gets 431 with the error envelope and an
// X-Request-Id (not net/http's plain-text answer), on every route, before authentication; up to
// the limit a request is served.
func TestHeaderLimit(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key := s.NewKey(t, s.NewUser(t, "Hal Headers"), auth.ScopeRead)
		pad := func(n int) map[string]string { return map[string]string{"X-Pad": strings.Repeat("p", n)} }

		apitest.Must(t, s.Do(t, apitest.Request{Method: "GET", Path: "/notebooks", Key: key, Header: pad(httpx.MaxHeaderBytes - 1024)}), 200)

		for _, tc := range []struct {
			name string
			req  apitest.Request
		}{
			{"API route, valid key", apitest.Request{Method: "GET", Path: "/notebooks", Key: key}},
			{"API route, no key", apitest.Request{Method: "GET", Path: "/notebooks"}},
			{"write", apitest.Request{Method: "POST", Path: "/notebooks", Key: key, Body: map[string]any{"name": "n"}}},
			{"unknown route", apitest.Request{Method: "GET", Path: "//nowhere"}},
			{"health", apitest.Request{Method: "GET", Path: "//healthz"}},
			{"settings UI", apitest.Request{Method: "GET", Path: "//signin"}},
		} {
			for _, size := range []int{httpx.MaxHeaderBytes, 200 << 10} {
				req := tc.req
				req.Header = pad(size)
				r := s.Do(t, req)
				apitest.CheckEnvelope(t, r, http.StatusRequestHeaderFieldsTooLarge, "REQUEST_HEADERS_TOO_LARGE")
				if !uuidV4RE.MatchString(r.Header.Get("X-Request-Id")) || !strings.Contains(string(r.Body), "64 KiB") {
					t.Fatalf("%s, %d bytes: X-Request-Id %q, body %s", tc.name, size, r.Header.Get("X-Request-Id"), r.Body)
				}
			}
		}
		// Many headers count like one long one; a client's UUID request id is kept.
		many := map[string]string{"X-Request-Id": "0b6c1f3e-4a8e-4f5e-9c1d-2e3f4a5b6c7d"}
		for i := range 100 {
			many["X-Pad-"+strings.Repeat("x", i%10)+string(rune('a'+i%26))+string(rune('a'+i/26))] = strings.Repeat("p", 700)
		}
		r := s.Do(t, apitest.Request{Method: "GET", Path: "/notebooks", Key: key, Header: many})
		apitest.CheckEnvelope(t, r, http.StatusRequestHeaderFieldsTooLarge, "REQUEST_HEADERS_TOO_LARGE")
		if r.Header.Get("X-Request-Id") != many["X-Request-Id"] {
			t.Fatalf("X-Request-Id %q, want the client's", r.Header.Get("X-Request-Id"))
		}
	})
}

// TestEmptyQueryValues: a present but empty value of an enum or boolean query parameter is 400
// VALIDATION_ERROR naming the parameter, on every list (an empty value is not one of the enum's
// values, and reading it as "no filter" would hand back everything); limit likewise. An empty id
// filter or cursor is no filter, no cursor (a documented convenience for clients that fill a URL
// template with an absent value).
func TestEmptyQueryValues(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key := s.NewKey(t, s.NewUser(t, "Quinn Query"), auth.ScopeReadWrite)
		for _, tc := range []struct{ path, param string }{
			{"/audit-log?resourceType=", "resourceType"},
			{"/audit-log?resourceType=&apiKeyId=", "resourceType"},
			{"/tasks?status=", "status"},
			{"/tasks?archived=", "archived"},
			{"/notes?archived=", "archived"},
			{"/notes?limit=", "limit"},
			{"/tasks?limit=", "limit"},
			{"/audit-log?limit=", "limit"},
		} {
			wantErr(t, s.Get(t, key, tc.path), http.StatusBadRequest, "VALIDATION_ERROR", `"`+tc.param+`"`)
		}
		for _, path := range []string{
			"/audit-log?apiKeyId=", "/audit-log?cursor=", "/notes?notebookId=", "/notes?cursor=",
			"/tasks?notebookId=", "/tasks?cursor=", "/audit-log?resourceType=note", "/tasks?status=TODO",
		} {
			apitest.Must(t, s.Get(t, key, path), http.StatusOK)
		}
	})
}
