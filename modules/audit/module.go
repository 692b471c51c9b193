// Package audit is the audit module: the recorder that every write calls inside its own
// transaction, and GET /audit-log.
package audit

import (
	"go.uber.org/fx"

	"folio/platform/auditlog"
	"folio/platform/httpx"
)

// Module wires the audit module.
var Module = fx.Module("audit",
	fx.Provide(
		NewStore,
		NewService,
		func(s *Service) auditlog.Recorder { return s },
		fx.Annotate(NewHandler, fx.As(new(httpx.Routes)), fx.ResultTags(`group:"routes"`)),
		fx.Annotate(migrations, fx.ResultTags(`group:"migrations"`)),
	),
)
