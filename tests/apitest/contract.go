package apitest

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/paths"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"folio/platform/httpx"
)

// Contract holds the API to its OpenAPI document (CONTRACT.md section 10), which must itself be a
// valid OpenAPI 3.1 document (checked once per document). Server.Do, the one choke point of the
// suites' requests, passes every request and response under /api/v1 to Check.
//
// The rules:
//   - Every response is validated against the document (status, headers, body). A response the
//     document does not describe fails the test with the validator's message.
//   - A request is validated only when its response is 2xx: the suites send malformed JSON, wrong
//     types, unknown fields and oversized bodies on purpose to see the 400s, and those requests are
//     rightly outside the document. But a request the document forbids must never succeed, so a
//     2xx answer to one fails the test.
//   - A request on a path or method the document does not have must get 404 ROUTE_NOT_FOUND or 405
//     METHOD_NOT_ALLOWED (or 431 REQUEST_HEADERS_TOO_LARGE, which comes before routing): anything
//     else means the server has a route the document lacks.
//   - HEAD is the GET operation without a body: its status and headers are checked.
//   - A CORS preflight (OPTIONS with Origin and Access-Control-Request-Method) is answered by the
//     CORS layer before routing and is not an operation of the document (its description says
//     so): it must be a 204 without a body (or, with CORS off, the 404 or 405 of any unrouted
//     request).
type Contract struct {
	model *v3.Document
	mu    sync.Mutex // the validator's caches are not documented as safe for concurrent use
	full  validator.Validator
	head  validator.Validator // for HEAD: status and headers of the GET operation, no body
}

var contracts sync.Map // contractKey of the document → *Contract (one per test binary in practice)

// contractKey identifies a document by what validation reads: info.description, which states the
// server's configured rate limit (apidoc.Facts), is left out, so the servers of tests with another
// limit share one contract (each holds tens of MB of validator state: one per limit used made the
// heap of the e2e suite grow by about 50 MB).
func contractKey(t testing.TB, doc []byte) [sha256.Size]byte {
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatalf("openapi document: %v", err)
	}
	if info, ok := m["info"].(map[string]any); ok {
		delete(info, "description")
	}
	normalized, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(normalized)
}

// ContractFor returns the contract of a served document, built once per document.
func ContractFor(t testing.TB, doc []byte) *Contract {
	t.Helper()
	key := contractKey(t, doc)
	if c, ok := contracts.Load(key); ok {
		return c.(*Contract)
	}
	d, err := libopenapi.NewDocument(doc)
	if err != nil {
		t.Fatalf("openapi document: %v", err)
	}
	m, err := d.BuildV3Model()
	if err != nil {
		t.Fatalf("openapi document: %v", err)
	}
	c := &Contract{
		model: &m.Model,
		full:  validator.NewValidatorFromV3Model(&m.Model),
		head:  validator.NewValidatorFromV3Model(&m.Model, config.WithoutResponseBodyValidation()),
	}
	full, errs := validator.NewValidator(d)
	if len(errs) > 0 {
		t.Fatalf("openapi document: %v", errs)
	}
	if ok, errs := full.ValidateDocument(); !ok {
		t.Fatalf("the OpenAPI document is not a valid OpenAPI 3.1 document:%s", describe(errs))
	}
	actual, _ := contracts.LoadOrStore(key, c)
	return actual.(*Contract)
}

