package comments

import (
	_ "embed"

	"go.uber.org/fx"

	"folio/modules/journal"
	"folio/platform/apidoc"
	"folio/platform/auth"
	"folio/platform/db"
	"folio/platform/httpx"
)

//go:embed openapi.yaml
var openapiYAML []byte

// Module wires the comments module: the one line a composition root adds.
var Module = fx.Module("comments",
	fx.Provide(
		NewService,
		httpx.AsRoutes(NewHandler),
		apidoc.AsPart("comments", openapiYAML),
		db.AsMigrations(migrations),
		journal.DeclareResourceType(ResourceType, "create"),
		journal.DeclareEvents(journal.EventType{Name: EventCreated, Resource: ResourceType, Schema: "Comment"}),
		auth.AsReader(newReader),
	),
)
