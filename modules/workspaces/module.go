// Package workspaces is the workspaces module: shared spaces with OWNER and MEMBER roles, their
// creation, listing, invitations and removals. Other modules ask it about membership.
package workspaces

import (
	"go.uber.org/fx"

	"folio/modules/accounts"
	"folio/platform/db"
	"folio/platform/httpx"
)

// Module wires the workspaces module.
var Module = fx.Module("workspaces",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		NewService,
		httpx.AsRoutes(NewHandler),
		db.AsMigrations(migrations),
		// The accounts module's directory is this module's user directory.
		func(d *accounts.Directory) UserDirectory { return d },
	),
)
