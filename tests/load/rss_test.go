package load

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/platform/config"
	"folio/platform/httpx"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

// Issue 17 bounds the server's resident memory under load with 1M notes (100 MiB), whatever the
// table size. BenchmarkNotesAPI runs the server in the harness's own process, so its rss_MiB also
// counts the load generator, the test framework and the contract checker. BenchmarkServerRSS
// measures the server alone: the real binary as a child process, on the database the in-process
// server migrated and seeded, driven over loopback by the same clients.

// rssTargets are the requests BenchmarkServerRSS loads the child with, in this order; then the
// list again as list-gzip, from clients that accept gzip.
var rssTargets = []string{"get", "list", "list-cursor", "list-notebook", "search", "list-tag", "create"}

// ChildEnvEnv holds extra NAME=VALUE settings, separated by spaces, for BenchmarkServerRSS's child
// (after the harness's own, so they win): a measurement of a setting the harness does not set,
// such as FOLIO_RENDER_CACHE_MB=0 or GOGC=50.
const ChildEnvEnv = "FOLIO_LOAD_CHILD_ENV"

// rssSampleEvery is how often the child's resident set is read during a target's load.
const rssSampleEvery = 100 * time.Millisecond

// childMetrics are the child's Prometheus series a target reports (in MiB when in bytes), when the
// child serves them: its Go heap in use, the caches' sizes, and the texts it re-rendered (none: the seed writes them).
var childMetrics = []struct{ series, unit string }{
	{"go_memstats_heap_inuse_bytes", "heap_inuse_MiB"},
	{"folio_documents_rerendered", "rerendered"},
	{"folio_auth_cache_entries", "auth_cache_entries"},
	{"folio_ratelimit_keys", "ratelimit_keys"},
}

// BenchmarkServerRSS measures the resident memory of `folio serve` alone (issue 17) on each
// scenario: the in-process server migrates and seeds the database, then the real binary (built
// once per run) serves it as a child process, configured as startServer configures the
// in-process one, and each target loads it from the run's client goroutines. Per target it
// reports the child's peak VmRSS during the load (sampled every 100 ms, warm-up included), its
// VmRSS, RssAnon and RssFile after the load, its CPU time per request, its VmHWM so far (the peak since it started: the last target's is the
// run's), its Go heap in use and its caches' sizes (from its metrics listener).
//
//	FOLIO_TEST_DATABASE_URL=... go test ./tests/load -run '^$' -bench ServerRSS -benchtime 5s -timeout 60m
func BenchmarkServerRSS(b *testing.B) {
	conc := concurrency()
	bin := testenv.FolioBinary(b)
	for _, sc := range Scenarios {
		b.Run(sc.Name, func(b *testing.B) {
			s := startServer(b)
			d := Seed(b, s, sc)
			child, plain, gzip := serveSeeded(b, bin, s, d, conc)
			for _, load := range rssLoads(d) {
				tgt, c := load.Target, load.client(plain, gzip)
				b.Run(tgt.Name, func(b *testing.B) {
					if b.N >= 1000 { // not the short probes at the start of the b.N ramp
						waitQuiet(b)
					}
					peak := child.sampleRSS()
					Warm(c, conc, tgt)
					cpu0, _ := procCPU(child.pid)
					b.ResetTimer()
					r := Drive(c, conc, b.N, tgt)
					b.StopTimer()
					peakMiB := peak()
					cpu, _ := procCPU(child.pid)
					if r.Errors > 0 {
						b.Fatalf("%d of %d requests failed; first: %s", r.Errors, r.N, r.FirstErr)
					}
					b.ReportMetric(r.RPS(), "req/s")
					// The child's own CPU time per request (user and system, the collector's
					// included), which neighbours on a shared machine change far less than req/s.
					b.ReportMetric(float64((cpu-cpu0).Microseconds())/float64(r.N), "cpu_us/req")
					b.ReportMetric(peakMiB, "peak_rss_MiB")
					b.ReportMetric(child.statusMiB(b, "VmRSS"), "rss_MiB")
					// The part of it that is not the binary's mapped pages (which the kernel can
					// drop and read again): the Go heap, stacks and runtime.
					b.ReportMetric(child.statusMiB(b, "RssAnon"), "anon_rss_MiB")
					b.ReportMetric(child.statusMiB(b, "RssFile"), "file_rss_MiB")
					b.ReportMetric(child.statusMiB(b, "VmHWM"), "hwm_MiB")
					series := child.metrics(b)
					for _, m := range childMetrics {
						v, ok := series[m.series]
						if !ok {
							continue
						}
						if strings.HasSuffix(m.unit, "_MiB") {
							v /= 1 << 20
						}
						b.ReportMetric(v, m.unit)
					}
				})
			}
		})
	}
}

