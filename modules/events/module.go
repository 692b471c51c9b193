// Package events is the change feed (CONTRACT.md section 18): every write emits its events in its
// own transaction (journal.Emitter, a transactional outbox), and GET /events serves them oldest
// first under the audit log's visibility rules. Events are kept Retention long.
package events

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

// Module wires the events module.
var Module = fx.Module("events",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		NewService,
		func(s *Service) journal.Emitter { return s },
		httpx.AsRoutes(NewHandler),
		apidoc.AsPart("events", openapiYAML),
		db.AsMigrations(migrations),
	),
)
