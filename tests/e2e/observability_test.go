package e2e

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"go.uber.org/fx"
	"google.golang.org/protobuf/proto"

	"folio/platform/auth"
	"folio/platform/config"
	"folio/platform/observability"
	"folio/tests/apitest"
)

// scrape reads the metrics listener's GET /metrics.
func scrape(t *testing.T, addr string) string {
	t.Helper()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", resp.StatusCode, body)
	}
	return string(body)
}

// TestMetrics starts the server with FOLIO_METRICS_ADDR on a free loopback port (port 0: the
// listener's own choice), makes requests that end in 200, 401, 404 and both kinds of 429, and
// reads the counters back from /metrics: labelled by route template (never the note's id),
// method and status, the guard's rate-limit decisions and failed authentications, the in-flight
// gauge, the database pool and the Go runtime.
func TestMetrics(t *testing.T) {
	t.Parallel()
	apitest.EachDB(t, func(t *testing.T, kind string) {
		var ms *observability.MetricsServer
		s := apitest.StartFx(t, kind, []apitest.Option{
			func(c *config.Config) { c.MetricsAddr = "127.0.0.1:0" },
			apitest.RateLimit(3), apitest.AuthFailureLimit(2),
		}, fx.Populate(&ms))
		addr := ms.Addr()
		if !strings.HasPrefix(addr, "127.0.0.1:") || addr == "127.0.0.1:0" {
			t.Fatalf("metrics listener address %q", addr)
		}
		if addr == strings.TrimPrefix(s.URL, "http://") {
			t.Fatal("metrics share the API's listener")
		}
		u := s.NewUser(t, "Mia Metrics")
		key := s.NewKey(t, u, auth.ScopeReadWrite)

		// The user's budget of 3: two writes and one read, then the read again is 429.
		nb := apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "Measured"}), http.StatusCreated).Str(t, "id")
		note := createNote(t, s, key, nb, "# Counted")
		id := note["id"].(string)
		apitest.Must(t, s.Get(t, key, "/notes/"+id), http.StatusOK)
		apitest.CheckEnvelope(t, s.Get(t, key, "/notes/"+id), http.StatusTooManyRequests, "RATE_LIMIT_EXCEEDED")

		// Failed authentications on GET /notes: no credential (not counted against the address),
		// a malformed header, then a wrong secret twice: the address's budget of 2 is spent by the
		// malformed header and the first wrong secret, so the second gets 429.
		wrong := key[:len(key)-1] + map[bool]string{true: "b", false: "a"}[strings.HasSuffix(key, "a")]
		apitest.CheckEnvelope(t, s.Get(t, "", "/notes"), http.StatusUnauthorized, "UNAUTHENTICATED")
		apitest.CheckEnvelope(t, s.Get(t, "nope", "/notes"), http.StatusUnauthorized, "UNAUTHENTICATED")
		apitest.CheckEnvelope(t, s.Get(t, wrong, "/notes"), http.StatusUnauthorized, "UNAUTHENTICATED")
		apitest.CheckEnvelope(t, s.Get(t, wrong, "/notes"), http.StatusTooManyRequests, "RATE_LIMIT_EXCEEDED")
		// A path that matches no route.
		apitest.CheckEnvelope(t, s.Get(t, key, "/no-such-thing/"+id), http.StatusNotFound, "ROUTE_NOT_FOUND")

		body := scrape(t, addr)
		for _, want := range []string{
			`folio_http_requests_total{method="POST",route="/api/v1/notebooks",status="201"} 1`,
			`folio_http_requests_total{method="POST",route="/api/v1/notes",status="201"} 1`,
			`folio_http_requests_total{method="GET",route="/api/v1/notes/:id",status="200"} 1`,
			`folio_http_requests_total{method="GET",route="/api/v1/notes/:id",status="429"} 1`,
			`folio_http_requests_total{method="GET",route="/api/v1/notes",status="401"} 3`,
			`folio_http_requests_total{method="GET",route="/api/v1/notes",status="429"} 1`,
			`folio_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
			`folio_http_request_duration_seconds_count{method="GET",route="/api/v1/notes/:id",status="200"} 1`,
			`folio_http_request_duration_seconds_bucket{method="GET",route="/api/v1/notes/:id",status="200",le="+Inf"} 1`,
			`folio_ratelimit_decisions_total{decision="allowed",limiter="user"} 3`,
			`folio_ratelimit_decisions_total{decision="limited",limiter="user"} 1`,
			`folio_ratelimit_decisions_total{decision="allowed",limiter="auth_failure"} 2`,
			`folio_ratelimit_decisions_total{decision="limited",limiter="auth_failure"} 1`,
			`folio_auth_failures_total{reason="missing"} 1`,
			`folio_auth_failures_total{reason="malformed"} 1`,
			`folio_auth_failures_total{reason="invalid"} 2`,
			"folio_http_requests_in_flight 0",
			`go_sql_open_connections{db_name="folio"} `,
			`go_sql_max_open_connections{db_name="folio"} `,
			"go_goroutines ",
			"go_memstats_heap_alloc_bytes ",
			"process_resident_memory_bytes ",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("/metrics has no line %q", want)
			}
		}
		// Cardinality: no raw path, hence no id, ever becomes a label value.
		if strings.Contains(body, id) {
			t.Errorf("/metrics holds the note id %s: a raw path became a label", id)
		}
		if t.Failed() {
			t.Logf("/metrics:\n%s", folioLines(body))
		}
	})
}

// folioLines is the folio_ part of a scrape (for a failure message).
func folioLines(body string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "folio_") && !strings.Contains(l, "_bucket{") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// otlpReceiver is an OTLP/HTTP trace receiver: it keeps every span POSTed to /v1/traces.
type otlpReceiver struct {
	mu       sync.Mutex
	resource []*commonpb.KeyValue
	spans    []*tracepb.Span
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
		http.Error(w, "not here", http.StatusNotFound)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(raw, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	for _, rs := range req.GetResourceSpans() {
		o.resource = rs.GetResource().GetAttributes()
		for _, ss := range rs.GetScopeSpans() {
			o.spans = append(o.spans, ss.GetSpans()...)
		}
	}
	o.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// find returns the spans for which match holds.
func (o *otlpReceiver) find(match func(*tracepb.Span) bool) []*tracepb.Span {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range o.spans {
		if match(s) {
			out = append(out, s)
		}
	}
	return out
}

// attr returns a span's (or resource's) attribute as a string ("" when absent).
func attr(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.GetKey() != key {
			continue
		}
		switch v := kv.GetValue().GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			return v.StringValue
		case *commonpb.AnyValue_IntValue:
			return fmt.Sprint(v.IntValue)
		default:
			return kv.GetValue().String()
		}
	}
	return ""
}

// TestTraces starts the server with OTEL_EXPORTER_OTLP_ENDPOINT naming an in-test OTLP/HTTP
// receiver and reads back the spans of GET /api/v1/notes/:id: a server span named by the route
// template with the HTTP attributes and the request id (equal to the X-Request-Id response
// header), and GORM client spans in the same trace below it. An incoming traceparent is continued.
func TestTraces(t *testing.T) {
	// Not parallel: t.Setenv sets the process's OTEL_ variables, which every server would read.
	apitest.EachDB(t, func(t *testing.T, kind string) {
		recv := &otlpReceiver{}
		collector := httptest.NewServer(recv)
		t.Cleanup(collector.Close)
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
		t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
		t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50") // milliseconds
		t.Setenv("OTEL_SERVICE_NAME", "")
		t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "")
		t.Setenv("OTEL_SDK_DISABLED", "")
		t.Setenv("OTEL_TRACES_SAMPLER", "")

		s := apitest.Start(t, kind)
		u := s.NewUser(t, "Tess Traces")
		key := s.NewKey(t, u, auth.ScopeReadWrite)
		nb := apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "Traced"}), http.StatusCreated).Str(t, "id")
		id := createNote(t, s, key, nb, "# Followed")["id"].(string)

		// A caller's trace is continued (W3C traceparent).
		const callerTrace = "4bf92f3577b34e0736a1f3a9e2c9d1a5"
		r := apitest.Must(t, s.Do(t, apitest.Request{Method: "GET", Path: "/notes/" + id, Key: key,
			Header: map[string]string{"traceparent": "00-" + callerTrace + "-00f067aa0ba902b7-01"}}), http.StatusOK)
		requestID := r.Header.Get("X-Request-Id")
		if requestID == "" {
			t.Fatal("no X-Request-Id on the response")
		}

		var server *tracepb.Span
		deadline := time.Now().Add(15 * time.Second)
		for server == nil && time.Now().Before(deadline) {
			if found := recv.find(func(sp *tracepb.Span) bool {
				return sp.GetKind() == tracepb.Span_SPAN_KIND_SERVER && attr(sp.GetAttributes(), observability.RequestIDAttribute) == requestID
			}); len(found) > 0 {
				server = found[0]
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if server == nil {
			t.Fatalf("no server span with %s=%s reached the receiver (%d spans did)", observability.RequestIDAttribute, requestID, len(recv.find(func(*tracepb.Span) bool { return true })))
		}
		if got := fmt.Sprintf("%x", server.GetTraceId()); got != callerTrace {
			t.Errorf("server span's trace id %s, want the caller's %s", got, callerTrace)
		}
		if got := server.GetName(); got != "GET /api/v1/notes/:id" {
			t.Errorf("server span name %q, want the route template", got)
		}
		for k, want := range map[string]string{
			"http.request.method":       "GET",
			"http.route":                "/api/v1/notes/:id",
			"http.response.status_code": "200",
			"url.path":                  "/api/v1/notes/" + id,
		} {
			if got := attr(server.GetAttributes(), k); got != want {
				t.Errorf("server span attribute %s = %q, want %q", k, got, want)
			}
		}
		if got := attr(recv.resource, "service.name"); got != "folio" {
			t.Errorf("resource service.name %q, want folio", got)
		}

		// GORM spans of the same request: same trace, client kind, below the server span.
		// They end before the server span, so they are in the same batch or an earlier one.
		children := recv.find(func(sp *tracepb.Span) bool {
			return bytes.Equal(sp.GetTraceId(), server.GetTraceId()) && bytes.Equal(sp.GetParentSpanId(), server.GetSpanId())
		})
		var db *tracepb.Span
		for _, c := range children {
			if c.GetKind() == tracepb.Span_SPAN_KIND_CLIENT && attr(c.GetAttributes(), "db.query.text") != "" {
				db = c
				break
			}
		}
		if db == nil {
			t.Fatalf("no GORM span below the server span (children: %d)", len(children))
		}
		wantSystem := map[string]string{"sqlite": "sqlite", "postgres": "postgresql"}[kind]
		if got := attr(db.GetAttributes(), "db.system.name"); got != wantSystem {
			t.Errorf("GORM span db.system.name = %q, want %q", got, wantSystem)
		}
		// The statement is the parameterised SQL: the note's id is a bound value, never in it.
		for _, c := range children {
			if q := attr(c.GetAttributes(), "db.query.text"); strings.Contains(q, id) {
				t.Errorf("a GORM span's SQL holds a bound value (the note id): %s", q)
			}
		}

		// A key a client put into the path is redacted on the span, as in the access log.
		secret := key[strings.LastIndex(key, "_")+1:]
		r = s.Get(t, key, "/notes/"+key)
		keyed := ""
		for deadline := time.Now().Add(15 * time.Second); keyed == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			for _, sp := range recv.find(func(sp *tracepb.Span) bool {
				return attr(sp.GetAttributes(), observability.RequestIDAttribute) == r.Header.Get("X-Request-Id")
			}) {
				keyed = attr(sp.GetAttributes(), "url.path")
			}
		}
		if keyed == "" || strings.Contains(keyed, secret) || !strings.Contains(keyed, "[REDACTED]") {
			t.Errorf("the span of a request with a key in its path has url.path %q, want the key redacted", keyed)
		}
	})
}

// TestHealth checks that the health endpoints answer without authentication.
func TestHealth(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		for _, tc := range []struct {
			path, status string
			header       map[string]string
		}{
			{"//healthz", "ok", nil},
			{"//readyz", "ready", nil},
			{"//healthz", "ok", map[string]string{"Authorization": "Bearer garbage"}},
			{"//readyz", "ready", map[string]string{"Authorization": "Bearer garbage"}},
		} {
			r := apitest.Must(t, s.Do(t, apitest.Request{Method: "GET", Path: tc.path, Header: tc.header}), http.StatusOK)
			if got := r.Str(t, "status"); got != tc.status {
				t.Fatalf("%s: status field %q, want %q", tc.path, got, tc.status)
			}
			if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("%s: Content-Type %q", tc.path, r.Header.Get("Content-Type"))
			}
		}
	})
}
