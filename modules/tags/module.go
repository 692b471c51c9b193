package tags

import (
	"go.uber.org/fx"

	"folio/modules/items"
	"folio/platform/db"
)

// Module wires the tags module.
var Module = fx.Module("tags",
	fx.Provide(
		NewService,
		// Notes and tasks keep their tags through the shared item flows.
		func(s *Service) items.Tags { return s },
		db.AsMigrations(migrations),
	),
)
