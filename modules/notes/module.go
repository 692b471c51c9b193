// Package notes is the notes module: Markdown notes stored as the codec's document, with tags,
// archive, moves between notebooks, the per-notebook item limit, version snapshots and audit
// entries. It registers itself as a content target for suggestions.
package notes

import (
	_ "embed"

	"go.uber.org/fx"

	"folio/platform/apidoc"
	"folio/platform/auditlog"
	"folio/platform/auth"
	"folio/platform/content"
	"folio/platform/db"
	"folio/platform/httpx"
	"folio/platform/items"
)

// openapiYAML is the module's part of the OpenAPI document: its routes, beside its handler.
//
//go:embed openapi.yaml
var openapiYAML []byte

// Module wires the notes module.
var Module = fx.Module("notes",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		NewService,
		content.AsTarget(NewTarget),
		httpx.AsRoutes(NewHandler),
		apidoc.AsPart("notes", openapiYAML),
		db.AsMigrations(migrations),
		auditlog.DeclareResourceType(ItemKind),
		auth.AsReader(items.ReaderOf(ItemKind, "notes")),
	),
)
