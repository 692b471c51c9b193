package httpx

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"

	"folio/platform/etag"
	"folio/platform/paginate"
)

// JSON writes v as the JSON body of the response. It does not escape <, > and & as \u003c...
// (CONTRACT.md section 11): Markdown is full of `>`, and a client reading curl output should see
// it as written. Every JSON body of the API is written here.
func JSON(c *gin.Context, status int, v any) {
	b := jsonBuffers.Get().(*bytes.Buffer)
	defer putJSONBuffer(b)
	body, err := encode(b, v)
	if err != nil {
		WriteError(c, err)
		return
	}
	// Every writer under c copies what it is given (net/http, gzhttp, the idempotency buffer), so
	// the buffer can go back to the pool when Data returns.
	c.Data(status, "application/json; charset=utf-8", body)
}

// Marshal is v's JSON exactly as JSON writes it, for a body that travels inside another protocol
// (the error envelope an MCP tool error carries as its text).
func Marshal(v any) ([]byte, error) { return encode(new(bytes.Buffer), v) }

// encode writes v's JSON to b without escaping <, > and &, and returns it without the newline
// Encode ends the value with: the value alone, as json.Marshal writes it.
func encode(b *bytes.Buffer, v any) ([]byte, error) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// jsonBuffers are JSON's encoding buffers, reused: a fresh one grew by doubling to the body's size
// on every response, the largest share of a single note's allocations in folio's own code.
var jsonBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// jsonBufferKeepMax is the largest buffer kept for reuse: a rare large body (a page of long notes,
// an export's index) is left to the collector rather than held by the pool.
const jsonBufferKeepMax = 64 << 10

func putJSONBuffer(b *bytes.Buffer) {
	if b.Cap() > jsonBufferKeepMax {
		return
	}
	b.Reset()
	jsonBuffers.Put(b)
}

// Location sets the Location header of a 201 to the created resource's path under the API base:
// Location(c, "notes", id) gives /api/v1/notes/<id> (CONTRACT.md section 11).
func Location(c *gin.Context, segments ...string) {
	c.Header("Location", APIBase+"/"+strings.Join(segments, "/"))
}

// Write answers with status and v converted by toResponse, which can fail (a stored document is
// rendered); wrap a conversion that cannot fail with Infallible.
func Write[V, R any](c *gin.Context, status int, v V, toResponse func(V) (R, error)) error {
	resp, err := toResponse(v)
	if err != nil {
		return err
	}
	JSON(c, status, resp)
	return nil
}

// WritePage answers a list request with a page of views, each converted by toResponse:
// {"data": [...], "nextCursor": ...}. Every list of the API is written here.
func WritePage[V, R any](c *gin.Context, views []V, next *string, toResponse func(V) (R, error)) error {
	page, err := paginate.Convert(views, next, toResponse)
	if err != nil {
		return err
	}
	JSON(c, http.StatusOK, page)
	return nil
}

// Infallible adapts a conversion that cannot fail to Write and WritePage.
func Infallible[V, R any](toResponse func(V) R) func(V) (R, error) {
	return func(v V) (R, error) { return toResponse(v), nil }
}

// WriteTagged answers like Write, with the resource's ETag header; a GET or HEAD whose
// If-None-Match matches the ETag gets 304 Not Modified without a body.
func WriteTagged[V, R any](c *gin.Context, status int, tag string, v V, toResponse func(V) (R, error)) error {
	if NotModified(c, tag) {
		return nil
	}
	return Write(c, status, v, toResponse)
}

// NotModified sets the ETag header to tag and reports whether the request is a GET or HEAD whose
// If-None-Match matches it; then the status is 304 and the caller writes no body.
func NotModified(c *gin.Context, tag string) bool {
	c.Header("ETag", tag)
	if m := c.Request.Method; (m == http.MethodGet || m == http.MethodHead) && etag.NoneMatch(c.GetHeader("If-None-Match"), tag) {
		c.Status(http.StatusNotModified)
		return true
	}
	return false
}

// IfMatch returns the request's If-Match header, parsed.
func IfMatch(c *gin.Context) etag.IfMatch { return etag.ParseIfMatch(c.GetHeader("If-Match")) }
