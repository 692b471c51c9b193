// Package suggestions is the suggestions module: proposals to replace a note's content or a task's
// notes, their state machine (PENDING, then APPROVED, REJECTED or SUPERSEDED), and the endpoints.
// It reaches notes and tasks only through the content targets they register, so a third kind of
// suggestible content is one more registration.
package suggestions

import (
	_ "embed"

	"go.uber.org/fx"

	"folio/modules/content"
	"folio/modules/document"
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

// Module wires the suggestions module.
var Module = fx.Module("suggestions",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		NewService,
		auth.AsReader(newReader),
		func(s *Service) content.Pending { return s },
		httpx.AsRoutes(NewHandler),
		apidoc.AsPart("suggestions", openapiYAML),
		journal.DeclareEvents(
			journal.EventType{Name: EventCreated, Resource: "suggestion", Schema: "ProposedSuggestion"},
			journal.EventType{Name: EventApproved, Resource: "suggestion", Schema: "Suggestion"},
			journal.EventType{Name: EventRejected, Resource: "suggestion", Schema: "Suggestion"},
			journal.EventType{Name: EventSuperseded, Resource: "suggestion", Schema: "Suggestion"},
		),
		document.AsColumns(document.Columns{Table: "suggestions", Tree: "original_content", Version: "version"}),
		document.AsColumns(document.Columns{Table: "suggestions", Tree: "suggested_content", Version: "version"}),
		db.AsMigrations(migrations),
	),
)
