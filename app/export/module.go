package export

import (
	_ "embed"

	"go.uber.org/fx"

	"folio/modules/notebooks"
	"folio/modules/notes"
	"folio/modules/tasks"
	"folio/platform/apidoc"
	"folio/platform/httpx"
)

// openapiYAML is the module's part of the OpenAPI document: its routes, beside its handler.
//
//go:embed openapi.yaml
var openapiYAML []byte

// Module wires the export module.
var Module = fx.Module("export",
	fx.Provide(
		NewService,
		httpx.AsRoutes(NewHandler),
		apidoc.AsPart("export", openapiYAML),
		// The lists the export reads.
		func(s *notebooks.Service) Notebooks { return s },
		func(s *notes.Service) Notes { return s },
		func(s *tasks.Service) Tasks { return s },
	),
)
