package webhooks

import (
	_ "embed"

	"go.uber.org/fx"

	"folio/modules/journal"
	"folio/platform/apidoc"
	"folio/platform/auth"
	"folio/platform/config"
	"folio/platform/db"
	"folio/platform/holdings"
	"folio/platform/httpx"
)

// openapiYAML is the module's part of the OpenAPI document: its routes, beside its handler.
//
//go:embed openapi.yaml
var openapiYAML []byte

// Module wires the webhooks module.
var Module = fx.Module("webhooks",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		func(c config.Config) Guard {
			return Guard{AllowInsecure: c.WebhookAllowInsecure, AllowPrivate: c.WebhookAllowPrivate}
		},
		NewQueue,
		NewService,
		func(s *Service) journal.Dispatcher { return s },
		httpx.AsRoutes(NewHandler),
		apidoc.AsPart("webhooks", openapiYAML),
		db.AsMigrations(migrations),
		auth.AsKeyHolder(func() holdings.Table { return table }),
	),
)
