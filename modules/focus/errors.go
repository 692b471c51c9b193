package focus

import "folio/platform/apierr"

// The focus module's errors.
var (
	ErrDate = apierr.Validation("query parameter \"date\" must be a date, YYYY-MM-DD")
	ErrZone = apierr.Validation("query parameter \"tz\" must be an IANA time zone name, such as Europe/Berlin or UTC")
)
