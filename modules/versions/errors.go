package versions

import "folio/platform/apierr"

// ErrNotFound is an unknown version, or a version of another item.
var ErrNotFound = apierr.NotFound("VERSION_NOT_FOUND", "version not found")
