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

// ListQuery is the query every item list takes, as the client sent it, before it is read: GET
// /notes and GET /tasks take it from the URL (ListQueryFromGin), the MCP server from a tool's
// arguments. Parse is its one meaning, so that every front end gives the same answer to the
// same question.
type ListQuery struct {
	paginate.Query          // limit, cursor
	Archived       *string  // "true" or "false"; nil: false
	NotebookID     string   // "": every notebook the caller can see
	Q              string   // words to find; "": no text search
	Tags           []string // tag (repeatable): names, with or without their # or @
	People         []string // person (repeatable): likewise
	TargetFrom     string   // a date or date-time; "": no bound
	TargetTo       string
}

// ListQueryFromGin reads an item list's query parameters (a parameter given empty is absent, but
// for limit and archived, where it is an error).
func ListQueryFromGin(c *gin.Context) ListQuery {
	q := ListQuery{Query: paginate.QueryFromGin(c), Archived: httpx.QueryValue(c, "archived"), Tags: c.QueryArray("tag"), People: c.QueryArray("person")}
	q.NotebookID, _ = httpx.QueryString(c, "notebookId")
	q.Q, _ = httpx.QueryString(c, "q")
	q.TargetFrom, _ = httpx.QueryString(c, "targetFrom")
	q.TargetTo, _ = httpx.QueryString(c, "targetTo")
	return q
}

// Parse checks the query and returns the list's filter and page: the page (limit, cursor), then
// archived, notebookId, q, tag, person, targetFrom and targetTo, in that order (the first invalid
// one answers).
func (q ListQuery) Parse() (ListFilter, paginate.Params, error) {
	page, err := q.Query.Parse(false)
	if err != nil {
		return ListFilter{}, paginate.Params{}, err
	}
	archived, err := httpx.ParseBool("archived", q.Archived, false)
	if err != nil {
		return ListFilter{}, paginate.Params{}, err
	}
	f := ListFilter{Archived: archived}
	if q.NotebookID != "" {
		f.NotebookID = &q.NotebookID
	}
	if q.Q != "" {
		parsed, err := search.Parse(q.Q)
		if err != nil {
			return ListFilter{}, paginate.Params{}, err
		}
		f.Text = &parsed
	}
	if f.Tags, err = names("tag", q.Tags); err != nil {
		return ListFilter{}, paginate.Params{}, err
	}
	if f.People, err = names("person", q.People); err != nil {
		return ListFilter{}, paginate.Params{}, err
	}
	if f.TargetFrom, f.TargetTo, err = ParseDateRange("targetFrom", q.TargetFrom, "targetTo", q.TargetTo); err != nil {
		return ListFilter{}, paginate.Params{}, err
	}
	return f, page, nil
}

// Answer is an item list's answer to a module's query: parse reads it (the module's filter and
// the page), list returns the principal's rows for them, toResponse converts each.
func Answer[F, V, R any](ctx context.Context, p *auth.Principal, parse func() (F, paginate.Params, error),
	list func(context.Context, *auth.Principal, F, paginate.Params) ([]V, *string, error), toResponse func(V) (R, error)) (paginate.Page[R], error) {
	f, page, err := parse()
	if err != nil {
		return paginate.Page[R]{}, err
	}
	views, next, err := list(ctx, p, f, page)
	if err != nil {
		return paginate.Page[R]{}, err
	}
	return paginate.Convert(views, next, toResponse)
}

// maxNames bounds the repeatable tag and person parameters.
const maxNames = 20

// names reads the values of a repeatable name parameter (tag, person): empty values are ignored,
// one leading # then one leading @ is dropped (tag=#q4 is tag=q4), at most maxNames.
func names(param string, values []string) ([]string, error) {
	var out []string
	for _, v := range values {
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

// ParseDateRange reads an inclusive date range from the values of two query parameters ("":
// absent): from as the first instant, to as the end of its day for a date (YYYY-MM-DD) or the
// instant itself for a date-time; it returns to made exclusive (the instant after the range).
func ParseDateRange(fromParam, fromValue, toParam, toValue string) (from, to *time.Time, err error) {
	if fromValue != "" {
		t, err := httpx.ParseDate(fromParam, fromValue)
		if err != nil {
			return nil, nil, err
		}
		from = &t
	}
	if toValue != "" {
		t, err := httpx.ParseDate(toParam, toValue)
		if err != nil {
			return nil, nil, err
		}
		if len(toValue) == len(time.DateOnly) {
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
