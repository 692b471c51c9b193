package suggestions

import "folio/platform/apierr"

// The suggestions module's errors.
var (
	ErrNotFound        = apierr.NotFound("SUGGESTION_NOT_FOUND", "suggestion not found")
	ErrAlreadyResolved = apierr.Conflict("SUGGESTION_ALREADY_RESOLVED", "this suggestion is already resolved")
	ErrRationale       = apierr.Validation("field \"rationale\" must be at most 2000 characters")
	// ErrConflict is approving a stale suggestion whose changes overlap changes made since; its
	// occurrences carry the conflicts as details (Plan.conflictError).
	ErrConflict = apierr.Conflict("SUGGESTION_CONFLICT", "this suggestion's changes overlap changes made since it was proposed")
)