// TestServerRSS keeps BenchmarkServerRSS working in `go test ./...`, on the tiny scenario: the
// child starts on the seeded database, answers every target, and its resident set and metrics can
// be read. The binary's build is most of its time.
func TestServerRSS(t *testing.T) {
	s := startServer(t)
	d := Seed(t, s, Scenario{Name: "tiny", Total: 400, CallerNotes: 120, CallerNotebooks: 3, OtherPerNotebook: 20})
	child, plain, gzip := serveSeeded(t, testenv.FolioBinary(t), s, d, 4)
	for _, load := range rssLoads(d) {
		tgt, c := load.Target, load.client(plain, gzip)
		peak := child.sampleRSS()
		r := Drive(c, 4, 40, tgt)
		if r.Errors > 0 {
			t.Fatalf("%s: %d of %d requests failed; first: %s", tgt.Name, r.Errors, r.N, r.FirstErr)
		}
		if p := peak(); p <= 0 {
			t.Fatalf("%s: peak resident set %v MiB", tgt.Name, p)
		}
	}
	// list-gzip is measured on compressed responses (which the transport decompresses).
	req, err := http.NewRequest(http.MethodGet, gzip.base+"/notes", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+d.Key)
	resp, err := gzip.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !resp.Uncompressed {
		t.Fatal("the gzip client's list was not gzip-compressed")
	}
	if rss, hwm := child.statusMiB(t, "VmRSS"), child.statusMiB(t, "VmHWM"); rss <= 0 || hwm < rss {
		t.Fatalf("VmRSS %v MiB, VmHWM %v MiB", rss, hwm)
	}
	series := child.metrics(t)
	for _, m := range childMetrics {
		if _, ok := series[m.series]; !ok {
			t.Errorf("the child's metrics have no %s", m.series)
		}
	}
	// The seed writes every note's stored text: the child finds nothing to re-render, and reads
	// render nothing.
	if series["folio_documents_rerendered"] != 0 || series["folio_documents_rerender_pending"] != 0 {
		t.Errorf("the child re-rendered %v texts (pending %v) on a seed whose texts are current",
			series["folio_documents_rerendered"], series["folio_documents_rerender_pending"])
	}
}

// rssLoad is a target and whether its clients accept gzip.
type rssLoad struct {
	Target
	gzip bool
}

func (l rssLoad) client(plain, gzip *Client) *Client {
	if l.gzip {
		return gzip
	}
	return plain
}

// rssLoads are the loads of rssTargets on d, then list-gzip. The harness's clients do not ask for
// gzip (DisableCompression), but browsers and Go's default client do, and the server then holds a
// compressor per response in flight.
func rssLoads(d Seeded) []rssLoad {
	var out []rssLoad
	var list Target
	for _, tgt := range Targets(d) {
		if containsName(rssTargets, tgt.Name) {
			out = append(out, rssLoad{Target: tgt})
		}
		if tgt.Name == "list" {
			list = tgt
		}
	}
	list.Name = "list-gzip"
	return append(out, rssLoad{Target: list, gzip: true})
}

// serveSeeded starts bin serve on s's seeded database (see serveChild) and two clients of conc
// connections to it, checked against d: plain asks for identity responses, gzip for compressed
// ones (which its transport decompresses).
func serveSeeded(t testing.TB, bin string, s *apitest.Server, d Seeded, conc int) (ch *child, plain, gzip *Client) {
	t.Helper()
	ch = serveChild(t, bin, s.Config)
	plain, gzip = newClient(s, d.Key, conc), newClient(s, d.Key, conc)
	gzip.http.Transport.(*http.Transport).DisableCompression = false
	for _, c := range []*Client{plain, gzip} {
		c.base = ch.url + httpx.APIBase
		t.Cleanup(c.Close)
		checkShape(t, c, d)
	}
	return ch, plain, gzip
}

// child is a `folio serve` process.
type child struct {
	url        string
	metricsURL string
	pid        int
	done       chan struct{}
	waitErr    error
	stderr     apitest.Logs
}

