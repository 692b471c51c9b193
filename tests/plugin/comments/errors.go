package comments

import "folio/platform/apierr"

// The module's errors; COMMENT_NOT_FOUND's status is declared in openapi.yaml.
var (
	ErrNotFound         = apierr.NotFound("COMMENT_NOT_FOUND", "comment not found")
	ErrNotebookNotFound = apierr.NotFound("NOTEBOOK_NOT_FOUND", "notebook not found")
	ErrBody             = apierr.Validation("field \"body\" must be 1 to 500 characters")
)
