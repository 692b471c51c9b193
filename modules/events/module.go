// Package events is the change feed (CONTRACT.md section 18): every write emits its events in its
// own transaction (journal.Emitter, a transactional outbox), and GET /events serves them oldest
// first under the audit log's visibility rules. Events are kept Retention long.
package events

import (
	"go.uber.org/fx"

	"folio/modules/journal"
	"folio/platform/db"
	"folio/platform/httpx"
)

// Module wires the events module.
var Module = fx.Module("events",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		NewService,
		func(s *Service) journal.Emitter { return s },
		httpx.AsRoutes(NewHandler),
		fx.Annotate(openAPIPart, fx.ResultTags(`group:"openapi"`)),
		db.AsMigrations(migrations),
	),
)
