package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"sync"
	"testing"
	"time"

	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/config"
	"folio/tests/apitest"
)

// receiver is a webhook endpoint in the test process: it keeps every delivery and answers with
// the statuses in fail first (then 200).
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	fail  []int
	got   []delivery
	ready chan struct{}
}

type delivery struct {
	headers map[string]string
	body    []byte
	status  int
}

func newReceiver(t *testing.T, fail ...int) *receiver {
	r := &receiver{fail: fail, ready: make(chan struct{}, 100)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		status := http.StatusOK
		if len(r.fail) > 0 {
			status, r.fail = r.fail[0], r.fail[1:]
		}
		r.got = append(r.got, delivery{headers: map[string]string{
			"webhook-id": req.Header.Get("webhook-id"), "webhook-timestamp": req.Header.Get("webhook-timestamp"),
			"webhook-signature": req.Header.Get("webhook-signature"),
		}, body: body, status: status})
		r.mu.Unlock()
		w.WriteHeader(status)
		select {
		case r.ready <- struct{}{}:
		default:
		}
	}))
	t.Cleanup(r.Close)
	return r
}

// wait returns the first n deliveries, failing after a minute (deliveries are polled every 200 ms).
func (r *receiver) wait(t *testing.T, n int) []delivery {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		r.mu.Lock()
		if len(r.got) >= n {
			out := append([]delivery(nil), r.got[:n]...)
			r.mu.Unlock()
			return out
		}
		r.mu.Unlock()
		select {
		case <-r.ready:
		case <-deadline:
			t.Fatalf("%d deliveries after a minute, want %d", len(r.got), n)
		}
	}
}

// verifiedByNPM checks a delivery with the npm standardwebhooks package (modules/webhooks/
// testdata/verify, pinned), not with folio's code.
func verifiedByNPM(t *testing.T, secret string, d delivery) bool {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"secret": secret, "headers": d.headers, "body": string(d.body)})
	cmd := exec.Command("node", "verify.mjs")
	cmd.Dir = "../../modules/webhooks/testdata/verify"
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Logf("standardwebhooks: %s", out)
	}
	return err == nil
}

func npmCI(t *testing.T) {
	t.Helper()
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = "../../modules/webhooks/testdata/verify"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci (Node.js and npm are needed): %v\n%s", err, out)
	}
}

// noDeliveries subscribes a webhook to a type these tests never emit (no restore route here), so
// that a webhook with a public URL never makes the server connect anywhere.
var noDeliveries = []string{"task.restored"}

func localWebhooks(c *config.Config) {
	c.WebhookAllowInsecure, c.WebhookAllowPrivate = true, true
	c.WebhookRetryBase = 100 * time.Millisecond
}

