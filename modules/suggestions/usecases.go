package suggestions

import (
	"context"
	"slices"
	"strings"

	"folio/modules/document"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/paginate"
)

// The suggestions module's use cases: what each request means, written once. The REST handler
// and the MCP server each only turn their transport's input into these requests and the answers
// back.

// Response is a suggestion as a suggest answers it (ToResponse), and MCP's propose tools.
type Response = Proposed

// Propose answers POST /<kind>s/:id/suggest and MCP's propose tools: the rationale checked, then
// the proposed Markdown (field is the name the client gave it under, which errors name), then the
// suggestion recorded (Suggest).
func (s *Service) Propose(ctx context.Context, p *auth.Principal, kind, id, field, text, rationale string) (Suggestion, error) {
	if err := ValidateRationale(rationale); err != nil {
		return Suggestion{}, err
	}
	doc, err := document.Parse(field, text)
	if err != nil {
		return Suggestion{}, err
	}
	return s.Suggest(ctx, p, kind, id, doc, rationale)
}

// InboxQuery is GET /suggestions' query as the client sent it ("" is absent); MCP's
// list_suggestions asks with it too.
type InboxQuery struct {
	paginate.Query
	Status     string // PENDING (the default), APPROVED, REJECTED or SUPERSEDED
	ItemKind   string // a kind of suggestible item (Kinds); "": every kind
	NotebookID string
}

// ParseInbox checks an inbox query, in the order of the API's query parameters: status, itemKind,
// notebookId, then the page (the first invalid one answers).
func (s *Service) ParseInbox(q InboxQuery) (InboxFilter, paginate.Params, error) {
	f := InboxFilter{Status: StatusPending}
	if q.Status != "" {
		status, err := parseStatus(q.Status)
		if err != nil {
			return InboxFilter{}, paginate.Params{}, err
		}
		f.Status = status
	}
	if q.ItemKind != "" {
		if !slices.Contains(s.Kinds(), q.ItemKind) {
			return InboxFilter{}, paginate.Params{}, apierr.Validation("query parameter \"itemKind\" must be one of %s", strings.Join(slices.Sorted(slices.Values(s.Kinds())), ", "))
		}
		f.ItemKind = &q.ItemKind
	}
	if q.NotebookID != "" {
		f.NotebookID = &q.NotebookID
	}
	page, err := q.Query.Parse(false)
	if err != nil {
		return InboxFilter{}, paginate.Params{}, err
	}
	return f, page, nil
}

// SearchInbox answers GET /suggestions and MCP's list_suggestions: the page of the suggestions on
// the items the principal can read that q asks for, each as the API lists it.
func (s *Service) SearchInbox(ctx context.Context, p *auth.Principal, q InboxQuery) (paginate.Page[InboxItem], error) {
	f, page, err := s.ParseInbox(q)
	if err != nil {
		return paginate.Page[InboxItem]{}, err
	}
	entries, next, err := s.Inbox(ctx, p, f, page)
	if err != nil {
		return paginate.Page[InboxItem]{}, err
	}
	return paginate.Convert(entries, next, toInboxItem)
}

// Detail is a suggestion as GET /suggestions/:id answers it (FindDetail): an inbox item with its
// diff and hunks. MCP's get_suggestion answers with the same.
type Detail = inboxDetail

// FindDetail answers GET /suggestions/:id and MCP's get_suggestion: the suggestion of an item the
// principal can read, with what approving it would do to the item's current content.
func (s *Service) FindDetail(ctx context.Context, p *auth.Principal, id string) (Detail, error) {
	e, err := s.Get(ctx, p, id)
	if err != nil {
		return Detail{}, err
	}
	return toInboxDetail(e)
}
