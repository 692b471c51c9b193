package suggestions

import "folio/platform/apierr"

// The suggestions module's errors.
var (
	ErrNotFound        = apierr.NotFound("SUGGESTION_NOT_FOUND", "suggestion not found")
	ErrAlreadyResolved = apierr.Conflict("SUGGESTION_ALREADY_RESOLVED", "this suggestion is already resolved")
	ErrRationale       = apierr.Validation("field \"rationale\" must be at most 2000 characters")
)
