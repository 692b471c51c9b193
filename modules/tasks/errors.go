package tasks

import (
	"strings"

	"folio/platform/apierr"
)

// The tasks module's errors.
var (
	ErrNotFound = apierr.NotFound("TASK_NOT_FOUND", "task not found")
	ErrTitle    = apierr.Validation("field \"title\" must be 1 to 500 characters and not blank")
	ErrStatus   = apierr.Validation("field \"status\" must be one of %s", strings.Join(Statuses, ", "))
	ErrPriority = apierr.Validation("field \"priority\" must be one of %s", strings.Join(Priorities, ", "))
	ErrQStatus  = apierr.Validation("query parameter \"status\" must be one of %s", strings.Join(Statuses, ", "))
)
