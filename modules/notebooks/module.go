// Package notebooks is the notebooks module: personal and workspace notebooks, and the Access
// service every content module asks whether a principal may use a notebook.
package notebooks

import (
	_ "embed"

	"go.uber.org/fx"

	"folio/modules/items"
	"folio/modules/journal"
	"folio/platform/apidoc"
	"folio/platform/auth"
	"folio/platform/db"
	"folio/platform/httpx"
)

// openapiYAML is the module's part of the OpenAPI document: its routes, beside its handler.
//
//go:embed openapi.yaml
var openapiYAML []byte

// Module wires the notebooks module.
var Module = fx.Module("notebooks",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		NewAccess,
		NewService,
		httpx.AsRoutes(NewHandler),
		apidoc.AsPart("notebooks", openapiYAML),
		journal.DeclareEvents(journal.EventType{Name: EventCreated, Resource: ResourceType, Schema: "Notebook"}),
		db.AsMigrations(migrations),
		journal.DeclareResourceType(ResourceType, "create"),
		func(a *Access) auth.RestrictionChecker { return a },
		auth.AsReader(func(a *Access) *Access { return a }),
		// Notes and tasks reach notebooks through the shared item flows.
		func(a *Access) items.Notebooks { return a },
		// The settings UI offers and shows key restrictions by name.
		fx.Annotate(NewKeyPlaces, fx.As(new(auth.KeyPlaces))),
	),
)
