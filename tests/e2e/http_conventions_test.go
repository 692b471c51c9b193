package e2e

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"folio/platform/httpx"
	"folio/platform/ids"
	"folio/tests/apitest"
)

// Helpers shared by the suites of http_test.go, notebooks_test.go, workspaces_test.go,
// audit_test.go and pagination_test.go.

var (
	// wireTimeRE is the only timestamp form the API emits: UTC with milliseconds.
	wireTimeRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)
	// uuidRE is a UUID in its canonical lower-case form.
	uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	// uuidV4RE is a random (version 4, RFC 4122 variant) UUID.
	uuidV4RE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
)

// wantErr asserts the envelope, status and code of an error response and that its message
// mentions every one of mentions (the field or parameter at fault).
func wantErr(t testing.TB, r apitest.Response, status int, code string, mentions ...string) {
	t.Helper()
	apitest.CheckEnvelope(t, r, status, code)
	msg, _ := r.JSON(t)["error"].(map[string]any)["message"].(string)
	for _, m := range mentions {
		if !strings.Contains(msg, m) {
			t.Fatalf("message %q does not mention %q", msg, m)
		}
	}
}

// race sends n requests at once (send(i) sends the i-th and returns its status) and returns how
// many got the status won; a status other than won and lost is an error naming what was raced.
func race(t *testing.T, what string, n int, send func(i int) int, won, lost int) int {
	t.Helper()
	statuses := make(chan int, n)
	for i := range n {
		go func() { statuses <- send(i) }()
	}
	wins := 0
	for range n {
		switch st := <-statuses; st {
		case won:
			wins++
		case lost:
		default:
			t.Errorf("concurrent %s answered %d", what, st)
		}
	}
	return wins
}

// fieldNames returns the sorted keys of a JSON object.
func fieldNames(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// wantFields asserts that a JSON object has exactly these fields.
func wantFields(t testing.TB, m map[string]any, want ...string) {
	t.Helper()
	want = slices.Clone(want)
	sort.Strings(want)
	if got := fieldNames(m); !slices.Equal(got, want) {
		t.Fatalf("fields %v, want exactly %v: %v", got, want, m)
	}
}

// itemIDs returns the "id" of every item, as strings (integer ids are formatted without decimals).
func itemIDs(items []map[string]any) []string {
	out := make([]string, len(items))
	for i, it := range items {
		switch v := it["id"].(type) {
		case string:
			out[i] = v
		case float64:
			out[i] = strconv.FormatFloat(v, 'f', -1, 64)
		case json.Number:
			out[i] = v.String()
		}
	}
	return out
}

// listIDs fetches one list page and returns its ids.
func listIDs(t testing.TB, s *apitest.Server, key, path string) []string {
	t.Helper()
	return itemIDs(apitest.Must(t, s.Get(t, key, path), http.StatusOK).Data(t))
}

// withQuery appends a query string to a path.
func withQuery(path, query string) string {
	if query == "" {
		return path
	}
	if strings.Contains(path, "?") {
		return path + "&" + query
	}
	return path + "?" + query
}

// nextCursor returns the page's nextCursor; ok is false when it is null. It fails the test when the
// field is absent or neither a string nor null.
func nextCursor(t testing.TB, r apitest.Response) (cursor string, ok bool) {
	t.Helper()
	body := r.JSON(t)
	v, present := body["nextCursor"]
	if !present {
		t.Fatalf("no nextCursor field: %s", r.Body)
	}
	if v == nil {
		return "", false
	}
	c, isString := v.(string)
	if !isString || c == "" {
		t.Fatalf("nextCursor %#v is not a non-empty string: %s", v, r.Body)
	}
	return c, true
}

// walk follows nextCursor from the first page to the last and returns every item in order. It
// checks that each page but the last is full (limit, clamped to 100) and that nextCursor is the id
// of the page's last item.
func walk(t testing.TB, s *apitest.Server, key, path string, limit int) []map[string]any {
	t.Helper()
	pageSize := min(limit, 100)
	var all []map[string]any
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatalf("more than 1000 pages: the cursor does not advance")
		}
		q := "limit=" + strconv.Itoa(limit)
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		r := apitest.Must(t, s.Get(t, key, withQuery(path, q)), http.StatusOK)
		data := r.Data(t)
		next, more := nextCursor(t, r)
		all = append(all, data...)
		if !more {
			if len(data) > pageSize {
				t.Fatalf("last page has %d items, page size %d", len(data), pageSize)
			}
			return all
		}
		if len(data) != pageSize {
			t.Fatalf("page %d has %d items with a nextCursor, want a full page of %d", pages, len(data), pageSize)
		}
		if last := itemIDs(data[len(data)-1:])[0]; last != next {
			t.Fatalf("nextCursor %q is not the id of the page's last item %q", next, last)
		}
		cursor = next
	}
}

// TestRequestID checks X-Request-Id on every kind of response and the treatment of a client's id.
func TestRequestID(t *testing.T) {
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
func TestRoutingErrors(t *testing.T) {
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
			{"GET", "//", 404, "ROUTE_NOT_FOUND", nil},
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

// TestHealth checks that the health endpoints answer without authentication.
func TestHealth(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		for _, tc := range []struct {
			path, status string
			header       map[string]string
		}{
			{"//healthz", "ok", nil},
			{"//readyz", "ready", nil},
			{"//healthz", "ok", map[string]string{"Authorization": "Bearer garbage"}},
			{"//readyz", "ready", map[string]string{"Authorization": "Bearer garbage"}},
		} {
			r := apitest.Must(t, s.Do(t, apitest.Request{Method: "GET", Path: tc.path, Header: tc.header}), http.StatusOK)
			if got := r.Str(t, "status"); got != tc.status {
				t.Fatalf("%s: status field %q, want %q", tc.path, got, tc.status)
			}
			if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("%s: Content-Type %q", tc.path, r.Header.Get("Content-Type"))
			}
		}
	})
}

// TestRequestBodies checks the strict JSON binding on every endpoint that takes a body: each bad
// body is 400 with the documented code and a message naming the field or the problem.
func TestRequestBodies(t *testing.T) {
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
