package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"folio/platform/config"
	"folio/tests/apitest"
)

// localWebhooks lets webhooks deliver to a receiver in the test process (http, loopback), as
// FOLIO_WEBHOOK_ALLOW_INSECURE and FOLIO_WEBHOOK_ALLOW_PRIVATE do.
func localWebhooks(c *config.Config) {
	c.WebhookAllowInsecure, c.WebhookAllowPrivate = true, true
	c.WebhookRetryBase = 100 * time.Millisecond
}

// hookReceiver is a webhook endpoint in the test process that answers 200 and counts deliveries.
func hookReceiver(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

// dataRow returns the table row whose attribute attr (data-webhook, data-feed) is id, as text; ok
// is false when the page does not list it.
func dataRow(p page, attr, id string) (string, bool) {
	m := regexp.MustCompile(`(?s)<tr ` + attr + `="` + id + `">(.*?)</tr>`).FindStringSubmatch(p.Text)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// wantDataRow fails the test unless the page lists the row (dataRow) and it says every text.
func wantDataRow(t *testing.T, p page, attr, id string, texts ...string) string {
	t.Helper()
	row, ok := dataRow(p, attr, id)
	if !ok {
		t.Fatalf("the keys page has no row %s=%s:\n%s", attr, id, p.Text)
	}
	for _, s := range texts {
		if !strings.Contains(row, s) {
			t.Fatalf("the row %s=%s does not say %q:\n%s", attr, id, s, row)
		}
	}
	return row
}

// webhookRow returns the webhooks table row of a webhook (by id), as text.
func webhookRow(p page, id string) (string, bool) { return dataRow(p, "data-webhook", id) }

func wantWebhookRow(t *testing.T, p page, id string, texts ...string) string {
	t.Helper()
	return wantDataRow(t, p, "data-webhook", id, texts...)
}

func wantKeyRow(t *testing.T, p page, prefix string, texts ...string) {
	t.Helper()
	row := keyRow(t, p, prefix)
	for _, s := range texts {
		if !strings.Contains(row, s) {
			t.Fatalf("the key's row does not say %q:\n%s", s, row)
		}
	}
}

// TestWebhooksInSettings (CONTRACT.md section 20): the keys page lists the user's webhooks (URL,
// events, the key that created it, status, last delivery) and each key's count of them; the revoke
// confirmation says that the key's webhooks stop and the rotate confirmation that they move; after
// the revocation the webhook is shown disabled with the reason in words; it is deleted through a
// confirmation page and a form that needs the CSRF token, and is then gone from the API too.
func TestWebhooksInSettings(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		b := newBrowser(t, s)
		signUp(t, b, "Ann Hooks")
		key := createKey(t, b, "Deploy bot", 3, "")
		prefix := apitest.KeyPrefix(t, key)
		other := createKey(t, b, "Laptop", 3, "")
		otherPrefix := apitest.KeyPrefix(t, other)
		rcv, delivered := hookReceiver(t)

		hook := apitest.Must(t, s.Post(t, key, "/webhooks", map[string]any{"url": rcv.URL + "/hook", "events": []string{"note.created"}, "description": "mirror to the wiki"}), http.StatusCreated).Str(t, "id")

		t.Run("listed as active with its key, and counted on the key's row", func(t *testing.T) {
			p := b.get("/settings/keys")
			want(t, p, http.StatusOK, "Webhooks")
			wantWebhookRow(t, p, hook, rcv.URL+"/hook", "mirror to the wiki", "note.created", "Deploy bot", "svc_live_"+prefix, "Active", "None yet", "Delete")
			wantKeyRow(t, p, prefix, "1 webhook")
			if row := keyRow(t, p, otherPrefix); strings.Contains(row, "webhook") {
				t.Fatalf("a key without webhooks shows a count:\n%s", row)
			}
			if !strings.Contains(p.Body, `href="/settings/webhooks/`+hook+`/delete"`) {
				t.Fatal("no link to the webhook's delete confirmation")
			}
		})

		t.Run("its last delivery", func(t *testing.T) {
			nb := apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "Wiki"}), http.StatusCreated).Str(t, "id")
			apitest.Must(t, s.Post(t, key, "/notes", map[string]any{"content": "delivered", "notebookId": nb}), http.StatusCreated)
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				row := wantWebhookRow(t, b.get("/settings/keys"), hook)
				if strings.Contains(row, "Delivered: HTTP 200") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no delivery shown after 30 s (%d received):\n%s", delivered.Load(), row)
				}
			}
		})

		t.Run("the confirmations say what happens to the webhooks", func(t *testing.T) {
			want(t, b.get("/settings/keys/"+prefix+"/revoke"), http.StatusOK, "Revoke “Deploy bot”?", "Its 1 webhook will stop delivering")
			want(t, b.get("/settings/keys/"+prefix+"/rotate"), http.StatusOK, "Rotate “Deploy bot”?", "Its 1 webhook moves to the new key")
			for _, path := range []string{"/settings/keys/" + otherPrefix + "/revoke", "/settings/keys/" + otherPrefix + "/rotate"} {
				if p := b.get(path); p.Contains("webhook") {
					t.Fatalf("%s mentions webhooks for a key that owns none:\n%s", path, p.Text)
				}
			}
		})

		t.Run("a rotation moves them to the new key", func(t *testing.T) {
			bot := createKey(t, b, "Rotating bot", 3, "")
			moved := apitest.Must(t, s.Post(t, bot, "/webhooks", map[string]any{"url": rcv.URL + "/rotating", "events": []string{"task.restored"}}), http.StatusCreated).Str(t, "id")
			b.get("/settings/keys/" + apitest.KeyPrefix(t, bot) + "/rotate")
			p := b.submit("/settings/keys/"+apitest.KeyPrefix(t, bot)+"/rotate", nil)
			want(t, p, http.StatusOK, "Your rotated API key", "Its 1 webhook now belongs to the new key.")
			next := apitest.KeyPrefix(t, rawKey(t, p))
			list := b.get("/settings/keys")
			wantKeyRow(t, list, next, "1 webhook")
			if row := keyRow(t, list, apitest.KeyPrefix(t, bot)); !strings.Contains(row, "Rotated") || strings.Contains(row, "webhook") {
				t.Fatalf("the rotated-away key's row:\n%s", row)
			}
			wantWebhookRow(t, list, moved, "Rotating bot", "svc_live_"+next, "Active", "task.restored")
		})

		t.Run("after the key is revoked it is shown disabled with the reason", func(t *testing.T) {
			b.get("/settings/keys/" + prefix + "/revoke")
			p := b.submit("/settings/keys/"+prefix+"/revoke", nil)
			wantRedirect(t, p, "/settings/keys?revoked="+prefix)
			list := b.get(p.Location())
			want(t, list, http.StatusOK, "The key “Deploy bot” (svc_live_"+prefix+") is revoked.", "Its webhook has stopped delivering.")
			row := wantWebhookRow(t, list, hook, "Disabled: its key was revoked", "Deploy bot", "svc_live_"+prefix, "Delivered: HTTP 200")
			if strings.Contains(row, "Active") {
				t.Fatalf("a revoked key's webhook is shown active:\n%s", row)
			}
			wantKeyRow(t, list, prefix, "Revoked", "1 webhook")
			got := apitest.Must(t, s.Get(t, other, "/webhooks/"+hook), http.StatusOK).JSON(t)
			if got["status"] != "disabled" || got["disabledReason"] != "KEY_REVOKED" {
				t.Fatalf("GET /webhooks/%s with another key: %v", hook, got)
			}
		})

		t.Run("a form without a valid CSRF token deletes nothing", func(t *testing.T) {
			path := "/settings/webhooks/" + hook + "/delete"
			want(t, b.post(path, url.Values{}), http.StatusForbidden, "This form has expired")
			want(t, b.post(path, url.Values{"csrf_token": {"forged"}}), http.StatusForbidden, "This form has expired")
			intruder := newBrowser(t, s)
			signUp(t, intruder, "Ivan Intruder")
			want(t, b.post(path, url.Values{"csrf_token": {intruder.token}}), http.StatusForbidden)
			want(t, b.post(path, url.Values{}, "X-CSRF-Token", b.token), http.StatusForbidden)
			// Another user, with a valid token of their own, finds no such webhook.
			want(t, intruder.get(path), http.StatusNotFound, "Webhook not found")
			want(t, intruder.submit(path, nil), http.StatusNotFound, "Webhook not found")
			if _, ok := webhookRow(intruder.get("/settings/keys"), hook); ok {
				t.Fatal("another user's keys page lists the webhook")
			}
			apitest.Must(t, s.Get(t, other, "/webhooks/"+hook), http.StatusOK)
		})

		t.Run("deleted through the confirmation page", func(t *testing.T) {
			path := "/settings/webhooks/" + hook + "/delete"
			confirm := b.get(path)
			want(t, confirm, http.StatusOK, "Delete this webhook?", rcv.URL+"/hook", "Disabled: its key was revoked", "Deploy bot", "Delete webhook", "Cancel")
			checkPageHeaders(t, confirm)
			wantRedirect(t, b.submit(path, nil), "/settings/keys?webhook_deleted=1")
			list := b.get("/settings/keys?webhook_deleted=1")
			want(t, list, http.StatusOK, "The webhook was deleted.")
			if _, ok := webhookRow(list, hook); ok {
				t.Fatal("the deleted webhook is still listed")
			}
			if row := keyRow(t, list, prefix); !strings.Contains(row, "Revoked") || strings.Contains(row, "webhook") {
				t.Fatalf("after the deletion the key's row:\n%s", row)
			}
			for _, d := range apitest.Must(t, s.Get(t, other, "/webhooks"), http.StatusOK).Data(t) {
				if d["id"] == hook {
					t.Fatal("GET /webhooks still lists the deleted webhook")
				}
			}
			apitest.CheckEnvelope(t, s.Get(t, other, "/webhooks/"+hook), http.StatusNotFound, "WEBHOOK_NOT_FOUND")
			want(t, b.get(path), http.StatusNotFound, "Webhook not found")
			want(t, b.submit(path, nil), http.StatusNotFound, "Webhook not found")
			want(t, b.get("/settings/webhooks/not-an-id/delete"), http.StatusNotFound, "Webhook not found")
		})

		t.Run("a web session's webhook", func(t *testing.T) {
			a := newBrowser(t, s)
			acc := signUp(t, a, "Sam Session")
			id := apitest.Must(t, a.api("POST", "/webhooks", `{"url":"`+rcv.URL+`/session","events":["task.restored"]}`), http.StatusCreated).Str(t, "id")
			wantWebhookRow(t, a.get("/settings/keys"), id, "web session", "Active", "task.restored")
			// Signing out ends the session that made it; signed in again, it is disabled.
			want(t, a.get("/settings/keys"), http.StatusOK)
			wantRedirect(t, a.submit("/signout", nil), "/signin?signedout=1")
			signIn(t, a, acc)
			wantWebhookRow(t, a.get("/settings/keys"), id, "web session", "Disabled: the web session that created it has ended")
		})

		t.Run("/settings/webhooks leads to the list", func(t *testing.T) {
			wantRedirect(t, b.get("/settings/webhooks"), "/settings/keys#webhooks")
			if p := b.get("/settings/keys"); !strings.Contains(p.Body, `id="webhooks"`) {
				t.Fatal("the keys page has no webhooks section to link to")
			}
		})
	}, localWebhooks)
}

// checkPageHeaders checks a page's security headers and that its markup needs no inline script
// or style, as TestSecurityHeaders does for the other pages.
func checkPageHeaders(t *testing.T, p page) {
	t.Helper()
	csp := p.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if p.Header.Get("Cache-Control") != "no-store" || p.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("headers %v", p.Header)
	}
	if strings.Contains(p.Body, "style=") || strings.Contains(p.Body, "<style") || regexp.MustCompile(`(?i)\son[a-z]+\s*=|<script>`).MatchString(p.Body) {
		t.Errorf("inline style, script or event handler in the page:\n%s", p.Body)
	}
}
