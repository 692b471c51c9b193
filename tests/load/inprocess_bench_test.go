package load

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"

	"folio/platform/httpx"
	"folio/tests/apitest"
)

// BenchmarkReadHandlers serves the reads BenchmarkFloor measures (a single note, the first page,
// a page after a cursor) straight to folio's handler and to the floor's, in this goroutine, with
// no connection, no client and no HTTP parsing: what is left is each server's own Go and its
// statements' round trips. Its allocs/op are the server's allocations per request (and the
// benchmark's few for the request itself, alike on both sides); its cpu_us/op is this process's
// CPU time per request (getrusage), which the database's wait does not count. BenchmarkFloor's
// rounds move with whatever else the machine runs; these figures move much less, so a change to
// folio's read path shows here first.
//
//	FOLIO_TEST_DATABASE_URL=... go test ./tests/load -run '^$' -bench ReadHandlers -benchtime 5000x
func BenchmarkReadHandlers(b *testing.B) { benchHandlers(b, "get", "list", "list-cursor") }

// BenchmarkWriteHandlers is BenchmarkReadHandlers for BenchmarkFloor's creates: each side's Go
// and allocations per POST /notes, the statements' round trips included, without a client.
//
//	FOLIO_TEST_DATABASE_URL=... go test ./tests/load -run '^$' -bench WriteHandlers -benchtime 5000x
func BenchmarkWriteHandlers(b *testing.B) { benchHandlers(b, "create", "create-1notebook") }

// benchHandlers serves the targets named, one side then the other, in this goroutine.
func benchHandlers(b *testing.B, names ...string) {
	var engine *gin.Engine
	c := apitest.Config(b, "postgres")
	c.RateLimit, c.AuthFailureLimit, c.NotebookItemLimit = 1<<30, 1<<30, 1<<30
	c.LogLevel = "error"
	s := apitest.StartWith(b, c, fx.Populate(&engine))
	d := Seed(b, s, Scenarios[0])
	f := startFloor(b, s.Config, s.Config.DBMaxOpenConns, map[string]floorCaller{d.Key: floorCallerOf(b, s, d.Key)})
	folio, err := httpx.Compress(engine)
	if err != nil {
		b.Fatal(err)
	}
	handlers := []struct {
		name string
		h    http.Handler
	}{{"folio", folio}, {"floor", f.srv.Config.Handler}}
	for _, tgt := range Targets(d) {
		if !slices.Contains(names, tgt.Name) {
			continue
		}
		for _, side := range handlers {
			b.Run(tgt.Name+"/"+side.name, func(b *testing.B) {
				serve := func(i int) {
					path, body := tgt.Req(i)
					var r *http.Request
					if body == nil {
						r = httptest.NewRequest(tgt.Method, httpx.APIBase+path, nil)
					} else {
						r = httptest.NewRequest(tgt.Method, httpx.APIBase+path, bytes.NewReader(body))
						r.Header.Set("Content-Type", "application/json")
					}
					r.Header.Set("Authorization", "Bearer "+d.Key)
					w := discardWriter{header: http.Header{}}
					side.h.ServeHTTP(&w, r)
					if w.status != tgt.Status {
						b.Fatalf("%s %s: status %d", side.name, path, w.status)
					}
				}
				for i := range 200 { // warm: the key cache, the statement caches
					serve(i)
				}
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := processCPU()
				for i := range b.N {
					serve(i)
				}
				b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu_us/op")
			})
		}
	}
}

// discardWriter is a ResponseWriter that keeps the status and drops the body.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header { return w.header }

func (w *discardWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(p), nil
}
