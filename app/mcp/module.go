// Package mcp is folio's Model Context Protocol server: POST /mcp, the Streamable HTTP transport of
// the official Go SDK, for AI assistants. It is another front end of the notes, tasks, notebooks
// and suggestions modules, beside their HTTP handlers: a request passes the same guard as the API
// (an API key, its scope and restriction, the per-user rate limit), and every tool calls the
// modules' services with the key's principal, so access rules, validation, audit entries and
// events are the API's own. Assistants change content only by proposing: no tool overwrites a
// note's content or a task's notes.
package mcp

import (
	"go.uber.org/fx"

	"folio/modules/focus"
	"folio/modules/notebooks"
	"folio/modules/notes"
	"folio/modules/suggestions"
	"folio/modules/tasks"
	"folio/modules/versions"
	"folio/platform/httpx"
)

// Module wires the MCP server.
var Module = fx.Module("mcp",
	fx.Provide(
		httpx.AsRoutes(NewHandler),
		// The use cases the tools call, each behind the narrow interface the tools declare.
		func(s *notes.Service) Notes { return s },
		func(v *notes.Viewer) NoteViewer { return v },
		func(s *tasks.Service) Tasks { return s },
		func(s *notebooks.Service) Notebooks { return s },
		func(s *suggestions.Service) Suggestions { return s },
		func(s *versions.Service) History { return s },
		func(s *focus.Service) Focus { return s },
	),
)
