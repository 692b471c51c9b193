package auth

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/platform/httpx"
	"folio/platform/paginate"
)

// Lister returns one page of a list as the principal sees it: the rows and the next cursor.
type Lister[V any] func(ctx context.Context, p *Principal, page paginate.Params) ([]V, *string, error)

// WriteList answers a list request: the page from the query (limit, cursor; numericCursor for
// lists of integer ids), the caller's rows from list, each written by toResponse through
// httpx.WritePage. It lives here, not in httpx, because it needs the principal and this package
// already imports httpx.
func WriteList[V, R any](c *gin.Context, numericCursor bool, list Lister[V], toResponse func(V) (R, error)) error {
	page, err := paginate.Answer(paginate.QueryFromGin(c), numericCursor, func(page paginate.Params) ([]V, *string, error) {
		return list(c.Request.Context(), FromGin(c), page)
	}, toResponse)
	if err != nil {
		return err
	}
	httpx.JSON(c, http.StatusOK, page)
	return nil
}

// ListHandler is WriteList as a route's handler, for a list that takes no other parameter.
func ListHandler[V, R any](numericCursor bool, list Lister[V], toResponse func(V) (R, error)) gin.HandlerFunc {
	return httpx.Handle(func(c *gin.Context) error { return WriteList(c, numericCursor, list, toResponse) })
}

// DeleteHandler answers a DELETE of the resource named by the :id path segment with {"ok": true}
// once remove has deleted it for the principal (its errors, a 404 of its own, answer otherwise).
func DeleteHandler(remove func(ctx context.Context, p *Principal, id string) error) gin.HandlerFunc {
	return httpx.Handle(func(c *gin.Context) error {
		if err := remove(c.Request.Context(), FromGin(c), c.Param("id")); err != nil {
			return err
		}
		httpx.JSON(c, http.StatusOK, httpx.OK)
		return nil
	})
}
