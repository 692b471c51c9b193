// Package settings is the web UI for people: server-rendered pages for sign-up, sign-in, API keys
// and password over the accounts module's service, the user's webhooks over the webhooks module's, and the review pages (suggestions to approve or
// reject, an item's history to restore) over the suggestions and versions modules' services.
// Templates and assets are in web/, embedded. Its routes join the same routes group as the API's
// handlers.
package web

import (
	"go.uber.org/fx"

	"folio/modules/accounts"
	"folio/modules/suggestions"
	"folio/modules/versions"
	"folio/modules/webhooks"
	"folio/platform/httpx"
)

// Module wires the settings UI.
var Module = fx.Module("web",
	fx.Provide(
		httpx.AsRoutes(NewHandler),
		func(s *accounts.Service) Accounts { return s },
		func(s *suggestions.Service) Reviews { return s },
		func(s *versions.Service) Histories { return s },
		func(s *webhooks.Service) Webhooks { return s },
	),
)
