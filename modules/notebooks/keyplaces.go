package notebooks

import (
	"context"
	"sort"
	"strings"

	"folio/platform/auth"
)

// KeyPlaces implements auth.Places: the workspaces and notebooks a user may restrict an API
// key to, by name, for the settings UI. It lists exactly what a session of the user sees, which is
// what CheckRestriction accepts.
type KeyPlaces struct {
	store       *Store
	access      *Access
	memberships Memberships
}

// NewKeyPlaces returns the settings UI's source of restriction choices.
func NewKeyPlaces(store *Store, access *Access, memberships Memberships) *KeyPlaces {
	return &KeyPlaces{store: store, access: access, memberships: memberships}
}

// KeyPlaces returns the user's workspaces and visible notebooks, each sorted by name (personal
// notebooks first, then by workspace).
func (k *KeyPlaces) KeyPlaces(ctx context.Context, userID string) (wss, nbs []auth.Place, err error) {
	p := &auth.Principal{Credential: auth.CredentialSession, UserID: userID, Scope: auth.ScopeReadWrite}
	names, err := k.memberships.WorkspaceNames(ctx, userID)
	if err != nil {
		return nil, nil, err
	}
	for id, name := range names {
		wss = append(wss, auth.Place{ID: id, Name: name})
	}
	rows, err := k.store.all(ctx, k.access.Visible(p))
	if err != nil {
		return nil, nil, err
	}
	for _, n := range rows {
		pl := auth.Place{ID: n.ID, Name: n.Name}
		if n.WorkspaceID != nil {
			pl.In = names[*n.WorkspaceID]
		}
		nbs = append(nbs, pl)
	}
	byName := func(list []auth.Place) func(i, j int) bool {
		return func(i, j int) bool {
			a, b := list[i], list[j]
			if (a.In == "") != (b.In == "") {
				return a.In == ""
			}
			if x, y := strings.ToLower(a.In), strings.ToLower(b.In); x != y {
				return x < y
			}
			if x, y := strings.ToLower(a.Name), strings.ToLower(b.Name); x != y {
				return x < y
			}
			return a.ID < b.ID
		}
	}
	sort.SliceStable(wss, byName(wss))
	sort.SliceStable(nbs, byName(nbs))
	return wss, nbs, nil
}
