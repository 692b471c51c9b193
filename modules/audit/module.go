// Package audit is the audit module: the recorder that every write calls inside its own
// transaction, and GET /audit-log.
package audit

import (
	_ "embed"

	"go.uber.org/fx"

	"folio/modules/journal"
	"folio/platform/apidoc"
	"folio/platform/db"
	"folio/platform/httpx"
)

// openapiYAML is the module's part of the OpenAPI document: its routes, beside its handler. The
// enums of resource types and actions are added at start from the declarations (openAPIPart).
//
//go:embed openapi.yaml
var openapiYAML []byte

// openAPIPart is the module's fragment with the declared resource types and actions as the enums
// of the resourceType filter and of an entry's resourceType and action.
func openAPIPart(s *Service) (apidoc.Part, error) {
	return apidoc.Generated("audit", openapiYAML, func(doc map[string]any) error {
		list, err := apidoc.Node(doc, "paths", "/audit-log", "get")
		if err != nil {
			return err
		}
		filter, err := apidoc.Parameter(list, "resourceType")
		if err != nil {
			return err
		}
		schema, err := apidoc.Node(filter, "schema")
		if err != nil {
			return err
		}
		entry, err := apidoc.Node(doc, "components", "schemas", "AuditEntry", "properties")
		if err != nil {
			return err
		}
		action, err := apidoc.Node(entry, "action")
		if err != nil {
			return err
		}
		resourceType, err := apidoc.Node(entry, "resourceType")
		if err != nil {
			return err
		}
		schema["enum"], resourceType["enum"] = apidoc.Enum(s.types), apidoc.Enum(s.types)
		action["enum"] = apidoc.Enum(s.actions)
		return nil
	})
}

// Module wires the audit module.
var Module = fx.Module("audit",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		NewService,
		func(s *Service) journal.Recorder { return s },
		httpx.AsRoutes(NewHandler),
		fx.Annotate(openAPIPart, fx.ResultTags(`group:"openapi"`)),
		db.AsMigrations(migrations),
	),
)
