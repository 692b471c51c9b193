package auth

import "context"

// Place is a workspace or a notebook that a key may be restricted to, by name.
type Place struct {
	ID   string
	Name string
	// In is, for a notebook in a workspace, the workspace's name; "" otherwise.
	In string
}

// KeyPlaces lists where a user may restrict a key, so that the settings UI can offer and show
// restrictions by name. The notebooks module provides it: it already decides, as the
// RestrictionChecker, whether a restriction is within the user's reach, and the list must be
// exactly what that check accepts.
type KeyPlaces interface {
	KeyPlaces(ctx context.Context, userID string) (workspaces, notebooks []Place, err error)
}
