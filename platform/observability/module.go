package observability

import (
	"context"
	"os"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"gorm.io/gorm"

	"folio/platform/auth"
	"folio/platform/config"
	"folio/platform/httpx"
)

// Module provides the metrics (*Metrics, nil when FOLIO_METRICS_ADDR is unset), their listener
// (*MetricsServer), the tracing (*Tracing, nil unless an OTLP endpoint is set), the API guard's
// auth.Observer and the engine's httpx.Observers.
//
// The listener and the tracer provider are built only with the HTTP engine (they hang off
// httpx.Observers), so an operator command (folio migrate, folio key ...) never opens the metrics
// port, which the running server holds, and sends no spans.
var Module = fx.Module("observability",
	fx.Provide(
		newMetrics,
		newMetricsServer,
		newTracing,
		newAuthObserver,
		newObservers,
	),
)

type metricsParams struct {
	fx.In
	Config config.Config
	DB     *gorm.DB
	Sizes  Sizes   `optional:"true"`       // the caches' and limiters' sizes, from the platform
	Gauges []Gauge `group:"metricsGauges"` // the modules' (AsGauge)
}

func newMetrics(p metricsParams) (*Metrics, error) {
	if p.Config.MetricsAddr == "" {
		return nil, nil
	}
	sqlDB, err := p.DB.DB()
	if err != nil {
		return nil, err
	}
	return NewMetrics(sqlDB, p.Sizes, p.Gauges...)
}

func newMetricsServer(lc fx.Lifecycle, c config.Config, m *Metrics, log *zap.Logger) *MetricsServer {
	if m == nil {
		return nil
	}
	s := NewMetricsServer(m, c.MetricsAddr, log.Named("metrics"))
	lc.Append(fx.Hook{OnStart: s.Start, OnStop: s.Stop})
	return s
}

func newTracing(lc fx.Lifecycle, gdb *gorm.DB, log *zap.Logger) (*Tracing, error) {
	if !TracingRequested(os.Getenv) {
		return nil, nil
	}
	t, err := NewTracing(context.Background(), log.Named("otel"))
	if err != nil {
		return nil, err
	}
	if err := t.InstrumentDB(gdb); err != nil {
		return nil, err
	}
	// Registered after the database's stop hook, so it runs before the pool closes; and before
	// the HTTP server's, so it runs after the last request is drained. It flushes the last spans.
	lc.Append(fx.StopHook(t.Shutdown))
	log.Named("otel").Info("tracing on: spans are exported over OTLP/HTTP")
	return t, nil
}

// newAuthObserver hands the metrics to the API guard; nil (the interface, not a nil *Metrics)
// when metrics are off.
func newAuthObserver(m *Metrics) auth.Observer {
	if m == nil {
		return nil
	}
	return m
}

// newObservers orders the request middleware: metrics first (its duration includes the tracing),
// then the server span and the request id on it.
func newObservers(m *Metrics, _ *MetricsServer, t *Tracing) httpx.Observers {
	var out httpx.Observers
	if m != nil {
		out = append(out, m.Middleware())
	}
	if t != nil {
		out = append(out, t.Middleware()...)
	}
	return out
}
