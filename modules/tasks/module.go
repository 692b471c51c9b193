// Package tasks is the tasks module: tasks with Markdown notes stored as the codec's document,
// status and priority, tags, archive, moves, the per-notebook item limit, version snapshots and
// audit entries. It registers itself as a content target for suggestions.
package tasks

import (
	"go.uber.org/fx"

	"folio/platform/content"
	"folio/platform/httpx"
)

// Module wires the tasks module.
var Module = fx.Module("tasks",
	fx.Provide(
		NewStore,
		NewService,
		fx.Annotate(NewTarget, fx.As(new(content.Target)), fx.ResultTags(`group:"contentTargets"`)),
		fx.Annotate(NewHandler, fx.As(new(httpx.Routes)), fx.ResultTags(`group:"routes"`)),
		fx.Annotate(migrations, fx.ResultTags(`group:"migrations"`)),
	),
)
