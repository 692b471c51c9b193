// Package tasks is the tasks module: tasks with Markdown notes stored as the codec's document,
// status and priority, tags, archive, moves, the per-notebook item limit, version snapshots and
// audit entries. It registers itself as a content target for suggestions.
package tasks

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

// Module wires the tasks module.
var Module = fx.Module("tasks",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		NewService,
		content.AsTarget(NewTarget),
		items.AsFocusSource(NewFocusSource),
		items.AsCalendarSource(NewCalendarSource),
		httpx.AsRoutes(NewHandler),
		apidoc.AsPart("tasks", openapiYAML),
		journal.DeclareEvents(append(journal.ItemEvents(ItemKind, "Task"),
			journal.EventType{Name: ItemKind + ".follow_up_due", Resource: ItemKind, Schema: "Task"},
			journal.EventType{Name: ItemKind + ".due", Resource: ItemKind, Schema: "Task"})...),
		items.AsReminderSource(func(s *Service) items.ReminderSource { return s.items }),
		document.AsColumns(document.Columns{Table: "tasks", Tree: "notes", Version: "version"}),
		db.AsMigrations(migrations),
		journal.DeclareResourceType(ItemKind, journal.ItemVerbs...),
		auth.AsReader(items.ReaderOf(ItemKind, "tasks")),
	),
)
