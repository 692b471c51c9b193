// Package workspaces is the workspaces module: shared spaces with OWNER and MEMBER roles, their
// creation, listing, invitations and removals. Other modules ask it about membership.
package workspaces

import (
	"go.uber.org/fx"

	"folio/modules/accounts"
	"folio/platform/httpx"
)

// Module wires the workspaces module.
var Module = fx.Module("workspaces",
	fx.Provide(
		NewStore,
		NewService,
		fx.Annotate(NewHandler, fx.As(new(httpx.Routes)), fx.ResultTags(`group:"routes"`)),
		fx.Annotate(migrations, fx.ResultTags(`group:"migrations"`)),
		// The accounts module's directory is this module's user directory.
		func(d *accounts.Directory) UserDirectory { return d },
	),
)
