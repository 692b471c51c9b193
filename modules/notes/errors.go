package notes

import "folio/platform/apierr"

// The notes module's errors.
var (
	ErrNotFound = apierr.NotFound("NOTE_NOT_FOUND", "note not found")
)
