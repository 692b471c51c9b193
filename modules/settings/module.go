// Package settings is the settings UI: server-rendered pages for people (sign-up, sign-in, API
// keys, password) over the accounts module's service. Templates and assets are in web/, embedded.
// Its routes join the same routes group as the API's handlers.
package settings

import (
	"go.uber.org/fx"

	"folio/modules/accounts"
	"folio/platform/httpx"
)

// Module wires the settings UI.
var Module = fx.Module("settings",
	fx.Provide(
		httpx.AsRoutes(NewHandler),
		func(s *accounts.Service) Accounts { return s },
	),
)
