package versions

import (
	"go.uber.org/fx"

	"folio/platform/db"
	"folio/platform/items"
)

// Module wires the versions module.
var Module = fx.Module("versions",
	fx.Provide(
		NewService,
		// Notes and tasks take their snapshots through the shared item flows.
		func(s *Service) items.Versions { return s },
		db.AsMigrations(migrations),
	),
)
