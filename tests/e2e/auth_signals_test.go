package e2e

import (
	"net/http"
	"testing"

	"folio/platform/config"
	"folio/tests/apitest"
)

// TestWWWAuthenticate: every 401, on /api/v1 and /mcp alike, carries RFC 9110's challenge,
// with error="invalid_token" when a credential was sent and refused (CONTRACT.md section 25).
func TestWWWAuthenticate(t *testing.T) {
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
		// Other refusals carry no challenge.
		key := s.NewKey(t, s.NewUser(t, "Reader Only"), 1)
		r := s.Post(t, key, "/notebooks", map[string]any{"name": "x"})
		apitest.CheckEnvelope(t, r, http.StatusForbidden, "INSUFFICIENT_SCOPE")
		if got := r.Header.Get("WWW-Authenticate"); got != "" {
			t.Errorf("a 403 carries WWW-Authenticate %q", got)
		}
	})
}

// TestMCPOrigin: /mcp accepts no Origin, a loopback origin, its own origin and the configured CORS
// origins, and answers any other Origin ("null" included) with 403 before authentication.
func TestMCPOrigin(t *testing.T) {
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
		// Before authentication: a foreign page learns nothing about keys.
		r := rawMCP(t, s, http.MethodPost, map[string]string{"Origin": "http://evil.example.com"})
		apitest.CheckEnvelope(t, r, http.StatusForbidden, "ORIGIN_NOT_ALLOWED")
	}, apitest.Option(func(c *config.Config) { c.CORSOrigins = []string{"https://app.example.com"} }))
}
