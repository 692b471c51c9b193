package search

import (
	"go.uber.org/fx"

	"folio/platform/db"
)

// Module creates the search index's tables.
var Module = fx.Module("search", fx.Provide(db.AsMigrations(Migrations)))
