// Package notes is the notes module: Markdown notes stored as the codec's document, with tags,
// archive, moves between notebooks, the per-notebook item limit, version snapshots and audit
// entries. It registers itself as a content target for suggestions.
package notes

import (
	_ "embed"

	"go.uber.org/fx"

	"folio/modules/content"
	"folio/modules/document"
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

// Module wires the notes module.
var Module = fx.Module("notes",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		NewService,
		NewViewer,
		content.AsTarget(NewTarget),
		items.AsFocusSource(NewFocusSource),
		items.AsCalendarSource(NewCalendarSource),
		httpx.AsRoutes(NewHandler),
		apidoc.AsPart("notes", openapiYAML),
		journal.DeclareEvents(append(journal.ItemEvents(ItemKind, "Note"), journal.EventType{Name: ItemKind + ".follow_up_due", Resource: ItemKind, Schema: "Note"})...),
		items.AsReminderSource(func(s *Service) items.ReminderSource { return s.items }),
		document.AsColumns(document.Columns{Table: "notes", Tree: "content", Version: "version"}),
		db.AsMigrations(migrations),
		journal.DeclareResourceType(ItemKind, journal.ItemVerbs...),
		auth.AsReader(items.ReaderOf(ItemKind, "notes")),
	),
)
