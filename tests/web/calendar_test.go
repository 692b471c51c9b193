package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"folio/tests/apitest"
)

// fetchFeed GETs a calendar feed's url (a path under /api/v1) as a calendar app does.
func fetchFeed(t *testing.T, s *apitest.Server, feedURL string) apitest.Response {
	t.Helper()
	return s.Do(t, apitest.Request{Method: http.MethodGet, Path: strings.TrimPrefix(feedURL, "/api/v1")})
}

func wantFeedRow(t *testing.T, p page, id string, texts ...string) string {
	t.Helper()
	return wantDataRow(t, p, "data-feed", id, texts...)
}

// TestCalendarFeedsInSettings (CONTRACT.md sections 20 and 21): the keys page lists the user's
// calendar feeds (name, notebook by name, the key that created it, created, status) and each key's
// count of them; the revoke confirmation says that the key's feeds stop and the rotate one that
// they move (a rotation does move them, and the address keeps working); after the revocation a
// feed is shown stopped with the reason in words; a session's feed is stopped after sign-out; a
// feed is deleted through a confirmation page and a form that needs the CSRF token, and its
// address then answers 404.
func TestCalendarFeedsInSettings(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		b := newBrowser(t, s)
		acc := signUp(t, b, "Ann Feeds")
		_, wsNB, _ := places(t, b)
		key := createKey(t, b, "Calendar bot", 3, "")
		prefix := apitest.KeyPrefix(t, key)
		other := createKey(t, b, "Laptop", 3, "")
		otherPrefix := apitest.KeyPrefix(t, other)
		work := apitest.Must(t, s.Post(t, key, "/calendar-feeds", map[string]any{"name": "Roadmap dates", "notebookId": wsNB}), http.StatusCreated).JSON(t)
		feed, feedURL := work["id"].(string), work["url"].(string)
		apitest.Must(t, fetchFeed(t, s, feedURL), http.StatusOK)

		t.Run("listed with its notebook and key, counted on the key's row", func(t *testing.T) {
			p := b.get("/settings/keys")
			want(t, p, http.StatusOK, "Calendar feeds")
			wantFeedRow(t, p, feed, "Roadmap dates", "Roadmap (Acme)", "Calendar bot", "svc_live_"+prefix, "Active", "Delete")
			wantKeyRow(t, p, prefix, "1 calendar feed")
			if row := keyRow(t, p, otherPrefix); strings.Contains(row, "calendar feed") {
				t.Fatalf("a key without feeds shows a count:\n%s", row)
			}
			if !strings.Contains(p.Body, `href="/settings/calendar-feeds/`+feed+`/delete"`) {
				t.Fatal("no link to the feed's delete confirmation")
			}
			if strings.Contains(p.Body, strings.TrimSuffix(strings.TrimPrefix(feedURL, "/api/v1/calendar/"), ".ics")) {
				t.Fatal("the keys page shows the feed's token")
			}
		})

		t.Run("the confirmations say what happens to the feeds", func(t *testing.T) {
			want(t, b.get("/settings/keys/"+prefix+"/revoke"), http.StatusOK, "Its 1 calendar feed will stop")
			want(t, b.get("/settings/keys/"+prefix+"/rotate"), http.StatusOK, "Its 1 calendar feed moves to the new key")
			for _, path := range []string{"/settings/keys/" + otherPrefix + "/revoke", "/settings/keys/" + otherPrefix + "/rotate"} {
				if p := b.get(path); p.Contains("calendar feed") {
					t.Fatalf("%s mentions calendar feeds for a key that owns none:\n%s", path, p.Text)
				}
			}
		})

		t.Run("a rotation moves them to the new key", func(t *testing.T) {
			bot := createKey(t, b, "Rotating bot", 3, "")
			moved := apitest.Must(t, s.Post(t, bot, "/calendar-feeds", map[string]any{"name": "Everything"}), http.StatusCreated).JSON(t)
			b.get("/settings/keys/" + apitest.KeyPrefix(t, bot) + "/rotate")
			p := b.submit("/settings/keys/"+apitest.KeyPrefix(t, bot)+"/rotate", nil)
			want(t, p, http.StatusOK, "Your rotated API key", "Its 1 calendar feed now belongs to the new key")
			next := apitest.KeyPrefix(t, rawKey(t, p))
			list := b.get("/settings/keys")
			wantKeyRow(t, list, next, "1 calendar feed")
			wantFeedRow(t, list, moved["id"].(string), "Everything", "All notebooks", "Rotating bot", "svc_live_"+next, "Active")
			apitest.Must(t, fetchFeed(t, s, moved["url"].(string)), http.StatusOK)
		})

		t.Run("after the key is revoked it is shown stopped with the reason", func(t *testing.T) {
			b.get("/settings/keys/" + prefix + "/revoke")
			p := b.submit("/settings/keys/"+prefix+"/revoke", nil)
			wantRedirect(t, p, "/settings/keys?revoked="+prefix)
			list := b.get(p.Location())
			want(t, list, http.StatusOK, "Its calendar feed has stopped")
			row := wantFeedRow(t, list, feed, "Stopped: its key was revoked", "Calendar bot")
			if strings.Contains(row, "Active") {
				t.Fatalf("a revoked key's feed is shown active:\n%s", row)
			}
			apitest.CheckEnvelope(t, fetchFeed(t, s, feedURL), http.StatusNotFound, "CALENDAR_FEED_NOT_FOUND")
		})

		t.Run("a form without a valid CSRF token deletes nothing", func(t *testing.T) {
			path := "/settings/calendar-feeds/" + feed + "/delete"
			want(t, b.post(path, url.Values{}), http.StatusForbidden, "This form has expired")
			want(t, b.post(path, url.Values{"csrf_token": {"forged"}}), http.StatusForbidden, "This form has expired")
			intruder := newBrowser(t, s)
			signUp(t, intruder, "Ivan Intruder")
			want(t, b.post(path, url.Values{"csrf_token": {intruder.token}}), http.StatusForbidden)
			want(t, intruder.get(path), http.StatusNotFound, "Calendar feed not found")
			want(t, intruder.submit(path, nil), http.StatusNotFound, "Calendar feed not found")
			if _, ok := dataRow(intruder.get("/settings/keys"), "data-feed", feed); ok {
				t.Fatal("another user's keys page lists the feed")
			}
			wantFeedRow(t, b.get("/settings/keys"), feed)
		})

		t.Run("deleted through the confirmation page", func(t *testing.T) {
			live := apitest.Must(t, s.Post(t, other, "/calendar-feeds", map[string]any{"name": "Short-lived"}), http.StatusCreated).JSON(t)
			path := "/settings/calendar-feeds/" + live["id"].(string) + "/delete"
			confirm := b.get(path)
			want(t, confirm, http.StatusOK, "Delete this calendar feed?", "Short-lived", "All notebooks", "Laptop", "Active", "Delete calendar feed", "Cancel")
			checkPageHeaders(t, confirm)
			wantRedirect(t, b.submit(path, nil), "/settings/keys?feed_deleted=1")
			list := b.get("/settings/keys?feed_deleted=1")
			want(t, list, http.StatusOK, "The calendar feed was deleted.")
			if _, ok := dataRow(list, "data-feed", live["id"].(string)); ok {
				t.Fatal("the deleted feed is still listed")
			}
			for _, f := range apitest.Must(t, s.Get(t, other, "/calendar-feeds"), http.StatusOK).Data(t) {
				if f["id"] == live["id"] {
					t.Fatal("GET /calendar-feeds still lists the deleted feed")
				}
			}
			apitest.CheckEnvelope(t, fetchFeed(t, s, live["url"].(string)), http.StatusNotFound, "CALENDAR_FEED_NOT_FOUND")
			want(t, b.get(path), http.StatusNotFound, "Calendar feed not found")
			want(t, b.get("/settings/calendar-feeds/not-an-id/delete"), http.StatusNotFound, "Calendar feed not found")
		})

		t.Run("a web session's feed stops at sign-out", func(t *testing.T) {
			f := apitest.Must(t, b.api("POST", "/calendar-feeds", `{"name":"From the browser"}`), http.StatusCreated).JSON(t)
			wantFeedRow(t, b.get("/settings/keys"), f["id"].(string), "web session", "Active")
			wantRedirect(t, b.submit("/signout", nil), "/signin?signedout=1")
			signIn(t, b, acc)
			wantFeedRow(t, b.get("/settings/keys"), f["id"].(string), "web session", "Stopped: the web session that created it has ended")
			apitest.CheckEnvelope(t, fetchFeed(t, s, f["url"].(string)), http.StatusNotFound, "CALENDAR_FEED_NOT_FOUND")
		})

		t.Run("/settings/calendar-feeds leads to the list", func(t *testing.T) {
			wantRedirect(t, b.get("/settings/calendar-feeds"), "/settings/keys#calendar-feeds")
			if p := b.get("/settings/keys"); !strings.Contains(p.Body, `id="calendar-feeds"`) {
				t.Fatal("the keys page has no calendar feeds section to link to")
			}
		})
	})
}
