package notebooks

import (
	"fmt"
	"strings"

	"folio/platform/apierr"
)

// The notebooks module's errors.
var (
	ErrNotFound        = apierr.NotFound("NOTEBOOK_NOT_FOUND", "notebook not found")
	ErrWorkspaceAbsent = apierr.NotFound("WORKSPACE_NOT_FOUND", "workspace not found")
	ErrName            = apierr.Validation("field \"name\" must be 1 to 40 characters and not blank")
	ErrColor           = apierr.Validation("%s", fmt.Sprintf("field \"color\" must be one of %s", strings.Join(Colors, ", ")))
	ErrCreateByKey     = apierr.ErrInsufficient.WithMessage("a notebook-scoped key cannot create notebooks")
)
