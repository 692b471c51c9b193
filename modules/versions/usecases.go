package versions

import (
	"context"

	"folio/platform/auth"
	"folio/platform/httpx"
	"folio/platform/paginate"
)

// ListPage answers GET /<kind>s/:id/versions and MCP's get_history: the page q asks for of the
// versions of the item kind/id, newest first, each as the API lists it.
func (s *Service) ListPage(ctx context.Context, p *auth.Principal, kind, id string, q paginate.Query) (paginate.Page[VersionResponse], error) {
	return paginate.Answer(q, false, func(page paginate.Params) ([]Snapshot, *string, error) {
		return s.List(ctx, p, kind, id, page)
	}, httpx.Infallible(toVersionResponse))
}
