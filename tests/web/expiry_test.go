package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"folio/platform/clock"
	"folio/platform/config"
	"folio/tests/apitest"
)

// statusCell returns the text of a key row's Status cell (which shows the expiry).
func statusCell(t *testing.T, row string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)data-label="Status">(.*?)</td>`).FindStringSubmatch(row)
	if m == nil {
		t.Fatalf("no Status cell in the row:\n%s", row)
	}
	return m[1]
}

// TestKeyExpiryForm (CONTRACT.md section 19): the new-key form offers never, 30, 90 and 365 days
// and a date; each mistake is shown beside its field and creates nothing; a key made with 30 days
// or a date shows its expiry on the page that shows it once and in the keys list (under its
// status), a key made without shows none; once the fake clock passes the expiry the key is listed as Expired
// among the inactive keys, the API refuses it (401) and it cannot be rotated.
func TestKeyExpiryForm(t *testing.T) {
	start := time.Date(2031, 3, 1, 12, 0, 0, 0, time.UTC)
	longSessions := func(c *config.Config) { c.SessionTTL = 365 * 24 * time.Hour }
	apitest.ForEachDBWithClock(t, start, func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		b := newBrowser(t, s)
		signUp(t, b, "Ann Expiry")
		countKeys := func() int { return strings.Count(b.get("/settings/keys").Body, "<tr data-prefix=") }

		t.Run("the form offers the choices", func(t *testing.T) {
			p := b.get("/settings/keys/new")
			want(t, p, http.StatusOK, "Expiration", "Never", "In 30 days", "In 90 days", "In 365 days", "On a date…")
			for _, s := range []string{`<option value="never" selected>`, `<label for="expires">`, `<label for="expires_on">`,
				`type="date" min="2031-03-02"`} {
				if !strings.Contains(p.Body, s) {
					t.Fatalf("the form lacks %s", s)
				}
			}
		})

		for _, tc := range []struct {
			name, expires, on, message string
		}{
			{"unknown choice", "45", "", "Choose when the key expires."},
			{"a date chosen, none given", "date", "", "Choose the date on which the key stops working."},
			{"not a date", "date", "2031-13-01", "Enter the date as YYYY-MM-DD."},
			{"today", "date", "2031-03-01", "Choose a date after today (dates are in UTC)."},
			{"in the past", "date", "2020-01-01", "Choose a date after today"},
			{"too far", "date", "9999-01-01", "Choose an expiry at most 100 years ahead."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := countKeys()
				b.get("/settings/keys/new")
				p := b.submit("/settings/keys", url.Values{"name": {"bad"}, "scope": {"1"}, "expires": {tc.expires}, "expires_on": {tc.on}})
				want(t, p, http.StatusBadRequest, "Please check the form:", tc.message)
				if anyKeyRe.MatchString(p.Body) || countKeys() != before {
					t.Fatal("a rejected form created a key")
				}
				if tc.expires == "date" && (!strings.Contains(p.Body, `<option value="date" selected>`) || !strings.Contains(p.Body, `value="`+tc.on+`"`)) {
					t.Fatal("the form lost the choice or the date")
				}
			})
		}

		create := func(name string, form url.Values) (string, page) {
			t.Helper()
			b.get("/settings/keys/new")
			form.Set("name", name)
			form.Set("scope", "3")
			p := b.submit("/settings/keys", form)
			want(t, p, http.StatusOK, "Copy this key now")
			return rawKey(t, p), p
		}
		month, shown := create("Thirty days", url.Values{"expires": {"30"}})
		if !strings.Contains(shown.Text, "<dt>Expires</dt><dd><time") || !strings.Contains(shown.Text, "31 Mar 2031") {
			t.Fatalf("the new key's page does not show its expiry:\n%s", shown.Text)
		}
		dated, _ := create("Until May", url.Values{"expires": {"date"}, "expires_on": {"2031-05-01"}})
		forever, _ := create("Forever", url.Values{})
		quarter, _ := create("Ninety days", url.Values{"expires": {"90"}})

		list := b.get("/settings/keys")
		for _, tc := range []struct {
			key  string
			want []string
		}{
			{month, []string{"Active", "expires", `datetime="2031-03-31T12:00:00Z"`, "31 Mar 2031"}},
			{dated, []string{"Active", "expires", `datetime="2031-05-01T00:00:00Z"`, "1 May 2031"}},
			{quarter, []string{"Active", "expires", `datetime="2031-05-30T12:00:00Z"`}},
			{forever, []string{"Active"}},
		} {
			cell := statusCell(t, keyRow(t, list, apitest.KeyPrefix(t, tc.key)))
			for _, w := range tc.want {
				if !strings.Contains(cell, w) {
					t.Fatalf("the Status cell %q does not show %q", cell, w)
				}
			}
			if tc.key == forever && strings.Contains(cell, "expires") {
				t.Fatalf("a key without an expiry shows one: %q", cell)
			}
			apitest.Must(t, s.Get(t, tc.key, "/notebooks"), 200)
		}

		// Thirty days later the first key has expired, everywhere at once.
		fake.Set(start.Add(30 * 24 * time.Hour))
		apitest.CheckEnvelope(t, s.Get(t, month, "/notebooks"), 401, "UNAUTHENTICATED")
		apitest.Must(t, s.Get(t, dated, "/notebooks"), 200)
		list = b.get("/settings/keys")
		inactive := regexp.MustCompile(`(?s)<table class="keys" id="inactive-keys">.*?</table>`).FindString(list.Body)
		prefix := apitest.KeyPrefix(t, month)
		if row := keyRow(t, list, prefix); !strings.Contains(inactive, `data-prefix="`+prefix+`"`) || strings.Contains(row, "Rotate") ||
			!strings.Contains(statusCell(t, row), "Expired") || !strings.Contains(statusCell(t, row), "31 Mar 2031") {
			t.Fatalf("the expired key is not listed as Expired among the inactive keys:\n%s", list.Text)
		}
		want(t, b.get("/settings/keys/"+prefix+"/rotate"), http.StatusConflict, "This key has expired")
		want(t, b.submit("/settings/keys/"+prefix+"/rotate", nil), http.StatusConflict, "This key has expired")
		apitest.CheckEnvelope(t, s.Get(t, month, "/notebooks"), 401, "UNAUTHENTICATED")
	}, longSessions)
}
