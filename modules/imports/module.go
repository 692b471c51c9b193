package imports

import (
	_ "embed"

	"go.uber.org/fx"

	"folio/platform/apidoc"
	"folio/platform/httpx"
)

// openapiYAML is the module's part of the OpenAPI document: its route, beside its handler.
//
//go:embed openapi.yaml
var openapiYAML []byte

// Module wires the imports module. What it writes through (CheckNotebook, CreateNotebook,
// CreateNote, CreateTask) is bound in app/ports.go.
var Module = fx.Module("imports",
	fx.Provide(
		NewService,
		httpx.AsRoutes(NewHandler),
		httpx.AsBodyLimit(bodyLimit),
		NewTurns,
		httpx.AsGate((*Turns).Gate),
		apidoc.AsPart("imports", openapiYAML),
	),
)
