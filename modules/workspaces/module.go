// Package workspaces is the workspaces module: shared spaces with OWNER and MEMBER roles, their
// creation, listing, invitations and removals. Other modules ask it about membership.
package workspaces

import (
	_ "embed"

	"go.uber.org/fx"

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

// Module wires the workspaces module.
var Module = fx.Module("workspaces",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		NewService,
		NewMembers,
		auth.AsReader(NewMembers),
		httpx.AsRoutes(NewHandler),
		apidoc.AsPart("workspaces", openapiYAML),
		journal.DeclareEvents(
			journal.EventType{Name: EventMemberAdded, Resource: "workspace", Schema: "Membership"},
			journal.EventType{Name: EventMemberRemoved, Resource: "workspace", Schema: "RemovedMember"},
		),
		db.AsMigrations(migrations),
	),
)
