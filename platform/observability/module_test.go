package observability_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"
	"gorm.io/gorm"

	"folio/platform/auth"
	"folio/platform/config"
	"folio/platform/db"
	"folio/platform/httpx"
	"folio/platform/observability"
)

// graph is what the module gives the rest of the application.
type graph struct {
	Metrics   *observability.Metrics
	Server    *observability.MetricsServer
	Tracing   *observability.Tracing
	Observer  auth.Observer
	Observers httpx.Observers
}

// start runs the module alone, on a SQLite database, with metricsAddr as FOLIO_METRICS_ADDR and
// no OTLP endpoint; it stops when the test ends.
func start(t *testing.T, metricsAddr string) (*fxtest.App, graph) {
	t.Helper()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	c := config.Default()
	c.MetricsAddr = metricsAddr
	gdb, err := db.Open(db.Options{SQLitePath: filepath.Join(t.TempDir(), "folio.db"), MaxOpenConns: 2, MaxIdleConns: 2}, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sqlDB, err := gdb.DB(); err == nil {
			_ = sqlDB.Close()
		}
	})
	var g graph
	app := fxtest.New(t,
		fx.Supply(c, zap.NewNop(), observability.Sizes{
			AuthCache:      func() (int, int) { return 2, 1 },
			UserLimiter:    func() (int, int) { return 5, 20 },
			FailureLimiter: func() (int, int) { return 1, 8 },
		}),
		fx.Provide(func() *gorm.DB { return gdb }),
		// A module's gauge (the content module's render cache joins the same way).
		fx.Provide(observability.AsGauge(observability.Gauge{Name: "folio_test_cache_bytes", Help: "A module's cache.", Value: func() int { return 4096 }})),
		observability.Module,
		fx.Populate(&g.Metrics, &g.Server, &g.Tracing, &g.Observer, &g.Observers),
	)
	return app, g
}

// sockets counts the process's open sockets (Linux: the socket:[...] links in /proc/self/fd).
func sockets(t *testing.T) int {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("counts sockets through /proc/self/fd")
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("read /proc/self/fd: %v", err)
	}
	n := 0
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && strings.HasPrefix(target, "socket:") {
			n++
		}
	}
	return n
}

// TestMetricsOffOpensNoListener: with FOLIO_METRICS_ADDR unset, starting the module opens no
// socket, and there is no metrics server, no middleware and no guard observer.
func TestMetricsOffOpensNoListener(t *testing.T) {
	app, g := start(t, "")
	before := sockets(t)
	app.RequireStart()
	if after := sockets(t); after != before {
		t.Errorf("starting with metrics off changed the open sockets from %d to %d", before, after)
	}
	if g.Metrics != nil || g.Server != nil || g.Tracing != nil || g.Observer != nil || len(g.Observers) != 0 {
		t.Errorf("metrics and tracing off, yet the module gave %+v", g)
	}
	if addr := g.Server.Addr(); addr != "" {
		t.Errorf("metrics server listens on %q", addr)
	}
	app.RequireStop()
}

// TestMetricsOnServesRegistry: with FOLIO_METRICS_ADDR set, the listener opens at start, serves
// GET /metrics (the runtime and pool collectors and the sizes' gauges included) and nothing else,
// and closes at stop.
func TestMetricsOnServesRegistry(t *testing.T) {
	app, g := start(t, "127.0.0.1:0")
	before := sockets(t)
	app.RequireStart()
	if after := sockets(t); after != before+1 {
		t.Errorf("starting with metrics on opened %d sockets, want 1 (the listener)", after-before)
	}
	if g.Metrics == nil || g.Observer == nil || len(g.Observers) != 1 {
		t.Fatalf("metrics on, yet the module gave %+v", g)
	}
	addr := g.Server.Addr()
	if addr == "" {
		t.Fatal("metrics server has no address after start")
	}
	g.Observer.AuthFailed(auth.FailureRevoked)
	g.Observer.RateLimitDecided(auth.LimiterUser, false)
	// One request through the middleware on a templated route, one on no route.
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.Use(g.Observers...)
	e.GET("/api/v1/notes/:id", func(c *gin.Context) { c.Status(http.StatusNoContent) })
	for _, path := range []string{"/api/v1/notes/n0te1d", "/nowhere"} {
		e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
	}

	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", resp.StatusCode, body)
	}
	for _, want := range []string{
		"go_goroutines ",
		"process_open_fds ",
		`go_sql_max_open_connections{db_name="folio"} 2`,
		"folio_http_requests_in_flight 0",
		`folio_auth_failures_total{reason="revoked"} 1`,
		`folio_ratelimit_decisions_total{decision="limited",limiter="user"} 1`,
		`folio_http_requests_total{method="GET",route="/api/v1/notes/:id",status="204"} 1`,
		`folio_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`folio_http_request_duration_seconds_count{method="GET",route="/api/v1/notes/:id",status="204"} 1`,
		"folio_test_cache_bytes 4096",
		"folio_auth_cache_entries 2",
		"folio_auth_cache_negative_entries 1",
		`folio_ratelimit_keys{limiter="user"} 5`,
		`folio_ratelimit_timestamps{limiter="user"} 20`,
		`folio_ratelimit_keys{limiter="auth_failure"} 1`,
		`folio_ratelimit_timestamps{limiter="auth_failure"} 8`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics has no line %q", want)
		}
	}
	if strings.Contains(string(body), "n0te1d") {
		t.Error("a raw path became a label value")
	}
	for _, req := range []struct{ method, path string }{{"POST", "/metrics"}, {"GET", "/"}, {"GET", "/api/v1/notes"}} {
		r, _ := http.NewRequestWithContext(context.Background(), req.method, "http://"+addr+req.path, nil)
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("%s %s on the metrics listener: 200, want a refusal", req.method, req.path)
		}
	}
	checkDashboard(t, string(body))
	client.CloseIdleConnections()
	app.RequireStop()
	if _, err := client.Get("http://" + addr + "/metrics"); err == nil {
		t.Error("the metrics listener still answers after stop")
	}
}

// checkDashboard fails on a metric the sample Grafana dashboard (deploy/grafana/folio.json) queries
// that the scrape does not have: a renamed metric must not leave the dashboard empty.
func checkDashboard(t *testing.T, scrape string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", "grafana", "folio.json"))
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile(`\b(?:folio|go|process)_[a-z_]+`).FindAllString(string(raw), -1)
	if len(names) < 10 {
		t.Fatalf("the dashboard queries only %d metrics: %q", len(names), names)
	}
	for _, name := range names {
		if !regexp.MustCompile(`(?m)^# TYPE ` + strings.TrimSuffix(name, "_bucket") + ` `).MatchString(scrape) {
			t.Errorf("the dashboard queries %s, which /metrics does not have", name)
		}
	}
}
