package versions

import (
	_ "embed"

	"go.uber.org/fx"

	"folio/modules/document"
	"folio/modules/items"
	"folio/platform/apidoc"
	"folio/platform/db"
	"folio/platform/httpx"
)

// openapiYAML is the module's part of the OpenAPI document: its routes, beside its handler.
//
//go:embed openapi.yaml
var openapiYAML []byte

// Module wires the versions module.
var Module = fx.Module("versions",
	fx.Provide(
		NewStore,
		NewService,
		// Notes and tasks take their snapshots through the shared item flows.
		func(s *Store) items.Versions { return s },
		httpx.AsRoutes(NewHandler),
		apidoc.AsPart("versions", openapiYAML),
		document.AsColumns(document.Columns{Table: "snapshots", Tree: "document"}),
		db.AsMigrations(migrations),
	),
)
