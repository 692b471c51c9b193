package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"folio/platform/auth"
	"folio/platform/config"
	"folio/platform/httpx"
	"folio/tests/apitest"
)

// Environment variables that change a run (all optional).
const (
	// ConcurrencyEnv sets the number of client goroutines (default 32).
	ConcurrencyEnv = "FOLIO_LOAD_CONCURRENCY"
	// DBConnsEnv sets the server's connection pool size (default: config.Default(), as deployed).
	DBConnsEnv = "FOLIO_LOAD_DB_CONNS"
	// QuietEnv, a number of cores such as 0.2, makes each measurement wait (at most QuietWaitEnv,
	// default 5m) until the rest of the machine uses less than that: on a shared machine the
	// figures are otherwise as much about the neighbours as about folio.
	QuietEnv     = "FOLIO_LOAD_QUIET_CORES"
	QuietWaitEnv = "FOLIO_LOAD_QUIET_WAIT"
)

// waitQuiet waits, when QuietEnv asks for it, until the machine's other processes use less than
// that many cores (measured over 2 s while this process is idle), or until the wait runs out.
func waitQuiet(t testing.TB) {
	limit, err := strconv.ParseFloat(os.Getenv(QuietEnv), 64)
	if err != nil || limit <= 0 {
		return
	}
	wait, err := time.ParseDuration(os.Getenv(QuietWaitEnv))
	if err != nil {
		wait = 5 * time.Minute
	}
	deadline := time.Now().Add(wait)
	for {
		b0, c0 := machineBusy(), processCPU()
		time.Sleep(2 * time.Second)
		other := (machineBusy() - b0 - (processCPU() - c0)).Seconds() / 2
		if other < limit {
			return
		}
		if time.Now().After(deadline) {
			t.Logf("the machine is still busy (%.2f other cores) after %v; measuring anyway", other, wait)
			return
		}
	}
}

const defaultConcurrency = 32

func concurrency() int {
	if n, err := strconv.Atoi(os.Getenv(ConcurrencyEnv)); err == nil && n > 0 {
		return n
	}
	return defaultConcurrency
}

// startServer starts the real application on a fresh migrated PostgreSQL database, as deployed
// (default pool size) except that the rate limit and the notebook item limit are out of the way
// and logs are at error level.
func startServer(t testing.TB, opts ...apitest.Option) *apitest.Server {
	t.Helper()
	return startServerOn(t, "postgres", opts...)
}

// startServerOn is startServer on a database of kind ("sqlite": a file in the test's temporary
// directory).
func startServerOn(t testing.TB, kind string, opts ...apitest.Option) *apitest.Server {
	t.Helper()
	c := apitest.Config(t, kind)
	def := config.Default()
	c.DBMaxOpenConns, c.DBMaxIdleConns = def.DBMaxOpenConns, def.DBMaxIdleConns
	if n, err := strconv.Atoi(os.Getenv(DBConnsEnv)); err == nil && n > 0 {
		c.DBMaxOpenConns, c.DBMaxIdleConns = n, n
	}
	c.RateLimit = 1 << 30
	c.AuthFailureLimit = 1 << 30
	c.NotebookItemLimit = 1 << 30
	c.LogLevel = "error"
	for _, o := range opts {
		o(&c)
	}
	return apitest.StartWith(t, c)
}

// Client speaks HTTP to the server over at most conc keep-alive connections.
type Client struct {
	base string
	key  string
	http *http.Client
}

func newClient(s *apitest.Server, key string, conc int) *Client {
	tr := &http.Transport{
		MaxIdleConns:        conc,
		MaxIdleConnsPerHost: conc,
		MaxConnsPerHost:     conc,
		IdleConnTimeout:     2 * time.Minute,
		DisableCompression:  true,
	}
	return &Client{base: s.URL + httpx.APIBase, key: key, http: &http.Client{Transport: tr, Timeout: time.Minute}}
}

// Close drops the client's idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// do sends one request to the API with the client's key and reads the whole response.
func (c *Client) do(method, path string, body []byte, idemKey string, buf *bytes.Buffer) (int, error) {
	return c.send(method, path, body, idemKey, "", buf)
}