// serveChild starts bin serve on c's database (PostgreSQL, or SQLite beside a process that has it
// open too), with c's pool size, limits and log level, HTTP and
// metrics on free loopback ports, and waits until it is ready. It is killed when t ends.
func serveChild(t testing.TB, bin string, c config.Config) *child {
	t.Helper()
	addr, metricsAddr := testenv.FreeAddr(t), testenv.FreeAddr(t)
	ch := &child{url: "http://" + addr, metricsURL: "http://" + metricsAddr + "/metrics", done: make(chan struct{})}
	cmd := exec.Command(bin, "serve")
	cmd.Env = testenv.FolioEnv(append([]string{
		"FOLIO_DATABASE_URL=" + c.DatabaseURL,
		"FOLIO_SQLITE_PATH=" + c.SQLitePath, // when FOLIO_DATABASE_URL is empty
		"FOLIO_HTTP_ADDR=" + addr,
		"FOLIO_METRICS_ADDR=" + metricsAddr,
		"FOLIO_DB_MAX_OPEN_CONNS=" + strconv.Itoa(c.DBMaxOpenConns),
		"FOLIO_DB_MAX_IDLE_CONNS=" + strconv.Itoa(c.DBMaxIdleConns),
		"FOLIO_RATE_LIMIT=" + strconv.Itoa(c.RateLimit),
		"FOLIO_AUTH_FAILURE_LIMIT=" + strconv.Itoa(c.AuthFailureLimit),
		"FOLIO_NOTEBOOK_ITEM_LIMIT=" + strconv.Itoa(c.NotebookItemLimit),
		"FOLIO_LOG_LEVEL=" + c.LogLevel,
	}, strings.Fields(os.Getenv(ChildEnvEnv))...))
	cmd.Dir = t.TempDir()
	cmd.Stdout, cmd.Stderr = &ch.stderr, &ch.stderr
	testenv.StartProcess(t, cmd, ch.done, &ch.waitErr)
	ch.pid = cmd.Process.Pid
	if msg := testenv.WaitReady(ch.url, ch.done, func() string { return fmt.Sprintf("%v\n%s", ch.waitErr, ch.stderr.String()) }); msg != "" {
		t.Fatal(msg)
	}
	return ch
}

// statusMiB reads a field of the child's /proc/PID/status (VmRSS, VmHWM), in MiB.
func (ch *child) statusMiB(t testing.TB, field string) float64 {
	t.Helper()
	v, err := procStatusMiB(strconv.Itoa(ch.pid), field)
	if err != nil {
		t.Fatalf("child %d: %v (exited: %v)\n%s", ch.pid, err, ch.exited(), ch.stderr.String())
	}
	return v
}

func (ch *child) exited() bool {
	select {
	case <-ch.done:
		return true
	default:
		return false
	}
}

// sampleRSS reads the child's VmRSS every rssSampleEvery until the returned function is called,
// which returns the largest value read (MiB; 0 if none could be).
func (ch *child) sampleRSS() (peak func() float64) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var highest float64
	read := func() {
		if v, err := procStatusMiB(strconv.Itoa(ch.pid), "VmRSS"); err == nil && v > highest {
			highest = v
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(rssSampleEvery)
		defer tick.Stop()
		for {
			read()
			select {
			case <-stop:
				read()
				return
			case <-tick.C:
			}
		}
	}()
	return func() float64 {
		close(stop)
		wg.Wait()
		return highest
	}
}

// metrics scrapes the child's metrics listener: each unlabelled series' value, and for a labelled
// one the sum over its labels.
func (ch *child) metrics(t testing.TB) map[string]float64 {
	t.Helper()
	resp, err := http.Get(ch.metricsURL)
	if err != nil {
		t.Fatalf("scrape %s: %v", ch.metricsURL, err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if i := strings.IndexByte(name, '{'); i >= 0 {
			name = name[:i]
			_, rest, _ = strings.Cut(line, "} ")
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			continue
		}
		if v, err := strconv.ParseFloat(fields[0], 64); err == nil {
			out[name] += v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("scrape %s: %v", ch.metricsURL, err)
	}
	return out
}

// procStatusMiB reads a "Name: N kB" field of /proc/PID/status (pid "self" for this process), in
// MiB.
func procStatusMiB(pid, field string) (float64, error) {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err != nil {
				return 0, fmt.Errorf("%s: %q: %w", field, v, err)
			}
			return kb / 1024, nil
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%s/status", field, pid)
}
