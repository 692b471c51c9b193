// Package calendar is the calendar feeds module (CONTRACT.md section 21, "Calendar"): secret
// addresses that serve, without headers, an RFC 5545 iCalendar of the follow-ups, due dates and
// target dates of what the credential that created them can read now. A feed is a carrier that
// holds data for later (section 20): it holds its credential and asks the access rule at every
// fetch, and reads the items through the item lists' own reading (the item kernel's
// items.CalendarSource, which notes and tasks join), never by a rule of its own.
package calendar

import (
	_ "embed"

	"go.uber.org/fx"

	"folio/platform/apidoc"
	"folio/platform/auth"
	"folio/platform/db"
	"folio/platform/holdings"
	"folio/platform/httpx"
)

// openapiYAML is the module's part of the OpenAPI document: its routes, beside its handler.
//
//go:embed openapi.yaml
var openapiYAML []byte

// Module wires the calendar module.
var Module = fx.Module("calendar",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		NewService,
		httpx.AsRoutes(NewHandler),
		apidoc.AsPart("calendar", openapiYAML),
		db.AsMigrations(migrations),
		auth.AsKeyHolder(func() holdings.Table { return table }),
	),
)
