package webhooks

import "folio/platform/apierr"

// The webhooks module's errors.
var (
	ErrNotFound = apierr.NotFound("WEBHOOK_NOT_FOUND", "webhook not found")
	// ErrLimit: the user has MaxPerUser webhooks already (CONTRACT.md section 20).
	ErrLimit = apierr.Forbidden("WEBHOOK_LIMIT_REACHED", "the user has reached the webhook limit")
)
