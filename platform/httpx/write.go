package httpx

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"folio/platform/paginate"
)

// JSON writes v as the JSON body of the response. It does not escape <, > and & as \u003c...
// (CONTRACT.md section 11): Markdown is full of `>`, and a client reading curl output should see
// it as written. Every JSON body of the API is written here.
func JSON(c *gin.Context, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		WriteError(c, err)
		return
	}
	// Encode ends the value with a newline; the body is the value alone, as json.Marshal writes it.
	c.Data(status, "application/json; charset=utf-8", bytes.TrimSuffix(b.Bytes(), []byte("\n")))
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
	data := make([]R, len(views))
	for i, v := range views {
		var err error
		if data[i], err = toResponse(v); err != nil {
			return err
		}
	}
	JSON(c, http.StatusOK, paginate.Page[R]{Data: data, NextCursor: next})
	return nil
}

// Infallible adapts a conversion that cannot fail to Write and WritePage.
func Infallible[V, R any](toResponse func(V) R) func(V) (R, error) {
	return func(v V) (R, error) { return toResponse(v), nil }
}