// TestWebhookDeliveries: a receiver in the test process gets the events its webhook sees, signed
// (verified by the npm standardwebhooks package), a 500 is retried with the same webhook-id, and
// the attempts are listed newest first.
func TestWebhookDeliveries(t *testing.T) {
	t.Parallel()
	npmCI(t)
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		ann := s.NewUser(t, "Ann")
		key := s.NewKey(t, ann, auth.ScopeReadWrite)
		rcv := newReceiver(t, http.StatusInternalServerError)
		created := apitest.Must(t, s.Post(t, key, "/webhooks", map[string]any{"url": rcv.URL + "/hook", "events": []string{"note.created"}, "description": "mirror"}), http.StatusCreated)
		secret, hookID := created.Str(t, "secret"), created.Str(t, "id")
		if !regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`).MatchString(secret) {
			t.Fatalf("secret %q", secret)
		}
		if got := apitest.Must(t, s.Get(t, key, "/webhooks/"+hookID), http.StatusOK).JSON(t); got["secret"] != nil || got["status"] != "active" {
			t.Fatalf("GET shows %v", got)
		}
		nb := apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "N"}), http.StatusCreated).Str(t, "id")
		note := apitest.Must(t, s.Post(t, key, "/notes", map[string]any{"content": "Hello #hook", "notebookId": nb}), http.StatusCreated)

		got := rcv.wait(t, 2) // the 500, then the retry
		for i, d := range got {
			if !verifiedByNPM(t, secret, d) {
				t.Fatalf("delivery %d: standardwebhooks refused the signature", i)
			}
			var ev map[string]any
			if err := json.Unmarshal(d.body, &ev); err != nil {
				t.Fatal(err)
			}
			if ev["type"] != "note.created" || ev["id"] != d.headers["webhook-id"] || ev["resourceId"] != note.Str(t, "id") {
				t.Fatalf("delivery %d: %s (headers %v)", i, d.body, d.headers)
			}
			sameJSON(t, "delivery", note.Body, ev["data"])
		}
		if got[0].headers["webhook-id"] != got[1].headers["webhook-id"] {
			t.Fatal("the retry is another event")
		}
		feedEvents, _ := feed(t, s, key, "", "&types=note.created")
		if len(feedEvents) != 1 || feedEvents[0]["id"] != got[0].headers["webhook-id"] {
			t.Fatalf("the delivered event is not the feed's: %v", feedEvents)
		}
		// The attempts, newest first: the success, then the 500 with its next attempt.
		var attempts []map[string]any
		for range 100 { // the attempt row is written just after the receiver answered
			attempts = apitest.Must(t, s.Get(t, key, "/webhooks/"+hookID+"/deliveries"), http.StatusOK).Data(t)
			if len(attempts) == 2 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if len(attempts) != 2 || attempts[0]["statusCode"] != 200.0 || attempts[1]["statusCode"] != 500.0 || attempts[1]["nextAttemptAt"] == nil || attempts[0]["error"] != nil {
			t.Fatalf("attempts %v", attempts)
		}
		// Nothing else was delivered: notebook.created is not subscribed.
		rcv.mu.Lock()
		n := len(rcv.got)
		rcv.mu.Unlock()
		if n != 2 {
			t.Fatalf("%d deliveries, want 2", n)
		}
		apitest.Must(t, s.Delete(t, key, "/webhooks/"+hookID), http.StatusOK)
		apitest.Must(t, s.Get(t, key, "/webhooks/"+hookID), http.StatusNotFound)
	}, localWebhooks)
}

// TestWebhookURLGuard: with the default settings, http and non-public addresses are refused at
// creation; another user's webhook is not found.
func TestWebhookURLGuard(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		ann, bob := s.NewUser(t, "Ann"), s.NewUser(t, "Bob")
		key, bobKey := s.NewKey(t, ann, auth.ScopeReadWrite), s.NewKey(t, bob, auth.ScopeReadWrite)
		for _, u := range []string{"http://93.184.216.34/hook", "https://127.0.0.1/hook", "https://[::1]/", "https://10.0.0.1/",
			"https://169.254.169.254/", "https://[fd00::1]/", "https://localhost/", "not a url"} {
			wantErr(t, s.Post(t, key, "/webhooks", map[string]any{"url": u}), 400, "VALIDATION_ERROR", "url")
		}
		wantErr(t, s.Post(t, key, "/webhooks", map[string]any{"url": "https://93.184.216.34/", "events": []string{"note.create"}}), 400, "VALIDATION_ERROR", "events")
		id := apitest.Must(t, s.Post(t, key, "/webhooks", map[string]any{"url": "https://93.184.216.34/hook", "events": noDeliveries}), http.StatusCreated).Str(t, "id")
		if list := apitest.Must(t, s.Get(t, key, "/webhooks"), http.StatusOK).Data(t); len(list) != 1 || list[0]["id"] != id {
			t.Fatalf("list %v", list)
		}
		wantErr(t, s.Get(t, bobKey, "/webhooks/"+id), 404, "WEBHOOK_NOT_FOUND")
		wantErr(t, s.Delete(t, bobKey, "/webhooks/"+id), 404, "WEBHOOK_NOT_FOUND")
		wantErr(t, s.Get(t, bobKey, "/webhooks/"+id+"/deliveries"), 404, "WEBHOOK_NOT_FOUND")
		if list := apitest.Must(t, s.Get(t, bobKey, "/webhooks"), http.StatusOK).Data(t); len(list) != 0 {
			t.Fatalf("bob lists %v", list)
		}
	})
}

// TestWebhookRedirectNotFollowed: a receiver that answers 302 gets a failed attempt with status
// 302, and the redirect's target receives nothing.
func TestWebhookRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		ann := s.NewUser(t, "Ann Redirect")
		key := s.NewKey(t, ann, auth.ScopeReadWrite)
		target := newReceiver(t)
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL+"/elsewhere", http.StatusFound)
		}))
		t.Cleanup(redirector.Close)
		hookID := apitest.Must(t, s.Post(t, key, "/webhooks", map[string]any{"url": redirector.URL + "/hook", "events": []string{"notebook.created"}}), http.StatusCreated).Str(t, "id")
		apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "N"}), http.StatusCreated)
		var attempts []map[string]any
		for range 200 {
			attempts = apitest.Must(t, s.Get(t, key, "/webhooks/"+hookID+"/deliveries"), http.StatusOK).Data(t)
			if len(attempts) > 0 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if len(attempts) == 0 || attempts[len(attempts)-1]["statusCode"] != 302.0 || attempts[len(attempts)-1]["nextAttemptAt"] == nil {
			t.Fatalf("attempts %v, want a failed one with statusCode 302 and a next attempt", attempts)
		}
		target.mu.Lock()
		defer target.mu.Unlock()
		if len(target.got) != 0 {
			t.Fatalf("the redirect was followed: the target got %d requests", len(target.got))
		}
	}, localWebhooks)
}

// TestWebhookDisabledAfterThreeDays: a webhook whose every attempt has failed for 3 days is
// disabled (and gets nothing more); a success before that starts the count again. The service
// clock is moved between attempts; the retries themselves are 1 s (then 2 s) apart in real time,
// time enough to move the clock once the previous attempt is recorded.
func TestWebhookDisabledAfterThreeDays(t *testing.T) {
	// Parallel: it mostly waits (see "Parallel tests" in docs/testing.md).
	t.Parallel()
	apitest.ForEachDBWithClock(t, time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC), func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		ann := s.NewUser(t, "Ann Failing")
		key := s.NewKey(t, ann, auth.ScopeReadWrite)
		rcv := newReceiver(t, 500, 200, 500, 500, 500, 500, 500, 500, 500, 500)
		hookID := apitest.Must(t, s.Post(t, key, "/webhooks", map[string]any{"url": rcv.URL + "/hook", "events": []string{"notebook.created"}}), http.StatusCreated).Str(t, "id")
		status := func() string {
			return apitest.Must(t, s.Get(t, key, "/webhooks/"+hookID), http.StatusOK).Str(t, "status")
		}
		// recorded waits until the webhook's n-th attempt is stored (just after the receiver answered).
		recorded := func(n int) {
			t.Helper()
			rcv.wait(t, n)
			for range 200 {
				if len(apitest.Must(t, s.Get(t, key, "/webhooks/"+hookID+"/deliveries?limit=100"), http.StatusOK).Data(t)) >= n {
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Fatalf("attempt %d was not recorded", n)
		}

		apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "one"}), http.StatusCreated)
		recorded(1) // 500 at T
		fake.Advance(48 * time.Hour)
		recorded(2) // its retry: 200 at T+48h, the failures end
		apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "two"}), http.StatusCreated)
		recorded(3) // 500 at T+48h: failing since then
		fake.Advance(48 * time.Hour)
		recorded(4) // 500 at T+96h: 48h of failures (72h since the first failure, but a success came between)
		if got := status(); got != "active" {
			t.Fatalf("after 48h of failures the webhook is %q, want active", got)
		}
		fake.Advance(25 * time.Hour)
		recorded(5) // 500 at T+121h: 73h of failures
		if got := status(); got != "disabled" {
			t.Fatalf("after 73h of failures the webhook is %q, want disabled", got)
		}
		apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "three"}), http.StatusCreated)
		time.Sleep(3 * time.Second) // the retry of "two" would come after 4 s; "three" is not queued at all
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		if len(rcv.got) != 5 {
			t.Fatalf("a disabled webhook got %d deliveries, want 5", len(rcv.got))
		}
	}, localWebhooks, func(c *config.Config) { c.WebhookRetryBase = time.Second })
}

// TestWebhookLimit: a user has at most 25 webhooks, counted over all their keys; the 26th is 403
// WEBHOOK_LIMIT_REACHED and creates nothing, also when many are created at once.
func TestWebhookLimit(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		u := s.NewUser(t, "Lena Limit")
		k1, k2 := s.NewKey(t, u, auth.ScopeReadWrite), s.NewKey(t, u, auth.ScopeReadWrite)
		body := map[string]any{"url": "https://93.184.216.34/hook", "events": noDeliveries}
		var wg sync.WaitGroup
		statuses := make([]int, 30)
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				key := k1
				if i%2 == 1 {
					key = k2
				}
				statuses[i] = s.Post(t, key, "/webhooks", body).Status
			}()
		}
		wg.Wait()
		counts := map[int]int{}
		for _, st := range statuses {
			counts[st]++
		}
		if counts[http.StatusCreated] != 25 || counts[http.StatusForbidden] != 5 {
			t.Fatalf("30 concurrent creates: %v, want 25 created and 5 refused", counts)
		}
		apitest.CheckEnvelope(t, s.Post(t, k1, "/webhooks", body), http.StatusForbidden, "WEBHOOK_LIMIT_REACHED")
		if n := len(apitest.Must(t, s.Get(t, k1, "/webhooks?limit=100"), http.StatusOK).Data(t)); n != 25 {
			t.Fatalf("%d webhooks listed, want 25", n)
		}
	})
}
