package paginate

import "github.com/gin-gonic/gin"

// Query is a page as a client asks for it, before it is read: the limit as given (nil when it is
// absent; given but empty is an error) and the cursor ("" for the first page). The API takes it
// from the query string (QueryFromGin), the MCP server from a tool's arguments; Parse gives both
// the one meaning.
type Query struct {
	Limit  *string
	Cursor string
}

// Parse validates the page as Parse does; numericCursor for lists of integer ids.
func (q Query) Parse(numericCursor bool) (Params, error) {
	var limit string
	if q.Limit != nil {
		limit = *q.Limit
	}
	return Parse(limit, q.Limit != nil, q.Cursor, numericCursor)
}

// QueryFromGin reads limit and cursor from the request's query.
func QueryFromGin(c *gin.Context) Query {
	q := Query{Cursor: c.Query("cursor")}
	if limit, ok := c.GetQuery("limit"); ok {
		q.Limit = &limit
	}
	return q
}

// Convert is a page of rows as a list answers it: each row converted by toResponse.
func Convert[V, R any](rows []V, next *string, toResponse func(V) (R, error)) (Page[R], error) {
	out := Page[R]{Data: make([]R, len(rows)), NextCursor: next}
	for i, v := range rows {
		var err error
		if out.Data[i], err = toResponse(v); err != nil {
			return Page[R]{}, err
		}
	}
	return out, nil
}

// Answer is a list's answer to q: the page read from q, the rows list returns for it, each
// converted by toResponse. Every front end that answers a list with {data, nextCursor} goes
// through it or through Convert.
func Answer[V, R any](q Query, numericCursor bool, list func(Params) ([]V, *string, error), toResponse func(V) (R, error)) (Page[R], error) {
	page, err := q.Parse(numericCursor)
	if err != nil {
		return Page[R]{}, err
	}
	rows, next, err := list(page)
	if err != nil {
		return Page[R]{}, err
	}
	return Convert(rows, next, toResponse)
}