// send is do, or, with a session token, a request for a web page (path from the server's root)
// signed in with that session's cookie instead of the key.
func (c *Client) send(method, path string, body []byte, idemKey, session string, buf *bytes.Buffer) (int, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	url := c.base + path
	if session != "" {
		url = strings.TrimSuffix(c.base, httpx.APIBase) + path
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, err
	}
	if session != "" {
		req.Header.Set("Cookie", auth.SessionCookie+"="+session)
	} else {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	buf.Reset()
	_, err = buf.ReadFrom(resp.Body)
	return resp.StatusCode, err
}

// Target is one kind of request under load: request i is req(i).
type Target struct {
	Name   string
	Method string
	Status int // the status every response must have
	Conc   int // client goroutines; 0 means the run's concurrency
	Req    func(i int) (path string, body []byte)
	// Idempotent requests carry an Idempotency-Key never sent before (so each one writes).
	Idempotent bool
	// Session, when set, makes the target a page of the web app: Req's path is from the server's
	// root, and the request is signed in with this web session's cookie instead of the key.
	Session string
}

// idemSeq numbers the Idempotency-Keys of a test binary's run.
var idemSeq atomic.Int64

// Result is one measured run.
type Result struct {
	N        int
	Elapsed  time.Duration
	Lat      []time.Duration // sorted
	Errors   int
	FirstErr string
}

// RPS is the throughput of the run.
func (r Result) RPS() float64 { return float64(r.N) / r.Elapsed.Seconds() }

// Percentile returns the p-th percentile latency (nearest rank), p in (0, 100].
func (r Result) Percentile(p float64) time.Duration { return percentile(r.Lat, p) }

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(float64(len(sorted))*p/100+0.999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// Drive sends n requests of tgt from conc goroutines, each taking the next request number as soon
// as its previous response is read (a closed loop: the load is as high as the server sustains).
func Drive(c *Client, conc, n int, tgt Target) Result { return drive(c, conc, n, tgt, time.Time{}) }

// Warm drives tgt for about a second (at most 2,000 requests): connections, caches and plans.
func Warm(c *Client, conc int, tgt Target) Result {
	return drive(c, conc, 2000, tgt, time.Now().Add(time.Second))
}

// drive is Drive that also stops taking new requests at deadline (if not zero).
func drive(c *Client, conc, n int, tgt Target, deadline time.Time) Result {
	return driveRange(c, conc, 0, n, tgt, deadline)
}

// driveRange is drive for the requests numbered from to to-1.
func driveRange(c *Client, conc, from, to int, tgt Target, deadline time.Time) Result {
	n := to - from
	var (
		next     atomic.Int64
		errs     atomic.Int64
		errOnce  sync.Once
		firstErr string
		mu       sync.Mutex
		all      = make([]time.Duration, 0, n)
		wg       sync.WaitGroup
	)
	start := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			lat := make([]time.Duration, 0, n/conc+1)
			for {
				i := from + int(next.Add(1)-1)
				if i >= to || !deadline.IsZero() && time.Now().After(deadline) {
					break
				}
				path, body := tgt.Req(i)
				var idemKey string
				if tgt.Idempotent {
					idemKey = fmt.Sprintf("load-%d", idemSeq.Add(1))
				}
				t0 := time.Now()
				status, err := c.send(tgt.Method, path, body, idemKey, tgt.Session, &buf)
				lat = append(lat, time.Since(t0))
				if err != nil || status != tgt.Status {
					errs.Add(1)
					errOnce.Do(func() {
						firstErr = fmt.Sprintf("%s %s: status %d, err %v: %.300s", tgt.Method, path, status, err, buf.String())
					})
				}
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	r := Result{N: len(all), Elapsed: time.Since(start), Lat: all, Errors: int(errs.Load()), FirstErr: firstErr}
	slices.Sort(r.Lat)
	return r
}

// Targets are the requests measured on a seeded scenario.
func Targets(d Seeded) []Target {
	note := func(i int) string { return d.VisibleIDs[(i*7919)%len(d.VisibleIDs)] }
	// createWith is a POST /notes body into notebook, with the fields of also.
	createWith := func(i int, notebook string, also map[string]string) []byte {
		// Every note is new text (its first line carries i), as real notes are: rendering the
		// response must not be a cache hit.
		body := map[string]string{"content": fmt.Sprintf("Note %d of the load run.\n\n%s", i, createMarkdown), "notebookId": notebook}
		for k, v := range also {
			body[k] = v
		}
		b, _ := json.Marshal(body)
		return b
	}
	createIn := func(i int, notebook string) []byte { return createWith(i, notebook, nil) }
	create := func(i int) []byte { return createIn(i, d.CallerNotebooks[i%len(d.CallerNotebooks)]) }
	// A create that arms a follow-up reminder (CONTRACT.md section 21), a year ahead.
	createFollowUp := func(i int) []byte {
		return createWith(i, d.CallerNotebooks[i%len(d.CallerNotebooks)], map[string]string{"followUpAt": time.Now().AddDate(1, 0, 0).UTC().Format(time.RFC3339)})
	}
	return []Target{
		{Name: "get", Method: http.MethodGet, Status: http.StatusOK,
			Req: func(i int) (string, []byte) { return "/notes/" + note(i), nil }},
		{Name: "list", Method: http.MethodGet, Status: http.StatusOK,
			Req: func(int) (string, []byte) { return "/notes", nil }},
		{Name: "list-1client", Method: http.MethodGet, Status: http.StatusOK, Conc: 1,
			Req: func(int) (string, []byte) { return "/notes", nil }},
		{Name: "list-cursor", Method: http.MethodGet, Status: http.StatusOK,
			Req: func(i int) (string, []byte) { return "/notes?cursor=" + note(i), nil }},
		{Name: "list-notebook", Method: http.MethodGet, Status: http.StatusOK,
			Req: func(i int) (string, []byte) {
				return "/notes?notebookId=" + d.CallerNotebooks[i%len(d.CallerNotebooks)], nil
			}},
		// Search (CONTRACT.md section 14): a selective text query (SearchWord matches about 100 of
		// the caller's notes) and a tag filter (a #tag on about one note in 15).
		{Name: "search", Method: http.MethodGet, Status: http.StatusOK,
			Req: func(int) (string, []byte) { return "/notes?q=" + SearchWord, nil }},
		{Name: "list-tag", Method: http.MethodGet, Status: http.StatusOK,
			Req: func(int) (string, []byte) { return "/notes?tag=" + tagNames[0], nil }},
		// A page of 100, the size of a full Focus list.
		{Name: "list-100", Method: http.MethodGet, Status: http.StatusOK,
			Req: func(int) (string, []byte) { return "/notes?limit=100", nil }},
		// The Focus view of today (UTC): the caller's targeted, follow-up and due lists.
		{Name: "focus", Method: http.MethodGet, Status: http.StatusOK,
			Req: func(int) (string, []byte) { return "/focus", nil }},
		// A Focus view of about 20 notes, the size of GET /notes' page (Seeded.Focus20).
		{Name: "focus-20", Method: http.MethodGet, Status: http.StatusOK,
			Req: func(int) (string, []byte) { return d.Focus20, nil }},
		// The web app's pages (CONTRACT.md section 23), signed in with the caller's web session, from
		// one client: the server's time for a page, without queueing behind other requests. The
		// Focus page of today in the user's zone (UTC: the seed sets none), and a note's page
		// (rendered from its stored document, with its pending suggestion and the notebooks).
		{Name: "app-focus", Method: http.MethodGet, Status: http.StatusOK, Conc: 1, Session: d.Session,
			Req: func(int) (string, []byte) { return "/app", nil }},
		{Name: "app-note", Method: http.MethodGet, Status: http.StatusOK, Conc: 1, Session: d.Session,
			Req: func(i int) (string, []byte) { return "/app/notes/" + note(i), nil }},
		{Name: "create", Method: http.MethodPost, Status: http.StatusCreated,
			Req: func(i int) (string, []byte) { return "/notes", create(i) }},
		{Name: "create-followup", Method: http.MethodPost, Status: http.StatusCreated,
			Req: func(i int) (string, []byte) { return "/notes", createFollowUp(i) }},
		// Every POST into one notebook: the notebook's item count is the one row they all update.
		{Name: "create-1notebook", Method: http.MethodPost, Status: http.StatusCreated,
			Req: func(i int) (string, []byte) { return "/notes", createIn(i, d.CallerNotebooks[0]) }},
		{Name: "create-idempotent", Method: http.MethodPost, Status: http.StatusCreated, Idempotent: true,
			Req: func(i int) (string, []byte) { return "/notes", create(i) }},
	}
}

// createMarkdown is the body of POST /notes: about 2 KB of Markdown with six tags and mentions.
var createMarkdown = func() string {
	s := `# Quarterly planning: platform and payments

Attendees: @alice @bob @carol. Notes by the **engineering manager**; see the [planning doc](https://example.com/q3).

## Context

The payments team asked for a *stable* queue before the holiday freeze. We reviewed the incident
history of the last two quarters and the on-call load, which is still too high for a team of six.

## Discussion

1. Queue migration: the new broker passed the soak test at 3x peak traffic.
2. Retry storms: client libraries need jittered backoff before we can lower timeouts.
3. Hiring: two open roles, one backend and one SRE; interviews start next month.
4. Budget: load testing tools versus building our own harness.

- Risks: the ` + "`ledger`" + ` service still depends on the old broker
- Owners: platform for the broker, payments for the client changes
- ~~Drop the legacy API~~ postponed to Q4

| Item | Owner | Due |
| --- | --- | --- |
| Broker cut-over | platform | Sep 30 |
| Client backoff | payments | Sep 15 |
| SRE hire | management | Oct 31 |

> **Why:** the freeze starts in November and the old broker is out of support in January.

> **Decision:** cut over the queue in September, behind a flag, with a one-week rollback window.

` + "```" + `
broker.migrate --dry-run --batch 500
` + "```" + `

Follow-up in two weeks. #planning #payments #platform
`
	for len(s) < 2048 {
		s += "\nMore context: the retry budget, the dashboards and the runbooks are tracked in #planning.\n"
	}
	return s
}()

// BenchmarkNotesAPI measures GET /notes/:id, GET /notes (a page of 20 notes with 3 tags each:
// first page, the same from a single client, a page after a random cursor, a page of one
// notebook) and POST /notes (about 2 KB of Markdown with tags) on each scenario, from a fixed
// number of client goroutines (32) on keep-alive connections. It reports req/s, the p50 and p99
// latencies in milliseconds, and the CPU time per request of this process (server and load
// generator) and of the database's backends.
func BenchmarkNotesAPI(b *testing.B) {
	conc := concurrency()
	for _, sc := range Scenarios {
		b.Run(sc.Name, func(b *testing.B) {
			s := startServer(b)
			dbName := databaseName(s.Config.DatabaseURL)
			d := Seed(b, s, sc)
			c := newClient(s, d.Key, conc)
			defer c.Close()
			checkShape(b, c, d)
			for _, tgt := range Targets(d) {
				b.Run(tgt.Name, func(b *testing.B) {
					conc := conc
					if tgt.Conc > 0 {
						conc = tgt.Conc
					}
					if b.N >= 1000 { // not the short probes at the start of the b.N ramp
						waitQuiet(b)
					}
					Warm(c, conc, tgt)
					cpu0, pg0, busy0 := processCPU(), pgBackends(dbName), machineBusy()
					b.ResetTimer()
					r := Drive(c, conc, b.N, tgt)
					b.StopTimer()
					cpu, pg, busy := processCPU()-cpu0, pgCPUSince(dbName, pg0), machineBusy()-busy0
					if r.Errors > 0 {
						b.Fatalf("%d of %d requests failed; first: %s", r.Errors, r.N, r.FirstErr)
					}
					b.ReportMetric(r.RPS(), "req/s")
					b.ReportMetric(float64(r.Percentile(50))/1e6, "p50_ms")
					b.ReportMetric(float64(r.Percentile(99))/1e6, "p99_ms")
					b.ReportMetric(float64(cpu.Microseconds())/float64(r.N), "go_cpu_us/req")
					// Resident memory right after the load (server, generator and their heaps):
					// issue 17's bound is 100 MiB with 1M notes.
					b.ReportMetric(residentMiB(), "rss_MiB")
					if pg > 0 {
						b.ReportMetric(float64(pg.Microseconds())/float64(r.N), "pg_cpu_us/req")
					}
					if busy > 0 {
						// What everything else on the machine took meanwhile, in cores: the
						// figures above are only comparable between runs where this is near 0.
						other := max(busy-cpu-pg, 0)
						b.ReportMetric(other.Seconds()/r.Elapsed.Seconds(), "other_cores")
					}
				})
			}
		})
	}
}

// checkShape fails the run unless the list the benchmark measures is what it claims: 20 notes,
// 3 tags each, and a next page.
func checkShape(t testing.TB, c *Client, d Seeded) {
	t.Helper()
	var buf bytes.Buffer
	status, err := c.do(http.MethodGet, "/notes", nil, "", &buf)
	if err != nil || status != http.StatusOK {
		t.Fatalf("GET /notes: %d %v: %s", status, err, buf.String())
	}
	var page struct {
		Data []struct {
			ID   string           `json:"id"`
			Tags []map[string]any `json:"tags"`
		} `json:"data"`
		NextCursor *string `json:"nextCursor"`
	}
	if err := json.Unmarshal(buf.Bytes(), &page); err != nil {
		t.Fatalf("GET /notes: %v", err)
	}
	if len(page.Data) != 20 || page.NextCursor == nil {
		t.Fatalf("GET /notes: %d notes, nextCursor %v; want 20 and a next page", len(page.Data), page.NextCursor)
	}
	for _, n := range page.Data {
		if len(n.Tags) != 3 {
			t.Fatalf("note %s has %d tags, want 3", n.ID, len(n.Tags))
		}
	}
}
