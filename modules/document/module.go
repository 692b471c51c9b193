package document

import (
	"go.uber.org/fx"

	"folio/platform/config"
	"folio/platform/observability"
)

// Module bounds the render cache from FOLIO_RENDER_CACHE_MB before the server starts and reports
// its size in the metrics.
var Module = fx.Module("document",
	fx.Invoke(func(c config.Config) { SetRenderCacheBytes(c.RenderCacheMB << 20) }),
	fx.Provide(
		observability.AsGauge(observability.Gauge{Name: "folio_render_cache_entries",
			Help:  "Rendered Markdown texts held by the render cache (both generations).",
			Value: func() int { n, _ := RenderCacheSize(); return n }}),
		observability.AsGauge(observability.Gauge{Name: "folio_render_cache_bytes",
			Help:  "Bytes held by the render cache: the texts plus an estimate of each entry's overhead (both generations; bounded).",
			Value: func() int { _, b := RenderCacheSize(); return b }}),
	),
)
