// Package audit is the audit module: the recorder that every write calls inside its own
// transaction, and GET /audit-log.
package audit

import (
	"go.uber.org/fx"

	"folio/platform/auditlog"
	"folio/platform/db"
	"folio/platform/httpx"
)

// Module wires the audit module.
var Module = fx.Module("audit",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		NewService,
		func(s *Service) auditlog.Recorder { return s },
		httpx.AsRoutes(NewHandler),
		db.AsMigrations(migrations),
	),
)
