package notebooks

import (
	"context"

	"folio/platform/auth"
	"folio/platform/httpx"
	"folio/platform/paginate"
)

// ListPage answers GET /notebooks, MCP's list_notebooks and the export's walk: the page q asks
// for of the notebooks the principal can see, each as the API writes it.
func (s *Service) ListPage(ctx context.Context, p *auth.Principal, q paginate.Query) (paginate.Page[Response], error) {
	return paginate.Answer(q, false, func(page paginate.Params) ([]Notebook, *string, error) {
		return s.List(ctx, p, page)
	}, httpx.Infallible(toNotebookResponse))
}
