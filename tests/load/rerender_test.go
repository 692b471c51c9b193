package load

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"folio/platform/httpx"
	"folio/tests/testenv"
)

// rerenderClients is how many clients read from the server while it re-renders.
const rerenderClients = 8

// BenchmarkRerender measures the re-render of stored texts (issue 35, modules/document) at each
// scenario's size: every note's text is made stale, as the migration that added the columns left
// the rows older than it (content_markdown empty, content_codec 0), then the real binary serves the
// database as a child process. Its re-render starts with it and writes the texts in the
// background while rerenderClients clients read single notes and random pages (targets get and
// list-cursor, alternately, in 2-second rounds); after it is done the same clients read again,
// as many rounds (5 to 15). It reports the re-render's time and rows per second, and the reads' req/s, p50 and p99
// during and after. The texts are then checked: every note current, the child's counter equal
// to the notes re-rendered.
//
//	FOLIO_TEST_DATABASE_URL=... go test ./tests/load -run '^$' -bench 'Rerender/notes=1M' -benchtime 1x -timeout 60m
func BenchmarkRerender(b *testing.B) {
	bin := testenv.FolioBinary(b)
	for _, sc := range Scenarios {
		b.Run(sc.Name, func(b *testing.B) {
			s := startServer(b)
			d := Seed(b, s, sc)
			t0 := time.Now()
			for _, stmt := range []string{"UPDATE notes SET content_markdown = '', content_codec = 0", "VACUUM ANALYZE notes"} {
				if err := s.DB.Exec(stmt).Error; err != nil {
					b.Fatal(err)
				}
			}
			b.Logf("%d notes made stale in %v", sc.Total, time.Since(t0).Round(time.Millisecond))
			var targets []Target
			for _, tgt := range Targets(d) {
				if tgt.Name == "get" || tgt.Name == "list-cursor" {
					targets = append(targets, tgt)
				}
			}
			b.ResetTimer()
			start := time.Now()
			ch := serveChild(b, bin, s.Config)
			c := newClient(s, d.Key, rerenderClients)
			c.base = ch.url + httpx.APIBase
			b.Cleanup(c.Close)
			read := func() Result {
				var all Result
				for _, tgt := range targets {
					// At most a second of requests: drive sizes its latency buffers by the count.
					r := drive(c, rerenderClients, 1<<16, tgt, time.Now().Add(time.Second))
					if r.Errors > 0 {
						b.Fatalf("%d of %d reads failed; first: %s", r.Errors, r.N, r.FirstErr)
					}
					all.N += r.N
					all.Elapsed += r.Elapsed
					all.Lat = append(all.Lat, r.Lat...)
				}
				return all
			}
			var during, after Result
			rounds := 0
			for ch.metrics(b)["folio_documents_rerender_pending"] != 0 {
				r := read()
				during.N, during.Elapsed, during.Lat = during.N+r.N, during.Elapsed+r.Elapsed, append(during.Lat, r.Lat...)
				rounds++
				if time.Since(start) > 30*time.Minute {
					b.Fatal("the re-render took more than 30 minutes")
				}
			}
			took := time.Since(start)
			b.StopTimer()
			for range min(max(rounds, 5), 15) { // up to 30 s of the same reads after
				r := read()
				after.N, after.Elapsed, after.Lat = after.N+r.N, after.Elapsed+r.Elapsed, append(after.Lat, r.Lat...)
			}
			var stale int64
			if err := s.DB.Raw("SELECT count(*) FROM notes WHERE content_codec <> 1").Row().Scan(&stale); err != nil {
				b.Fatal(err)
			}
			written := ch.metrics(b)["folio_documents_rerendered"]
			if stale != 0 || int(written) != sc.Total {
				b.Fatalf("after the re-render: %d notes stale, %v texts written, want 0 and %d", stale, written, sc.Total)
			}
			sortLat(&during)
			sortLat(&after)
			b.ReportMetric(took.Seconds(), "rerender_s")
			b.ReportMetric(float64(sc.Total)/took.Seconds(), "rows/s")
			for _, m := range []struct {
				name string
				r    Result
			}{{"during", during}, {"after", after}} {
				if m.r.N == 0 {
					continue
				}
				b.ReportMetric(m.r.RPS(), m.name+"_req/s")
				b.ReportMetric(float64(m.r.Percentile(50).Microseconds())/1000, m.name+"_p50_ms")
				b.ReportMetric(float64(m.r.Percentile(99).Microseconds())/1000, m.name+"_p99_ms")
			}
			b.Logf("re-rendered %d notes in %v while %d clients read (%s)", sc.Total, took.Round(time.Second), rerenderClients,
				fmt.Sprintf("%d reads during, %d after", during.N, after.N))
		})
	}
}

// sortLat sorts r's latencies, gathered from several runs.
func sortLat(r *Result) { slices.Sort(r.Lat) }
