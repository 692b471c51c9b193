package items

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/platform/auth"
	"folio/platform/httpx"
	"folio/platform/paginate"
)

// ListFromGin reads the query parameters every item list takes: the page (limit, cursor), then
// archived and notebookId, in that order (the first invalid one answers).
func ListFromGin(c *gin.Context) (ListFilter, paginate.Params, error) {
	page, err := paginate.FromGin(c, false)
	if err != nil {
		return ListFilter{}, paginate.Params{}, err
	}
	archived, err := httpx.QueryBool(c, "archived", false)
	if err != nil {
		return ListFilter{}, paginate.Params{}, err
	}
	f := ListFilter{Archived: archived}
	if nb, ok := httpx.QueryString(c, "notebookId"); ok {
		f.NotebookID = &nb
	}
	return f, page, nil
}

// Write answers with status and the view converted by toResponse (which can fail: a stored
// document is rendered).
func Write[V, R any](c *gin.Context, status int, v V, toResponse func(V) (R, error)) error {
	resp, err := toResponse(v)
	if err != nil {
		return err
	}
	c.JSON(status, resp)
	return nil
}

// WritePage answers a list request with a page of views, each converted by toResponse (which can
// fail: a stored document is rendered).
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

// DeleteHandler answers DELETE on an item with {"ok": true} once remove has deleted it.
func DeleteHandler(remove func(ctx context.Context, p *auth.Principal, id string) error) gin.HandlerFunc {
	return httpx.Handle(func(c *gin.Context) error {
		if err := remove(c.Request.Context(), auth.FromGin(c), c.Param("id")); err != nil {
			return err
		}
		c.JSON(http.StatusOK, httpx.OK)
		return nil
	})
}