// Check validates one exchange: req as sent (its body in reqBody, since the client consumed it)
// and the response received. Requests outside /api/v1 (health checks, settings pages) are not the
// document's and pass.
func (c *Contract) Check(t testing.TB, req *http.Request, reqBody []byte, resp Response) {
	t.Helper()
	if !strings.HasPrefix(req.URL.Path, httpx.APIBase+"/") {
		return
	}
	where := fmt.Sprintf("%s %s → %d", req.Method, req.URL.RequestURI(), resp.Status)
	if code := errorCode(resp.Body); code == "ROUTE_NOT_FOUND" || code == "METHOD_NOT_ALLOWED" ||
		req.Method == http.MethodHead && resp.Status == http.StatusMethodNotAllowed {
		// The server found no route: the document need not know the path (GET /notebooks/, with
		// its trailing slash, looks like GET /notebooks/{id} to a path matcher). That the engine's
		// routes and the document's operations agree is TestRoutesMatchDocument's job.
		checkUnrouted(t, where, req.Method, resp)
		return
	}
	if req.Method == http.MethodOptions && req.Header.Get("Origin") != "" && req.Header.Get("Access-Control-Request-Method") != "" {
		if resp.Status != http.StatusNoContent || len(resp.Body) != 0 {
			t.Errorf("openapi: a CORS preflight must be answered 204 without a body: %s: %s", where, truncate(resp.Body))
		}
		return
	}
	lookup := req.Method
	if lookup == http.MethodHead {
		lookup = http.MethodGet
	}
	probe := clone(req, lookup, nil)
	if item, _, _ := paths.FindPath(probe, c.model, nil); item == nil || item.GetOperations().GetOrZero(strings.ToLower(lookup)) == nil {
		checkUnrouted(t, where, req.Method, resp)
		return
	}
	body := resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" && len(body) > 0 {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err == nil {
			body, err = io.ReadAll(zr)
		}
		if err != nil {
			t.Errorf("openapi: %s: gzip body: %v", where, err)
			return
		}
	}
	httpResp := &http.Response{StatusCode: resp.Status, Header: resp.Header.Clone(), Body: io.NopCloser(bytes.NewReader(body))}
	httpResp.Header.Del("Content-Encoding")
	httpResp.Request = probe
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.full
	if req.Method == http.MethodHead {
		v = c.head
	}
	if ok, errs := v.ValidateHttpResponse(clone(req, lookup, reqBody), httpResp); !ok {
		t.Errorf("openapi: the response does not match the document: %s: %s\n%s", where, describe(errs), truncate(body))
	}
	if resp.Status >= 200 && resp.Status < 300 && req.Method != http.MethodHead {
		if ok, errs := c.full.ValidateHttpRequest(clone(req, req.Method, reqBody)); !ok && !onlyLongIntegers(errs) {
			t.Errorf("openapi: a request the document forbids succeeded: %s: %s\nrequest body: %s", where, describe(errs), truncate(reqBody))
		}
	}
}

// checkUnrouted: a request the document has no operation for must be answered as one.
func checkUnrouted(t testing.TB, where, method string, resp Response) {
	t.Helper()
	code := errorCode(resp.Body)
	if method == http.MethodHead && len(resp.Body) == 0 {
		// HEAD has no body to carry the code: the status says it.
		code = map[int]string{http.StatusNotFound: "ROUTE_NOT_FOUND", http.StatusMethodNotAllowed: "METHOD_NOT_ALLOWED"}[resp.Status]
	}
	switch {
	case resp.Status == http.StatusNotFound && code == "ROUTE_NOT_FOUND",
		resp.Status == http.StatusMethodNotAllowed && code == "METHOD_NOT_ALLOWED",
		resp.Status == http.StatusRequestHeaderFieldsTooLarge:
		return
	}
	t.Errorf("openapi: the document has no operation for %s, yet the server answered it: %s", where, truncate(resp.Body))
}

func errorCode(body []byte) string {
	var env struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(body, &env)
	return env.Error.Code
}

// clone copies req with another method and a fresh body (the validator reads it).
func clone(req *http.Request, method string, body []byte) *http.Request {
	r := req.Clone(req.Context())
	r.Method = method
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = nil
	return r
}

// onlyLongIntegers reports whether every error is the validator failing to parse an integer query
// value longer than 64 bits. JSON Schema integers have no size; the server reads `limit` as any
// run of digits (and clamps it to 100, CONTRACT.md section 2), and the suites send such values.
func onlyLongIntegers(errs []*verrors.ValidationError) bool {
	for _, e := range errs {
		if !strings.Contains(e.Message, "is not a valid integer") || !longDigits.MatchString(e.Reason) {
			return false
		}
	}
	return len(errs) > 0
}

var longDigits = regexp.MustCompile(`value '[0-9]{19,}' is not a valid integer`)

func describe(errs []*verrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString("\n  - " + e.Message)
		if e.Reason != "" {
			b.WriteString(": " + e.Reason)
		}
		for _, se := range e.SchemaValidationErrors {
			b.WriteString("\n      " + se.FieldPath + " (" + se.KeywordLocation + "): " + se.Reason)
		}
	}
	return b.String()
}

func truncate(b []byte) string {
	const limit = 2000
	if len(b) > limit {
		return string(b[:limit]) + "…"
	}
	return string(b)
}
