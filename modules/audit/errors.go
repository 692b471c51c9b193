package audit

import "folio/platform/apierr"

// The audit module's errors.
var (
	ErrResourceType = apierr.Validation("query parameter \"resourceType\" must be note, task or notebook")
	ErrAPIKeyID     = apierr.Validation("query parameter \"apiKeyId\" must be an API key id")
)
