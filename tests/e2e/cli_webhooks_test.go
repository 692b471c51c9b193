package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"folio/tests/apitest"
	"folio/tests/testenv"
)

// TestCLIWebhooks drives the real binary beside a running `folio serve` on the same database
// (CONTRACT.md section 20): webhooks made over the API with a key are listed by `folio webhook
// list --email` (table and --json) with the key's prefix, and after `folio key revoke` as disabled
// with KEY_REVOKED; a delivery shows as the last attempt; `folio webhook delete --id` removes any
// account's webhook (gone from GET /webhooks too), and an unknown or malformed id exits non-zero
// with a message that says so.
func TestCLIWebhooks(t *testing.T) {
	t.Parallel()
	bin := testenv.FolioBinary(t)
	apitest.EachDB(t, func(t *testing.T, kind string) {
		env := []string{"FOLIO_SQLITE_PATH=" + filepath.Join(t.TempDir(), "folio.db")}
		if kind == "postgres" {
			env = []string{"FOLIO_DATABASE_URL=" + testenv.PostgresDB(t, func(url string) error {
				_, stderr, err := runFolio(bin, []string{"FOLIO_DATABASE_URL=" + url}, "migrate")
				if err != nil {
					return fmt.Errorf("folio migrate: %v: %s", err, stderr)
				}
				return nil
			})}
		}
		// The receiver is on loopback over http: allowed here as in local setups.
		env = append(env, "FOLIO_WEBHOOK_ALLOW_INSECURE=true", "FOLIO_WEBHOOK_ALLOW_PRIVATE=true")
		cliWebhooksScenario(t, bin, env)
	})
}

