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

// openapiYAML is the module's part of the OpenAPI document: its routes, beside its handler.
//
//go:embed openapi.yaml
var openapiYAML []byte

// Module wires the audit module.
var Module = fx.Module("audit",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		NewService,
		func(s *Service) journal.Recorder { return s },
		httpx.AsRoutes(NewHandler),
		apidoc.AsPart("audit", openapiYAML),
		db.AsMigrations(migrations),
	),
)
