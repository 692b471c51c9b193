package e2e

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/tests/apitest"
	"folio/tests/testenv"
)

// TestWebhooksSurviveKillAndDeliverOnce runs the real binary: an instance gets writes whose
// deliveries fail (503) and is killed with SIGKILL while they wait for their retries; two new
// instances on the same database then deliver every event, and each event is answered 200
// exactly once (no attempt is worked by both instances). On SQLite (two processes on one file)
// and PostgreSQL.
//
// A job the killed instance was working is given back after FOLIO_WEBHOOK_RESCUE_AFTER, checked
// by River's rescuer on the new leader, which is elected only once the dead one's lease has run
// out (10 to 15 s after the kill) and looks first when it starts, then every 30 s. With the
// default 30 s that first look is too early and the test waited for the second; 9 s (jobs cut
// off at 6 s, far more than a loopback receiver needs) lets the first look take them over.
func TestWebhooksSurviveKillAndDeliverOnce(t *testing.T) {
	// Parallel: it mostly waits (see "Parallel tests" in docs/testing.md).
	t.Parallel()
	bin := testenv.FolioBinary(t)
	apitest.EachDB(t, func(t *testing.T, kind string) {
		t.Parallel() // the two databases' installs share nothing: both wait at once
		env, key := installFolio(t, bin, kind, "FOLIO_WEBHOOK_RETRY_BASE=300ms", "FOLIO_WEBHOOK_RESCUE_AFTER=9s")

		var mu sync.Mutex
		failing := true
		ok := map[string]int{} // event id -> 200 answers
		rcv := newReceiverFunc(t, func(d delivery) int {
			mu.Lock()
			defer mu.Unlock()
			if failing {
				return http.StatusServiceUnavailable
			}
			ok[d.headers["webhook-id"]]++
			return http.StatusOK
		})

		a := startServe(t, bin, env)
		c := rawClient{url: a.url, key: key}
		c.must(t, "POST", "/webhooks", map[string]any{"url": rcv.URL, "events": []string{"note.created"}}, http.StatusCreated)
		nb := c.must(t, "POST", "/notebooks", map[string]any{"name": "N"}, http.StatusCreated)["id"].(string)
		const notes = 10
		for i := range notes {
			c.must(t, "POST", "/notes", map[string]any{"content": strings.Repeat("n", i+1), "notebookId": nb}, http.StatusCreated)
		}
		rcv.wait(t, notes) // every event attempted at least once, and failed
		if err := a.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-a.done
		killed := time.Now()
		mu.Lock()
		failing = false
		mu.Unlock()

		b, b2 := startServe(t, bin, env), startServe(t, bin, env)
		events := rawClient{url: b.url, key: key}.must(t, "GET", "/events?types=note.created&limit=100", nil, http.StatusOK)["data"].([]any)
		if len(events) != notes {
			t.Fatalf("%d note.created events, want %d", len(events), notes)
		}
		deadline := time.Now().Add(3 * time.Minute)
		for {
			mu.Lock()
			done := len(ok) == notes
			mu.Unlock()
			if done {
				t.Logf("every event delivered %v after the kill", time.Since(killed).Round(100*time.Millisecond))
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after the kill, %d of %d events delivered:\n%s\n%s", len(ok), notes, b.stderr(), b2.stderr())
			}
			time.Sleep(100 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, e := range events {
			id := e.(map[string]any)["id"].(string)
			if ok[id] != 1 {
				t.Errorf("event %s answered 200 %d times, want once", id, ok[id])
			}
		}
	})
}

// newReceiverFunc is a receiver whose answer status answer decides.
func newReceiverFunc(t *testing.T, answer func(delivery) int) *receiver {
	r := newReceiver(t)
	r.Config.Handler = wrapAnswer(r, answer)
	return r
}

func wrapAnswer(r *receiver, answer func(delivery) int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		d := delivery{headers: map[string]string{"webhook-id": req.Header.Get("webhook-id")}}
		status := answer(d)
		d.status = status
		r.mu.Lock()
		r.got = append(r.got, d)
		r.mu.Unlock()
		w.WriteHeader(status)
		select {
		case r.ready <- struct{}{}:
		default:
		}
	})
}

// rawClient speaks to a real `folio serve` (not through apitest.Server).
type rawClient struct{ url, key string }

func (c rawClient) must(t *testing.T, method, path string, body any, status int) map[string]any {
	t.Helper()
	var rd *strings.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = strings.NewReader(string(raw))
	} else {
		rd = strings.NewReader("")
	}
	req, err := http.NewRequest(method, c.url+"/api/v1"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != status {
		t.Fatalf("%s %s: %d %v", method, path, resp.StatusCode, out)
	}
	return out
}

var _ = apitest.Must

// installFolio prepares an install of the real binary for kind (a fresh SQLite file or an empty
// PostgreSQL database), with the base environment env and the webhook switches every test of a
// real install needs, and a user ann@example.com with a read+write key: the environment to start
// instances with, and the key.
func installFolio(t *testing.T, bin, kind string, env ...string) ([]string, string) {
	t.Helper()
	env = append([]string{"FOLIO_WEBHOOK_ALLOW_INSECURE=true", "FOLIO_WEBHOOK_ALLOW_PRIVATE=true", "FOLIO_RATE_LIMIT=100000", "FOLIO_LOG_LEVEL=warn"}, env...)
	if kind == "sqlite" {
		env = append(env, "FOLIO_SQLITE_PATH="+filepath.Join(t.TempDir(), "folio.db"))
	} else {
		env = append(env, "FOLIO_DATABASE_URL="+testenv.EmptyPostgresDB(t))
	}
	if _, stderr, err := runFolio(bin, env, "user", "create", "--email", "ann@example.com", "--name", "Ann"); err != nil {
		t.Fatalf("user create: %v %s", err, stderr)
	}
	out, stderr, err := runFolio(bin, env, "key", "create", "--email", "ann@example.com", "--name", "k", "--scope", "3")
	if err != nil {
		t.Fatalf("key create: %v %s", err, stderr)
	}
	return env, strings.TrimSpace(out)
}
