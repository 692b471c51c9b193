// Package observability is what an operator watches folio with: Prometheus metrics on a listener
// of their own (FOLIO_METRICS_ADDR) and OpenTelemetry traces exported over OTLP/HTTP (when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set). Both are off by
// default; off, neither adds a middleware, a listener or a goroutine.
package observability

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/fx"
	"go.uber.org/zap"
)

// UnmatchedRoute is the route label of a request that matched no route (404, 405): the label is
// always a route template, never the path a client sent, so a scanner cannot grow the series.
const UnmatchedRoute = "unmatched"

// Metrics are folio's Prometheus metrics, in a registry of their own (never the process-wide
// default one, so two applications in one process, as in the tests, do not collide).
type Metrics struct {
	registry     *prometheus.Registry
	requests     *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	inFlight     prometheus.Gauge
	rateLimit    *prometheus.CounterVec
	authFailures *prometheus.CounterVec
}

// Sizes reads the process's in-memory caches and limiters. Each is bounded (by entries or bytes,
// see its package); their gauges show how full they are, beside the process's resident memory.
// A nil function's gauges are left out.
type Sizes struct {
	AuthCache      func() (entries, negative int) // (*auth.Cache).Size
	UserLimiter    func() (keys, timestamps int)  // (*ratelimit.Memory).Size of the per-user limiter
	FailureLimiter func() (keys, timestamps int)  // and of the per-address authentication failures'
}

// collectors are the gauges of the sizes that are set, read at each scrape.
func (z Sizes) collectors(gauges []Gauge) []prometheus.Collector {
	var out []prometheus.Collector
	gauge := func(name, help string, labels prometheus.Labels, v func() int) {
		out = append(out, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: labels},
			func() float64 { return float64(v()) }))
	}
	for _, g := range gauges {
		gauge(g.Name, g.Help, nil, g.Value)
	}
	if f := z.AuthCache; f != nil {
		gauge("folio_auth_cache_entries", "Authenticated keys and sessions cached (bounded).", nil,
			func() int { n, _ := f(); return n })
		gauge("folio_auth_cache_negative_entries", "Unknown, revoked or expired key prefixes cached (bounded).", nil,
			func() int { _, n := f(); return n })
	}
	for limiter, f := range map[string]func() (int, int){"user": z.UserLimiter, "auth_failure": z.FailureLimiter} {
		if f == nil {
			continue
		}
		labels := prometheus.Labels{"limiter": limiter}
		gauge("folio_ratelimit_keys", "Keys (users, client addresses) the in-process rate limiter tracks: those active in about the last two windows.", labels,
			func() int { n, _ := f(); return n })
		gauge("folio_ratelimit_timestamps", "Request times the in-process rate limiter has room for, 8 bytes each (at most the limit per key).", labels,
			func() int { _, n := f(); return n })
	}
	return out
}

// Gauge is a size a module reports, read at each scrape (the content module's render cache): a
// module joins the "metricsGauges" value group with AsGauge, so the platform names none of them.
type Gauge struct {
	Name, Help string
	Value      func() int
}

// AsGauge joins the "metricsGauges" value group: fx.Provide(observability.AsGauge(g)).
func AsGauge(g Gauge) any {
	return fx.Annotate(func() Gauge { return g }, fx.ResultTags(`group:"metricsGauges"`))
}

// NewMetrics registers every metric, the Go runtime and process collectors, the statistics of the
// database pool db, the gauges of sizes and the modules' gauges in a new registry.
func NewMetrics(db *sql.DB, sizes Sizes, gauges ...Gauge) (*Metrics, error) {
	labels := []string{"route", "method", "status"}
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "folio_http_requests_total",
			Help: "HTTP requests answered, by route template, method and status code.",
		}, labels),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "folio_http_request_duration_seconds",
			Help:    "Time from the first middleware to the end of the handler chain, by route template, method and status code.",
			Buckets: prometheus.DefBuckets,
		}, labels),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "folio_http_requests_in_flight",
			Help: "HTTP requests being served right now.",
		}),
		rateLimit: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "folio_ratelimit_decisions_total",
			Help: "Rate-limit decisions of the API guard, by limiter (user: accepted requests per user; auth_failure: failed authentications per client address) and decision (allowed, limited).",
		}, []string{"limiter", "decision"}),
		authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "folio_auth_failures_total",
			Help: "Requests the API guard refused as unauthenticated, by reason (missing, malformed, invalid, expired, revoked, cross_origin).",
		}, []string{"reason"}),
	}
	for _, c := range append([]prometheus.Collector{
		m.requests, m.duration, m.inFlight, m.rateLimit, m.authFailures,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewDBStatsCollector(db, "folio"),
	}, sizes.collectors(gauges)...) {
		if err := m.registry.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Registry is the registry the metrics are in (for tests and for Handler).
func (m *Metrics) Registry() *prometheus.Registry { return m.registry }

// Handler serves the registry in the Prometheus exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

// Middleware counts and times every request. It runs first (see httpx.Observers), so refusals by
// the later middleware (401, 429, 431) are counted like handler responses. The route label is
// gin's route template (c.FullPath()), UnmatchedRoute when nothing matched.
func (m *Metrics) Middleware() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		m.inFlight.Inc()
		defer m.inFlight.Dec()
		c.Next()
		route := c.FullPath()
		if route == "" {
			route = UnmatchedRoute
		}
		values := []string{route, c.Request.Method, strconv.Itoa(c.Writer.Status())}
		m.requests.WithLabelValues(values...).Inc()
		m.duration.WithLabelValues(values...).Observe(time.Since(start).Seconds())
	}
}

// AuthFailed implements auth.Observer.
func (m *Metrics) AuthFailed(reason string) { m.authFailures.WithLabelValues(reason).Inc() }

// RateLimitDecided implements auth.Observer.
func (m *Metrics) RateLimitDecided(limiter string, allowed bool) {
	decision := "limited"
	if allowed {
		decision = "allowed"
	}
	m.rateLimit.WithLabelValues(limiter, decision).Inc()
}

// MetricsServer serves GET /metrics on FOLIO_METRICS_ADDR, apart from the API: the API's
// middleware (authentication, rate limit) does not apply, and the address is meant to be reachable
// only by the scraper. Its listener opens in the fx start hook, so a bad or taken address fails
// start-up.
type MetricsServer struct {
	srv      *http.Server
	addr     string
	listener net.Listener
	log      *zap.Logger
}

// NewMetricsServer builds the server for m on addr.
func NewMetricsServer(m *Metrics, addr string, log *zap.Logger) *MetricsServer {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	return &MetricsServer{
		srv: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 10 * time.Second,
			WriteTimeout:      30 * time.Second,
			IdleTimeout:       120 * time.Second,
		},
		addr: addr,
		log:  log,
	}
}

// Start opens the listener and serves in the background.
func (s *MetricsServer) Start(context.Context) error {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	s.listener = ln
	s.log.Info("metrics listening", zap.String("addr", ln.Addr().String()))
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("metrics server stopped", zap.Error(err))
		}
	}()
	return nil
}

// Stop closes the listener and waits for running scrapes.
func (s *MetricsServer) Stop(ctx context.Context) error { return s.srv.Shutdown(ctx) }

// Addr returns the address the server listens on ("" before Start, and when s is nil: metrics off).
func (s *MetricsServer) Addr() string {
	if s == nil || s.listener == nil {
		return ""
	}
	return s.listener.Addr().String()
}
