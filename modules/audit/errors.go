package audit

import (
	"strings"

	"folio/platform/apierr"
)

// The audit module's errors.
var (
	ErrAPIKeyID = apierr.Validation("query parameter \"apiKeyId\" must be an API key id")
)

// errResourceType names the declared resource types: "must be note, notebook or task".
func errResourceType(types []string) error {
	list := strings.Join(types, ", ")
	if n := len(types); n > 1 {
		list = strings.Join(types[:n-1], ", ") + " or " + types[n-1]
	}
	return apierr.Validation("query parameter \"resourceType\" must be %s", list)
}
