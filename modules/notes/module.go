// Package notes is the notes module: Markdown notes stored as the codec's document, with tags,
// archive, moves between notebooks, the per-notebook item limit, version snapshots and audit
// entries. It registers itself as a content target for suggestions.
package notes

import (
	"go.uber.org/fx"

	"folio/platform/content"
	"folio/platform/httpx"
)

// Module wires the notes module.
var Module = fx.Module("notes",
	fx.Provide(
		NewStore,
		NewService,
		fx.Annotate(NewTarget, fx.As(new(content.Target)), fx.ResultTags(`group:"contentTargets"`)),
		fx.Annotate(NewHandler, fx.As(new(httpx.Routes)), fx.ResultTags(`group:"routes"`)),
		fx.Annotate(migrations, fx.ResultTags(`group:"migrations"`)),
	),
)
