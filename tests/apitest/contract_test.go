package apitest_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/fx"

	"folio/app"
	"folio/platform/apidoc"
	"folio/platform/config"
	"folio/tests/apitest"
)

// recorder is a testing.TB that keeps what Check reports instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func contract(t *testing.T) *apitest.Contract {
	c := config.Default()
	c.SQLitePath = filepath.Join(t.TempDir(), "folio.db")
	var doc *apidoc.Document
	if err := app.New(fx.Replace(c), fx.Populate(&doc)).Err(); err != nil {
		t.Fatal(err)
	}
	return apitest.ContractFor(t, doc.JSON)
}

const (
	id        = "ckq9x2v0a0000pl8f3r2b7h1"
	requestID = "6f1c1b2e-4a57-4f0e-9d43-0c1f3e6a2b10"
	notebook  = `{"id":"` + id + `","name":"n","color":"gray","workspaceId":null,"createdAt":"2026-11-22T10:31:07.000Z","updatedAt":"2026-11-22T10:31:07.000Z"}`
)

func headers(extra ...string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {requestID},
		"X-Ratelimit-Limit": {"100"}, "X-Ratelimit-Remaining": {"99"}, "X-Ratelimit-Reset": {"1795473057"},
		"Ratelimit": {`"default";r=99;t=60`}, "Ratelimit-Policy": {`"default";q=100;w=60`}}
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

// TestContractBites: the check fails what the document does not describe and lets through what
// the suites send on purpose.
func TestContractBites(t *testing.T) {
	c := contract(t)
	envelope := func(code string) string {
		return `{"error":{"code":"` + code + `","message":"m","requestId":"` + requestID + `"}}`
	}
	for _, tc := range []struct {
		name         string
		method, path string
		body         string
		resp         apitest.Response
		want         string // "" when the exchange must pass, else a piece of the report
	}{
		{"a documented response", "POST", "/api/v1/notebooks", `{"name":"n"}`,
			apitest.Response{Status: 201, Header: headers("Location", "/api/v1/notebooks/"+id, "ETag", `"v1"`), Body: []byte(notebook)}, ""},
		{"a malformed RateLimit header", "GET", "/api/v1/notebooks/" + id, "",
			apitest.Response{Status: 200, Header: headers("ETag", `"v1"`, "RateLimit", "99"), Body: []byte(notebook)}, "header 'ratelimit' failed to validate"},
		{"a field the document does not have", "GET", "/api/v1/notebooks/" + id, "",
			apitest.Response{Status: 200, Header: headers("ETag", `"v1"`), Body: []byte(strings.Replace(notebook, `"color"`, `"colour"`, 1))}, "does not match the document"},
		{"a 201 without Location", "POST", "/api/v1/notebooks", `{"name":"n"}`,
			apitest.Response{Status: 201, Header: headers("ETag", `"v1"`), Body: []byte(notebook)}, "Location"},
		{"a 200 without its ETag", "GET", "/api/v1/notebooks/" + id, "",
			apitest.Response{Status: 200, Header: headers(), Body: []byte(notebook)}, "ETag"},
		{"a 304 without a body", "GET", "/api/v1/notebooks/" + id, "",
			apitest.Response{Status: 304, Header: headers("ETag", `"v1"`)}, ""},
		{"a status the operation does not have", "GET", "/api/v1/notebooks/" + id, "",
			apitest.Response{Status: 409, Header: headers(), Body: []byte(envelope("SUGGESTION_ALREADY_RESOLVED"))}, "does not match the document"},
		{"an error code the operation does not have", "GET", "/api/v1/notebooks/" + id, "",
			apitest.Response{Status: 404, Header: headers(), Body: []byte(envelope("NOTE_NOT_FOUND"))}, "does not match the document"},
		{"a documented error code", "GET", "/api/v1/notebooks/" + id, "",
			apitest.Response{Status: 404, Header: headers(), Body: []byte(envelope("NOTEBOOK_NOT_FOUND"))}, ""},
		{"an invalid request refused", "POST", "/api/v1/notebooks", `{"name": 5, "extra": true}`,
			apitest.Response{Status: 400, Header: headers(), Body: []byte(envelope("VALIDATION_ERROR"))}, ""},
		{"an invalid request accepted", "POST", "/api/v1/notebooks", `{"name":"n","extra":true}`,
			apitest.Response{Status: 201, Header: headers("Location", "/api/v1/notebooks/"+id), Body: []byte(notebook)}, "a request the document forbids succeeded"},
		{"HEAD as its GET, without a body", "HEAD", "/api/v1/notebooks/" + id, "",
			apitest.Response{Status: 200, Header: headers("ETag", `"v1"`)}, ""},
		{"an unknown route answered as one", "GET", "/api/v1/nowhere", "",
			apitest.Response{Status: 404, Header: headers(), Body: []byte(envelope("ROUTE_NOT_FOUND"))}, ""},
		{"an unknown route served", "GET", "/api/v1/nowhere", "",
			apitest.Response{Status: 200, Header: headers(), Body: []byte(`{}`)}, "has no operation"},
		{"outside the API", "GET", "/healthz", "",
			apitest.Response{Status: 200, Header: http.Header{}, Body: []byte(`{"status":"ok"}`)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body []byte
			if tc.body != "" {
				body = []byte(tc.body)
			}
			req, err := http.NewRequest(tc.method, "http://127.0.0.1:1"+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB")
			if body != nil {
				req.Header.Set("Content-Type", "application/json")
			}
			r := &recorder{TB: t}
			c.Check(r, req, body, tc.resp)
			report := strings.Join(r.errs, "\n")
			switch {
			case tc.want == "" && report != "":
				t.Fatalf("the check failed a valid exchange:\n%s", report)
			case tc.want != "" && !strings.Contains(report, tc.want):
				t.Fatalf("the check did not report %q; got %q", tc.want, report)
			}
		})
	}
}
