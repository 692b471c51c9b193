package events

import "folio/platform/apierr"

// ErrAfter is a malformed after parameter.
var ErrAfter = apierr.Validation("query parameter \"after\" must be an event id (evt_ and 19 digits)")

func errTypes(types []string) error {
	return apierr.Validation("query parameter \"types\" must be a comma-separated list of: %s", joinTypes(types))
}
