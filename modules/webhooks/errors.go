package webhooks

import "folio/platform/apierr"

// The webhooks module's errors.
var (
	ErrNotFound = apierr.NotFound("WEBHOOK_NOT_FOUND", "webhook not found")
)
