package suggestions

import (
	"context"

	"folio/platform/auth"
)

// reader answers the access rule for suggestions (auth.Reader): a suggestion is readable exactly
// when its item is (deleting an item removes its suggestions from every read; moving it takes
// them along).
type reader struct{ store *Store }

func newReader(store *Store) *reader { return &reader{store: store} }

func (r *reader) ResourceType() string { return "suggestion" }

func (r *reader) Readable(ctx context.Context, rule *auth.Rule, p *auth.Principal, ids []string) (map[string]bool, error) {
	rows, err := r.store.itemsOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	refs := make([]auth.Resource, len(rows))
	for i, s := range rows {
		refs[i] = auth.Resource{Type: s.ItemKind, ID: s.ItemID}
	}
	readable, err := rule.Readable(ctx, p, refs)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(rows))
	for i, s := range rows {
		if readable[refs[i]] {
			out[s.ID] = true
		}
	}
	return out, nil
}