func cliWebhooksScenario(t *testing.T, bin string, env []string) {
	c := &cli{t: t, bin: bin, env: env}
	c.line("user", "create", "--email", "ann@example.com", "--name", "Ann")
	c.line("user", "create", "--email", "bob@example.com", "--name", "Bob")
	kept := c.line("key", "create", "--email", "ann@example.com", "--name", "kept", "--scope", "3")
	doomed := c.line("key", "create", "--email", "ann@example.com", "--name", "doomed", "--scope", "3")
	bobs := c.line("key", "create", "--email", "bob@example.com", "--name", "bob's", "--scope", "3")

	srv := startServe(t, bin, env) // killed at the test's end if it fails before the stop below
	call := func(key, method, path, body string) (int, map[string]any) {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, srv.url+"/api/v1"+path, rd)
		req.Header.Set("Authorization", "Bearer "+key)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out map[string]any
		_ = json.Unmarshal(raw, &out)
		return resp.StatusCode, out
	}
	create := func(key, body string) string {
		t.Helper()
		status, out := call(key, "POST", "/webhooks", body)
		if status != http.StatusCreated {
			t.Fatalf("POST /webhooks: %d %v", status, out)
		}
		return out["id"].(string)
	}
	rcv := newReceiver(t)
	doomedHook := create(doomed, `{"url":"`+rcv.URL+`/doomed","events":["note.created"]}`)
	keptHook := create(kept, `{"url":"`+rcv.URL+`/kept","events":["notebook.created"]}`)
	bobHook := create(bobs, `{"url":"`+rcv.URL+`/bob","events":["task.restored"]}`)

	// A delivery to the kept key's webhook: its last attempt is listed.
	if status, out := call(kept, "POST", "/notebooks", `{"name":"Hooked"}`); status != http.StatusCreated {
		t.Fatalf("POST /notebooks: %d %v", status, out)
	}
	rcv.wait(t, 1)

	c.ok("key", "revoke", "--prefix", prefixOf(t, doomed))

	type listed struct {
		ID             string   `json:"id"`
		URL            string   `json:"url"`
		Events         []string `json:"events"`
		Status         string   `json:"status"`
		DisabledReason *string  `json:"disabledReason"`
		Credential     string   `json:"credential"`
		APIKeyName     *string  `json:"apiKeyName"`
		APIKeyPrefix   *string  `json:"apiKeyPrefix"`
		LastAttempt    *struct {
			AttemptedAt string  `json:"attemptedAt"`
			StatusCode  *int    `json:"statusCode"`
			Error       *string `json:"error"`
		} `json:"lastAttempt"`
	}
	listJSON := func(email string) map[string]listed {
		t.Helper()
		var hooks []listed
		out := c.ok("webhook", "list", "--email", email, "--json")
		if err := json.Unmarshal([]byte(out), &hooks); err != nil {
			t.Fatalf("webhook list --json: %v\n%s", err, out)
		}
		byID := map[string]listed{}
		for _, h := range hooks {
			byID[h.ID] = h
		}
		return byID
	}

	// The last attempt is recorded just after the receiver answered: wait for it.
	var hooks map[string]listed
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		hooks = listJSON("ann@example.com")
		if h := hooks[keptHook]; h.LastAttempt != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no last attempt listed for the delivered webhook: %+v", hooks[keptHook])
		}
	}

	t.Run("list --json", func(t *testing.T) {
		if len(hooks) != 2 {
			t.Fatalf("ann's webhooks: %+v, want 2 (not bob's)", hooks)
		}
		d := hooks[doomedHook]
		if d.Status != "disabled" || d.DisabledReason == nil || *d.DisabledReason != "KEY_REVOKED" || d.Credential != "key" ||
			d.APIKeyPrefix == nil || *d.APIKeyPrefix != "svc_live_"+prefixOf(t, doomed) || d.APIKeyName == nil || *d.APIKeyName != "doomed" ||
			d.URL != rcv.URL+"/doomed" || len(d.Events) != 1 || d.Events[0] != "note.created" || d.LastAttempt != nil {
			t.Fatalf("the revoked key's webhook: %+v", d)
		}
		k := hooks[keptHook]
		if k.Status != "active" || k.DisabledReason != nil || k.APIKeyPrefix == nil || *k.APIKeyPrefix != "svc_live_"+prefixOf(t, kept) ||
			k.LastAttempt.StatusCode == nil || *k.LastAttempt.StatusCode != 200 || k.LastAttempt.Error != nil || k.LastAttempt.AttemptedAt == "" {
			t.Fatalf("the kept key's webhook: %+v (last attempt %+v)", k, k.LastAttempt)
		}
	})

	t.Run("list as a table", func(t *testing.T) {
		out := c.ok("webhook", "list", "--email", "ann@example.com")
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID ") || !strings.Contains(lines[0], "STATUS") || !strings.Contains(lines[0], "LAST ATTEMPT") {
			t.Fatalf("webhook list:\n%s", out)
		}
		row := func(id string) string {
			for _, l := range lines[1:] {
				if strings.HasPrefix(l, id+" ") {
					return l
				}
			}
			t.Fatalf("webhook list does not show %s:\n%s", id, out)
			return ""
		}
		for _, want := range []string{rcv.URL + "/doomed", "note.created", "svc_live_" + prefixOf(t, doomed), "disabled", "KEY_REVOKED", "none"} {
			if !strings.Contains(row(doomedHook), want) {
				t.Fatalf("the revoked key's webhook's row lacks %q:\n%s", want, out)
			}
		}
		for _, want := range []string{rcv.URL + "/kept", "svc_live_" + prefixOf(t, kept), "active", " 200"} {
			if !strings.Contains(row(keptHook), want) {
				t.Fatalf("the kept key's webhook's row lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, bobHook) {
			t.Fatalf("ann's list shows bob's webhook:\n%s", out)
		}
	})

	t.Run("delete", func(t *testing.T) {
		if out := c.ok("webhook", "delete", "--id", doomedHook); out != "" {
			t.Fatalf("webhook delete printed %q", out)
		}
		if _, ok := listJSON("ann@example.com")[doomedHook]; ok {
			t.Fatal("the deleted webhook is still listed")
		}
		status, out := call(kept, "GET", "/webhooks", "")
		if status != http.StatusOK {
			t.Fatalf("GET /webhooks: %d %v", status, out)
		}
		for _, d := range out["data"].([]any) {
			if d.(map[string]any)["id"] == doomedHook {
				t.Fatal("GET /webhooks still lists the deleted webhook")
			}
		}
		if status, out := call(kept, "GET", "/webhooks/"+doomedHook, ""); status != http.StatusNotFound {
			t.Fatalf("GET /webhooks/%s after the delete: %d %v", doomedHook, status, out)
		}
		// The operator deletes any account's webhook.
		c.ok("webhook", "delete", "--id", bobHook)
		if status, _ := call(bobs, "GET", "/webhooks/"+bobHook, ""); status != http.StatusNotFound {
			t.Fatalf("bob's webhook after the operator deleted it: %d", status)
		}
		if _, ok := listJSON("ann@example.com")[keptHook]; !ok {
			t.Fatal("deleting other webhooks removed the kept one")
		}
	})

	t.Run("refusals", func(t *testing.T) {
		c.fails("deleting a deleted webhook", "no webhook has the id", "webhook", "delete", "--id", doomedHook)
		c.fails("deleting an unknown id", "no webhook has the id", "webhook", "delete", "--id", "aaaaaaaaaaaaaaaaaaaaaaaa")
		c.fails("deleting a malformed id", "no webhook has the id", "webhook", "delete", "--id", "../nope")
		c.fails("delete without --id", "--id", "webhook", "delete")
		c.fails("list without --email", "--email", "webhook", "list")
		c.fails("list of an unknown email", "email", "webhook", "list", "--email", "nobody@example.com")
	})

	if code, _ := srv.stop(t); code != 0 {
		t.Fatalf("folio serve exited with %d after SIGTERM:\n%s", code, srv.stderr())
	}
}
