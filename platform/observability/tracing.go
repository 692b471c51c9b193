package observability

import (
	"context"
	"fmt"

	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/contrib/instrumentation/github.com/gin-gonic/gin/otelgin"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"gorm.io/gorm"

	"folio/platform/db"
	"folio/platform/httpx"
)

// ServiceName is the service.name of folio's spans unless OTEL_SERVICE_NAME (or
// OTEL_RESOURCE_ATTRIBUTES) says otherwise.
const ServiceName = "folio"

// RequestIDAttribute is the server span's attribute holding the request id (the X-Request-Id
// response header, the requestId of the logs and of error envelopes).
const RequestIDAttribute = "folio.request_id"

// TracingRequested reports whether the environment names an OTLP endpoint for traces
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), and the SDK is not
// disabled (OTEL_SDK_DISABLED=true). getenv is os.Getenv outside tests.
func TracingRequested(getenv func(string) string) bool {
	if getenv("OTEL_SDK_DISABLED") == "true" {
		return false
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Tracing exports spans over OTLP/HTTP. The exporter reads the standard OTEL_EXPORTER_OTLP_*
// variables itself (endpoint, headers, timeout, compression), the batch processor OTEL_BSP_*, the
// sampler OTEL_TRACES_SAMPLER(_ARG), and the resource OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES.
//
// Nothing is set process-wide (otel.SetTracerProvider): the provider and the W3C trace-context
// propagator are handed to the gin and GORM instrumentation directly, so two applications in one
// process (the tests) keep their spans apart. The one global is otel's error handler, which
// sends export failures to the log.
type Tracing struct {
	provider   *sdktrace.TracerProvider
	propagator propagation.TextMapPropagator
}

// NewTracing builds the exporter and the tracer provider. Nothing is sent before the first span
// ends; an unreachable collector costs a logged error per failed batch, never a request.
func NewTracing(ctx context.Context, log *zap.Logger) (*Tracing, error) {
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	// Later options win: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override service.name.
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", ServiceName)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, fmt.Errorf("OTEL resource: %w", err)
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("OpenTelemetry", zap.Error(err))
	}))
	return &Tracing{
		provider:   sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)),
		propagator: propagation.TraceContext{},
	}, nil
}

// TracerProvider is the provider spans are made with.
func (t *Tracing) TracerProvider() trace.TracerProvider { return t.provider }

// Middleware returns the request middleware: otelgin's server span (continuing a trace from the
// traceparent header; named and labelled with the route template, with the HTTP semantic
// conventions' attributes), then annotateSpan.
func (t *Tracing) Middleware() []gin.HandlerFunc {
	return []gin.HandlerFunc{
		otelgin.Middleware(ServiceName,
			otelgin.WithTracerProvider(t.provider),
			otelgin.WithPropagators(t.propagator),
			otelgin.WithMeterProvider(noop.NewMeterProvider()), // metrics are Prometheus's job
		),
		annotateSpan,
	}
}

// annotateSpan puts the request id on the server span, and replaces its url.path by the path as
// the access log writes it: an API key a client put into the path is redacted (httpx.RedactKeys).
// The id is set by httpx's request id middleware, which runs after the observers, so it is read
// once the chain has run. (otelgin records no query string, which may hold what a user searched
// for.)
func annotateSpan(c *gin.Context) {
	span := trace.SpanFromContext(c.Request.Context())
	path := c.Request.URL.Path
	c.Next()
	if !span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{attribute.String("url.path", httpx.RedactKeys(path))}
	if id := httpx.RequestID(c); id != "" {
		attrs = append(attrs, attribute.String(RequestIDAttribute, id))
	}
	span.SetAttributes(attrs...)
}

// InstrumentDB makes every statement on gdb a client span, a child of the request's span when the
// statement runs with the request's context: GORM's through traceGORM, the hot reads sent natively
// (db.Query) through db.ObserveNative. The span carries the parameterised SQL, never the bound
// values (as the slow-query log), and no pool metrics (Prometheus has them).
func (t *Tracing) InstrumentDB(gdb *gorm.DB) error {
	tracer := t.provider.Tracer("folio/platform/db")
	if err := traceGORM(gdb, tracer); err != nil {
		return err
	}
	return db.ObserveNative(gdb, func(ctx context.Context, sql string, _ []any) func(error) {
		_, span := tracer.Start(ctx, "db.native", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
			attribute.String("db.system.name", "postgresql"), attribute.String("db.query.text", sql)))
		return func(err error) { endDBSpan(span, err) }
	})
}

// endDBSpan records a statement's error on its span, if any, and ends the span.
func endDBSpan(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// Shutdown flushes the spans not yet exported and stops the exporter.
func (t *Tracing) Shutdown(ctx context.Context) error { return t.provider.Shutdown(ctx) }
