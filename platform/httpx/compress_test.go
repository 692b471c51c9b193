package httpx_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"folio/platform/httpx"
)

// TestCompressKeepsETag: a compressed response keeps the handler's strong ETag as it is (no
// -gzip suffix, not weakened), so the ETag a gzip-accepting client got works in its next If-Match;
// an uncompressed one keeps it too. See httpx.Compress for why.
func TestCompressKeepsETag(t *testing.T) {
	body := strings.Repeat("x", httpx.CompressMinSize)
	h, err := httpx.Compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1-abc"`)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body[:len(body)-len(r.URL.Query().Get("shorter"))]))
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query, accept, encoding string
	}{
		{"", "gzip", "gzip"},
		{"?shorter=1", "gzip", ""}, // 1023 bytes
		{"", "", ""},
		{"", "zstd", ""},
	} {
		req := httptest.NewRequest(http.MethodGet, "/"+tc.query, nil)
		if tc.accept != "" {
			req.Header.Set("Accept-Encoding", tc.accept)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got := rec.Header().Get("Content-Encoding"); got != tc.encoding {
			t.Fatalf("%q, Accept-Encoding %q: Content-Encoding %q, want %q", tc.query, tc.accept, got, tc.encoding)
		}
		if got := rec.Header().Get("ETag"); got != `"v1-abc"` {
			t.Fatalf("%q, Accept-Encoding %q: ETag %q, want it unchanged", tc.query, tc.accept, got)
		}
	}
}
