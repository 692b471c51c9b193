package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"folio/platform/auth"
	"folio/platform/config"
)

// BenchmarkWebhookWrites measures POST /notes with 0 and with 3 webhooks subscribed (a receiver
// on loopback, in this process), and with 3 the delivery lag: from the event's createdAt to the
// receiver's arrival, p50 and p99, over every delivery of the run. Deliveries are enqueued after
// the write has committed (by the events sequencer), so the write path should not change.
func BenchmarkWebhookWrites(b *testing.B) {
	conc := concurrency()
	for _, hooks := range []int{0, 3} {
		b.Run(fmt.Sprintf("webhooks=%d", hooks), func(b *testing.B) {
			s := startServer(b, func(c *config.Config) { c.WebhookAllowInsecure, c.WebhookAllowPrivate = true, true })
			user := s.NewUser(b, "Ann")
			key := s.NewKey(b, user, auth.ScopeReadWrite)
			c := newClient(s, key, conc)
			defer c.Close()
			var mu sync.Mutex
			var lags []time.Duration
			rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				arrived := time.Now()
				var ev struct {
					CreatedAt time.Time `json:"createdAt"`
				}
				body, _ := io.ReadAll(r.Body)
				_ = json.Unmarshal(body, &ev)
				mu.Lock()
				lags = append(lags, arrived.Sub(ev.CreatedAt))
				mu.Unlock()
			}))
			defer rcv.Close()
			nb := postJSON(b, c, "/notebooks", map[string]any{"name": "Load"})
			for range hooks {
				postJSON(b, c, "/webhooks", map[string]any{"url": rcv.URL, "events": []string{"note.created"}})
			}
			tgt := Target{Name: "create", Method: http.MethodPost, Status: http.StatusCreated, Req: func(i int) (string, []byte) {
				body, _ := json.Marshal(map[string]string{"content": fmt.Sprintf("Note %d of the load run.\n\n%s", i, createMarkdown), "notebookId": nb})
				return "/notes", body
			}}
			if b.N >= 1000 {
				waitQuiet(b)
			}
			warm := Warm(c, conc, tgt)
			b.ResetTimer()
			r := Drive(c, conc, b.N, tgt)
			b.StopTimer()
			if r.Errors > 0 {
				b.Fatalf("%d of %d requests failed; first: %s", r.Errors, r.N, r.FirstErr)
			}
			b.ReportMetric(r.RPS(), "req/s")
			b.ReportMetric(float64(r.Percentile(50))/1e6, "p50_ms")
			b.ReportMetric(float64(r.Percentile(99))/1e6, "p99_ms")
			if hooks == 0 {
				return
			}
			want := hooks * (warm.N + r.N)
			deadline := time.Now().Add(5 * time.Minute)
			for {
				mu.Lock()
				n := len(lags)
				mu.Unlock()
				if n >= want {
					break
				}
				if time.Now().After(deadline) {
					b.Fatalf("%d of %d deliveries after 5 minutes", n, want)
				}
				time.Sleep(50 * time.Millisecond)
			}
			mu.Lock()
			defer mu.Unlock()
			slices.Sort(lags)
			b.ReportMetric(float64(percentile(lags, 50))/1e6, "lag_p50_ms")
			b.ReportMetric(float64(percentile(lags, 99))/1e6, "lag_p99_ms")
		})
	}
}

// postJSON sends a POST that must answer 201 and returns the new resource's id.
func postJSON(b *testing.B, c *Client, path string, body any) string {
	b.Helper()
	raw, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPost, c.base+path, bytes.NewReader(raw))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		ID string `json:"id"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusCreated {
		b.Fatalf("POST %s: %d", path, resp.StatusCode)
	}
	return out.ID
}
