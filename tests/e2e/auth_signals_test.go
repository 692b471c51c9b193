package e2e

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"folio/platform/config"
	"folio/tests/apitest"
)

// TestWWWAuthenticate: every 401, on /api/v1 and /mcp alike, carries RFC 9110's challenge,
// with error="invalid_token" when a credential was sent and refused (CONTRACT.md section 25).
func TestWWWAuthenticate(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		const plain, invalid = `Bearer realm="folio"`, `Bearer realm="folio", error="invalid_token"`
		bad := map[string]string{"Authorization": "Bearer svc_live_AAAAAAAA_" + "xxxxxxxxxxxxxxxxxxxxxxxx"}
		for _, tc := range []struct {
			name string
			r    apitest.Response
			want string
		}{
			{"API, no credential", s.Do(t, apitest.Request{Method: "GET", Path: "/notes"}), plain},
			{"API, an unknown key", s.Do(t, apitest.Request{Method: "GET", Path: "/notes", Header: bad}), invalid},
			{"API, a malformed header", s.Do(t, apitest.Request{Method: "GET", Path: "/notes", Header: map[string]string{"Authorization": "Basic eDp5"}}), invalid},
			{"API, a stale session cookie", s.Do(t, apitest.Request{Method: "GET", Path: "/notes", Header: map[string]string{"Cookie": "folio_session=nothing"}}), invalid},
			{"MCP, no credential", rawMCP(t, s, http.MethodPost, nil), plain},
			{"MCP, an unknown key", rawMCP(t, s, http.MethodPost, bad), invalid},
		} {
			apitest.CheckEnvelope(t, tc.r, http.StatusUnauthorized, "UNAUTHENTICATED")
			if got := tc.r.Header.Get("WWW-Authenticate"); got != tc.want {
				t.Errorf("%s: WWW-Authenticate %q, want %q", tc.name, got, tc.want)
			}
		}
		// Every operation of the document that needs a credential, and /mcp, with none and with a
		// refused one; the public ones (the document itself) never challenge.
		var doc struct {
			Paths map[string]map[string]json.RawMessage `json:"paths"`
		}
		if err := json.Unmarshal(apitest.Must(t, s.Get(t, "", "/openapi.json"), http.StatusOK).Body, &doc); err != nil {
			t.Fatal(err)
		}
		param := regexp.MustCompile(`\{[^}]+\}`)
		checked := 0
		for path, ops := range doc.Paths {
			for method, raw := range ops {
				var op struct {
					Security *[]any `json:"security"`
				}
				if !slices.Contains([]string{"get", "post", "patch", "put", "delete"}, method) || json.Unmarshal(raw, &op) != nil {
					continue
				}
				req := apitest.Request{Method: strings.ToUpper(method), Path: param.ReplaceAllString(path, "x1")}
				if method != "get" && method != "delete" {
					req.Body = map[string]any{}
				}
				public := op.Security != nil && len(*op.Security) == 0
				for _, h := range []map[string]string{nil, bad} {
					req.Header = h
					r := s.Do(t, req)
					got := r.Header.Get("WWW-Authenticate")
					switch {
					case public && (r.Status == http.StatusUnauthorized || got != ""):
						t.Errorf("public %s %s: %d, WWW-Authenticate %q", req.Method, path, r.Status, got)
					case !public && (r.Status != http.StatusUnauthorized || got != map[bool]string{true: plain, false: invalid}[h == nil]):
						t.Errorf("%s %s (credential %v): %d, WWW-Authenticate %q", req.Method, path, h != nil, r.Status, got)
					}
					checked++
				}
			}
		}
		// Beside the API: the reference, the document, health and the page assets are public and
		// never challenge, even with a refused key; the settings pages redirect to sign-in.
		for _, path := range []string{"//docs", "/openapi.json", "//healthz", "//readyz", "//settings/keys"} {
			for _, h := range []map[string]string{nil, bad} {
				r := s.Do(t, apitest.Request{Method: "GET", Path: path, Header: h})
				if r.Status == http.StatusUnauthorized || r.Header.Get("WWW-Authenticate") != "" {
					t.Errorf("GET %s (credential %v): %d, WWW-Authenticate %q", path, h != nil, r.Status, r.Header.Get("WWW-Authenticate"))
				}
				checked++
			}
		}
		if checked < 60 {
			t.Errorf("only %d requests checked: the document was not read", checked)
		}
		// Other refusals carry no challenge.
		key := s.NewKey(t, s.NewUser(t, "Reader Only"), 1)
		r := s.Post(t, key, "/notebooks", map[string]any{"name": "x"})
		apitest.CheckEnvelope(t, r, http.StatusForbidden, "INSUFFICIENT_SCOPE")
		if got := r.Header.Get("WWW-Authenticate"); got != "" {
			t.Errorf("a 403 carries WWW-Authenticate %q", got)
		}
	}, apitest.Option(func(c *config.Config) { c.AuthFailureLimit = 1000 }))
}

// TestMCPOrigin: /mcp accepts no Origin, a loopback origin, its own origin and the configured CORS
// origins, and answers any other Origin ("null" included) with 403 before authentication.
func TestMCPOrigin(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key := s.NewKey(t, s.NewUser(t, "Origin Checker"), 3)
		auth := func(origin string) map[string]string {
			h := map[string]string{"Authorization": "Bearer " + key}
			if origin != "" {
				h["Origin"] = origin
			}
			return h
		}
		for _, origin := range []string{"", "http://localhost:6274", "http://127.0.0.1:3000", "http://[::1]", s.URL, "https://app.example.com"} {
			if r := rawMCP(t, s, http.MethodPost, auth(origin)); r.Status != http.StatusOK {
				t.Errorf("Origin %q: %d %s, want 200", origin, r.Status, r.Body)
			}
		}
		for _, origin := range []string{"http://evil.example.com", "null", "https://localhost.evil.example", "file://", "http://evil.example.com/path"} {
			r := rawMCP(t, s, http.MethodPost, auth(origin))
			apitest.CheckEnvelope(t, r, http.StatusForbidden, "ORIGIN_NOT_ALLOWED")
		}
		// DNS rebinding: a page of evil.example.com whose name now resolves to folio sends that
		// name as Host and Origin alike; a name is never the server's own origin by the Host alone.
		rebound := auth("http://evil.example.com:8080")
		rebound["Host"] = "evil.example.com:8080"
		apitest.CheckEnvelope(t, rawMCP(t, s, http.MethodPost, rebound), http.StatusForbidden, "ORIGIN_NOT_ALLOWED")
		// An address cannot be rebound: a page served from the server's own address passes.
		own := auth("http://192.0.2.10:8080")
		own["Host"] = "192.0.2.10:8080"
		if r := rawMCP(t, s, http.MethodPost, own); r.Status != http.StatusOK {
			t.Errorf("own address origin: %d %s", r.Status, r.Body)
		}
		// Before authentication: a foreign page learns nothing about keys.
		r := rawMCP(t, s, http.MethodPost, map[string]string{"Origin": "http://evil.example.com"})
		apitest.CheckEnvelope(t, r, http.StatusForbidden, "ORIGIN_NOT_ALLOWED")
	}, apitest.Option(func(c *config.Config) { c.CORSOrigins = []string{"https://app.example.com"} }))
}
