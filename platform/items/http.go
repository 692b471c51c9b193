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

// DeleteHandler answers DELETE on an item with {"ok": true} once remove has deleted it.
func DeleteHandler(remove func(ctx context.Context, p *auth.Principal, id string) error) gin.HandlerFunc {
	return httpx.Handle(func(c *gin.Context) error {
		if err := remove(c.Request.Context(), auth.FromGin(c), c.Param("id")); err != nil {
			return err
		}
		httpx.JSON(c, http.StatusOK, httpx.OK)
		return nil
	})
}
