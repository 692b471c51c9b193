package calendar

import "folio/platform/apierr"

// The calendar module's errors.
var (
	// ErrNotFound: no feed of the caller has this id, or no live feed has this token (an unknown
	// token and a dead credential's look alike).
	ErrNotFound = apierr.NotFound("CALENDAR_FEED_NOT_FOUND", "calendar feed not found")
	// ErrLimit: the user has MaxPerUser feeds already (CONTRACT.md section 21).
	ErrLimit = apierr.Forbidden("CALENDAR_FEED_LIMIT_REACHED", "the user has reached the calendar feed limit")
	// ErrName: the name is absent from the rule of names.
	ErrName = apierr.Validation("field \"name\" must be 1 to %d characters and not blank", MaxName)
)
