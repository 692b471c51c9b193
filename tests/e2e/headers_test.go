package e2e

import (
	"net/http"
	"strings"
	"testing"

	"folio/platform/auth"
	"folio/platform/httpx"
	"folio/tests/apitest"
)

// TestHeaderLimit: a request whose headers are over 64 KiB gets 431 with the error envelope and an
// X-Request-Id (not net/http's plain-text answer), on every route, before authentication; up to
// the limit a request is served.
func TestHeaderLimit(t *testing.T) {
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
