package focus

import (
	"context"
	"slices"

	"go.uber.org/fx"

	"folio/modules/items"
	"folio/platform/auth"
	"folio/platform/clock"
)

// Limit is the most items a list holds; its More flag says when there were more.
const Limit = 100

// Service answers the Focus view.
type Service struct {
	sources []items.FocusSource
	clock   clock.Clock
}

// ServiceParams are the dependencies of NewService: the kinds of item in the Focus view (notes and
// tasks join the value group) and the clock, for the default date.
type ServiceParams struct {
	fx.In
	Sources []items.FocusSource `group:"focusSources"`
	Clock   clock.Clock
}

// NewService returns the focus service.
func NewService(p ServiceParams) *Service { return &Service{sources: p.Sources, clock: p.Clock} }

// Focus answers GET /focus and MCP's get_focus: the principal's three lists of the day q names,
// each the first Limit items of every kind merged in the list's order.
func (s *Service) Focus(ctx context.Context, p *auth.Principal, q Query) (Response, error) {
	day, err := q.Parse(s.clock.Now())
	if err != nil {
		return Response{}, err
	}
	var lists items.FocusLists
	for _, src := range s.sources {
		got, err := src.Focus(ctx, p, day.Day, Limit+1)
		if err != nil {
			return Response{}, err
		}
		for list := range lists {
			lists[list] = append(lists[list], got[list]...)
		}
	}
	out := Response{Date: day.Date, TZ: day.TZ}
	out.Targeted, out.TargetedMore = entries(lists[items.Targeted])
	out.FollowUps, out.FollowUpsMore = entries(lists[items.FollowUps])
	out.Due, out.DueMore = entries(lists[items.Due])
	return out, nil
}

// entries is a list as the answer shows it: ordered, at most Limit items, and whether it was cut.
func entries(list []items.Dated) ([]Entry, bool) {
	slices.SortFunc(list, items.Dated.Compare)
	out := make([]Entry, min(len(list), Limit))
	for i := range out {
		out[i] = Entry{Kind: list[i].Kind, Item: list[i].Item}
	}
	return out, len(list) > Limit
}
