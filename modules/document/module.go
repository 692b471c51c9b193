package document

import (
	"go.uber.org/fx"

	"folio/platform/observability"
)

// Module runs the re-render of stored texts (rerender.go) over the documents the modules
// register (AsColumns), and reports its progress in the metrics.
var Module = fx.Module("document",
	fx.Provide(NewRerender),
	fx.Provide(
		gauge(func(r *Rerender) observability.Gauge {
			return observability.Gauge{Name: "folio_documents_rerendered",
				Help:  "Stored Markdown texts this process has written again from their document (rows older than the text columns, or written by an older codec).",
				Value: func() int { return int(r.Written()) }}
		}),
		gauge(func(r *Rerender) observability.Gauge {
			return observability.Gauge{Name: "folio_documents_rerender_pending",
				Help: "1 until this process's re-render has found every stored text current, then 0.",
				Value: func() int {
					if r.Pending() {
						return 1
					}
					return 0
				}}
		}),
	),
	fx.Invoke(func(*Rerender) {}),
)

// gauge joins a gauge built from the re-render to the "metricsGauges" value group.
func gauge(f func(r *Rerender) observability.Gauge) any {
	return fx.Annotate(f, fx.ResultTags(`group:"metricsGauges"`))
}
