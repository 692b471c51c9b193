// Package focus is the Focus view, GET /focus (CONTRACT.md section 21): for a day in a time zone,
// the notes and tasks targeted on it, the follow-ups and the due tasks up to its end. Each kind of
// item gives its lists through the item kernel's port (items.FocusSource, which the notes and
// tasks modules join), with the visibility of its own lists; this module reads the day, merges
// the kinds and cuts each list.
package focus

import (
	_ "embed"

	"go.uber.org/fx"

	"folio/platform/apidoc"
	"folio/platform/httpx"
)

// openapiYAML is the module's part of the OpenAPI document: its route, beside its handler.
//
//go:embed openapi.yaml
var openapiYAML []byte

// Module wires the focus module.
var Module = fx.Module("focus",
	fx.Provide(
		NewService,
		httpx.AsRoutes(NewHandler),
		apidoc.AsPart("focus", openapiYAML),
	),
)
