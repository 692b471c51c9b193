package items

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"folio/modules/search"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/etag"
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
	if q, ok := httpx.QueryString(c, "q"); ok {
		parsed, err := search.Parse(q)
		if err != nil {
			return ListFilter{}, paginate.Params{}, err
		}
		f.Text = &parsed
	}
	if f.Tags, err = names(c, "tag"); err != nil {
		return ListFilter{}, paginate.Params{}, err
	}
	if f.People, err = names(c, "person"); err != nil {
		return ListFilter{}, paginate.Params{}, err
	}
	if f.TargetFrom, f.TargetTo, err = DateRange(c, "targetFrom", "targetTo"); err != nil {
		return ListFilter{}, paginate.Params{}, err
	}
	return f, page, nil
}

// maxNames bounds the repeatable tag and person parameters.
const maxNames = 20

// names reads a repeatable name parameter (tag, person): empty values are ignored, one leading
// # or @ is dropped (tag=#q4 is tag=q4), at most maxNames.
func names(c *gin.Context, param string) ([]string, error) {
	var out []string
	for _, v := range c.QueryArray(param) {
		v = strings.TrimPrefix(strings.TrimPrefix(v, "#"), "@")
		if v == "" {
			continue
		}
		if utf8.RuneCountInString(v) > 200 {
			return nil, apierr.Validation("query parameter %q must be at most 200 characters", param)
		}
		out = append(out, v)
	}
	if len(out) > maxNames {
		return nil, apierr.Validation("query parameter %q may be given at most %d times", param, maxNames)
	}
	return out, nil
}

// DateRange reads an inclusive date range from two query parameters: from as the first instant,
// to as the end of its day for a date (YYYY-MM-DD) or the instant itself for a date-time; it
// returns to made exclusive (the instant after the range).
func DateRange(c *gin.Context, fromParam, toParam string) (from, to *time.Time, err error) {
	if v, ok := httpx.QueryString(c, fromParam); ok {
		t, err := httpx.ParseDate(fromParam, v)
		if err != nil {
			return nil, nil, err
		}
		from = &t
	}
	if v, ok := httpx.QueryString(c, toParam); ok {
		t, err := httpx.ParseDate(toParam, v)
		if err != nil {
			return nil, nil, err
		}
		if len(v) == len(time.DateOnly) {
			t = t.Add(24 * time.Hour)
		} else {
			t = t.Add(time.Millisecond)
		}
		to = &t
	}
	return from, to, nil
}

// DeleteHandler answers DELETE on an item with {"ok": true} once remove has deleted it; the
// request's If-Match goes to remove, which checks it under the row's lock.
func DeleteHandler(remove func(ctx context.Context, p *auth.Principal, id string, ifMatch etag.IfMatch) error) gin.HandlerFunc {
	return httpx.Handle(func(c *gin.Context) error {
		if err := remove(c.Request.Context(), auth.FromGin(c), c.Param("id"), httpx.IfMatch(c)); err != nil {
			return err
		}
		httpx.JSON(c, http.StatusOK, httpx.OK)
		return nil
	})
}
