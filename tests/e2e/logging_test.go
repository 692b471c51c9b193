package e2e

import (
	"net/http"
	"sync"
	"testing"

	"folio/tests/apitest"
)

// TestEveryRequestIsLogged sends 600 requests as fast as 8 clients can, then 200 more while the
// database is gone (503 from /readyz), through the real server and the application's own logger:
// every request id has its access line, and every 5xx its error line. zap's production preset
// sampled them (100 lines of one message a second, then every 100th), so most were lost.
func TestEveryRequestIsLogged(t *testing.T) {
	for _, kind := range apitest.Databases {
		t.Run(kind, func(t *testing.T) {
			s, logs := apitest.StartLogged(t, kind)
			key := s.NewKey(t, s.NewUser(t, "Logged"), 3)

			burst := func(n int, req func(i int) apitest.Response) []string {
				ids := make([]string, n)
				var wg sync.WaitGroup
				next := make(chan int)
				for range 8 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := range next {
							ids[i] = req(i).Header.Get("X-Request-Id")
						}
					}()
				}
				for i := range n {
					next <- i
				}
				close(next)
				wg.Wait()
				return ids
			}
			served := burst(600, func(i int) apitest.Response {
				if i%2 == 0 {
					return s.Get(t, key, "/notebooks")
				}
				return s.Get(t, key, "/notes/nosuchnote") // 4xx lines count too
			})

			sqlDB, err := s.DB.DB()
			if err != nil {
				t.Fatal(err)
			}
			_ = sqlDB.Close()
			failed := burst(200, func(int) apitest.Response {
				r := s.Get(t, "", "//readyz")
				if r.Status != http.StatusServiceUnavailable {
					t.Errorf("readyz without a database: %d %s", r.Status, r.Body)
				}
				return r
			})

			access, errorLines := map[string]int{}, map[string]int{}
			for _, l := range logs.Lines(t) {
				id, _ := l["requestId"].(string)
				switch l["msg"] {
				case "request":
					access[id]++
				case "request failed":
					errorLines[id]++
				}
			}
			lost := 0
			for _, id := range append(served, failed...) {
				if id == "" || access[id] != 1 {
					lost++
				}
			}
			if lost > 0 {
				t.Errorf("%d of %d requests have no access line (or more than one)", lost, len(served)+len(failed))
			}
			lost = 0
			for _, id := range failed {
				if errorLines[id] != 1 {
					lost++
				}
			}
			if lost > 0 {
				t.Errorf("%d of %d 503 answers have no error line (or more than one)", lost, len(failed))
			}
		})
	}
}
