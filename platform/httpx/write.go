package httpx

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/platform/paginate"
)

// Write answers with status and v converted by toResponse, which can fail (a stored document is
// rendered); wrap a conversion that cannot fail with Infallible.
func Write[V, R any](c *gin.Context, status int, v V, toResponse func(V) (R, error)) error {
	resp, err := toResponse(v)
	if err != nil {
		return err
	}
	c.JSON(status, resp)
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
	c.JSON(http.StatusOK, paginate.Page[R]{Data: data, NextCursor: next})
	return nil
}

// Infallible adapts a conversion that cannot fail to Write and WritePage.
func Infallible[V, R any](toResponse func(V) R) func(V) (R, error) {
	return func(v V) (R, error) { return toResponse(v), nil }
}
