package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/config"
	"folio/tests/apitest"
)

// places creates, through the signed-in browser's session, a workspace "Acme" with a notebook
// "Roadmap", and a personal notebook "One on ones"; it returns their ids.
func places(t *testing.T, b *browser) (ws, wsNB, personalNB string) {
	t.Helper()
	id := func(r apitest.Response) string {
		t.Helper()
		apitest.Must(t, r, http.StatusCreated)
		var m map[string]any
		if err := json.Unmarshal(r.Body, &m); err != nil {
			t.Fatal(err)
		}
		return m["id"].(string)
	}
	ws = id(b.api("POST", "/workspaces", `{"name":"Acme"}`))
	wsNB = id(b.api("POST", "/notebooks", `{"name":"Roadmap","workspaceId":"`+ws+`"}`))
	personalNB = id(b.api("POST", "/notebooks", `{"name":"One on ones"}`))
	return ws, wsNB, personalNB
}

// keyRow returns the keys table row of a key (by its 8-character prefix), as text.
func keyRow(t *testing.T, p page, prefix string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<tr data-prefix="` + prefix + `">(.*?)</tr>`).FindStringSubmatch(p.Text)
	if m == nil {
		t.Fatalf("no row for %s on the keys page:\n%s", prefix, p.Text)
	}
	return m[1]
}

// TestCreateKeyForm submits the new-key form with every mistake, with a forged or missing CSRF
// token, and then for each kind of key; the key works on the API as configured, and the keys page
// lists it by name, prefix, scope label, restriction by name, dates and status.
func TestCreateKeyForm(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		b := newBrowser(t, s)
		ann := signUp(t, b, "Ann Keys")
		ws, wsNB, personalNB := places(t, b)
		other := s.NewUser(t, "Olga Other")
		otherKey := s.NewKey(t, other, auth.ScopeReadWrite)
		otherWS := apitest.Must(t, s.Post(t, otherKey, "/workspaces", map[string]any{"name": "Olga's"}), 201).Str(t, "id")
		otherNB := apitest.Must(t, s.Post(t, otherKey, "/notebooks", map[string]any{"name": "Olga's notes"}), 201).Str(t, "id")
		annID := userID(t, s, ann.Email)
		countKeys := func() int {
			keys, err := s.Accounts.Keys(context.Background(), annID)
			if err != nil {
				t.Fatal(err)
			}
			return len(keys)
		}

		t.Run("the form offers the user's places by name", func(t *testing.T) {
			p := b.get("/settings/keys/new")
			want(t, p, http.StatusOK, "All my notebooks and workspaces", "Acme", "Roadmap (Acme)", "One on ones (personal)")
			for _, v := range []string{"workspace:" + ws, "notebook:" + wsNB, "notebook:" + personalNB} {
				if !strings.Contains(p.Body, `value="`+v+`"`) {
					t.Fatalf("no option %s", v)
				}
			}
			if strings.Contains(p.Text, "Olga") {
				t.Fatal("the form offers another user's workspace or notebook")
			}
			for _, label := range []string{`<label for="name">`, `<label for="access">`, `<legend>Permissions</legend>`} {
				if !strings.Contains(p.Body, label) {
					t.Fatalf("the form lacks %s", label)
				}
			}
		})

		for _, tc := range []struct {
			name   string
			form   url.Values
			errors []string
		}{
			{"no name", url.Values{"name": {""}, "scope": {"3"}}, []string{"Enter a name for the key."}},
			{"blank name", url.Values{"name": {"  \t "}, "scope": {"3"}}, []string{"Enter a name for the key."}},
			{"name too long", url.Values{"name": {strings.Repeat("k", 101)}, "scope": {"3"}}, []string{"Use at most 100 characters for the name."}},
			{"name with NUL", url.Values{"name": {"lap\x00top"}, "scope": {"3"}}, []string{"The name contains characters that cannot be stored."}},
			{"name not UTF-8", url.Values{"name": {"lap\xfftop"}, "scope": {"3"}}, []string{"The name contains characters that cannot be stored."}},
			{"no scope", url.Values{"name": {"k"}}, []string{"Choose what the key may do: read, write, or read and write."}},
			{"scope 0", url.Values{"name": {"k"}, "scope": {"0"}}, []string{"Choose what the key may do"}},
			{"scope 4", url.Values{"name": {"k"}, "scope": {"4"}}, []string{"Choose what the key may do"}},
			{"scope not a number", url.Values{"name": {"k"}, "scope": {"rw"}}, []string{"Choose what the key may do"}},
			{"another user's workspace", url.Values{"name": {"k"}, "scope": {"3"}, "access": {"workspace:" + otherWS}}, []string{"Choose a workspace or notebook from the list."}},
			{"another user's notebook", url.Values{"name": {"k"}, "scope": {"3"}, "access": {"notebook:" + otherNB}}, []string{"Choose a workspace or notebook from the list."}},
			{"a notebook id given as a workspace", url.Values{"name": {"k"}, "scope": {"3"}, "access": {"workspace:" + personalNB}}, []string{"Choose a workspace or notebook from the list."}},
			{"malformed id", url.Values{"name": {"k"}, "scope": {"3"}, "access": {"notebook:../../x"}}, []string{"Choose a workspace or notebook from the list."}},
			{"unknown kind", url.Values{"name": {"k"}, "scope": {"3"}, "access": {"folder:" + ws}}, []string{"Choose a workspace or notebook from the list."}},
			{"everything wrong", url.Values{"name": {""}, "scope": {"9"}, "access": {"x"}},
				[]string{"Enter a name for the key.", "Choose what the key may do", "Choose a workspace or notebook from the list."}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := countKeys()
				b.get("/settings/keys/new")
				p := b.submit("/settings/keys", tc.form)
				want(t, p, http.StatusBadRequest, append([]string{"Please check the form:"}, tc.errors...)...)
				if anyKeyRe.MatchString(p.Body) || countKeys() != before {
					t.Fatal("a rejected form created a key")
				}
				if n := tc.form.Get("name"); n != "" && strings.TrimSpace(n) != "" && !strings.Contains(n, "\x00") && !strings.Contains(n, "\xff") &&
					!strings.Contains(p.Body, `value="`+n+`"`) {
					t.Fatalf("the form lost the name %q", n)
				}
			})
		}

		t.Run("CSRF", func(t *testing.T) {
			before := countKeys()
			form := url.Values{"name": {"forged"}, "scope": {"3"}}
			want(t, b.post("/settings/keys", form), http.StatusForbidden, "This form has expired")
			form.Set("csrf_token", "not-the-token")
			want(t, b.post("/settings/keys", form), http.StatusForbidden)
			// Another session's token does not work either.
			intruder := newBrowser(t, s)
			signUp(t, intruder, "Ivan Intruder")
			form.Set("csrf_token", intruder.token)
			want(t, b.post("/settings/keys", form), http.StatusForbidden)
			// Nor does the right token sent in the header instead of the form.
			delete(form, "csrf_token")
			want(t, b.post("/settings/keys", form, auth.CSRFHeader, b.token), http.StatusForbidden)
			if countKeys() != before {
				t.Fatal("a forged form created a key")
			}
		})

		t.Run("keys of each kind", func(t *testing.T) {
			for _, tc := range []struct {
				name, access string
				scope        int
				label        string
				row          []string
				check        func(t *testing.T, key string)
			}{
				{"Everything", "", 3, "read+write", []string{"Unrestricted"}, func(t *testing.T, key string) {
					apitest.Must(t, s.Get(t, key, "/notebooks"), 200)
					apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "by key"}), 201)
				}},
				{"Reader", "", 1, "read", []string{"Unrestricted"}, func(t *testing.T, key string) {
					apitest.Must(t, s.Get(t, key, "/notebooks"), 200)
					apitest.CheckEnvelope(t, s.Post(t, key, "/notebooks", map[string]any{"name": "x"}), 403, "INSUFFICIENT_SCOPE")
				}},
				{"Writer", "", 2, "write", []string{"Unrestricted"}, func(t *testing.T, key string) {
					apitest.CheckEnvelope(t, s.Get(t, key, "/notebooks"), 403, "INSUFFICIENT_SCOPE")
				}},
				{"Acme only", "workspace:" + ws, 3, "read+write", []string{"Workspace: Acme"}, func(t *testing.T, key string) {
					r := apitest.Must(t, s.Get(t, key, "/workspaces"), 200)
					if d := r.Data(t); len(d) != 1 || d[0]["id"] != ws {
						t.Fatalf("a workspace key lists %v", d)
					}
				}},
				{"Roadmap only", "notebook:" + wsNB, 1, "read", []string{"Notebook: Roadmap (Acme)"}, func(t *testing.T, key string) {
					r := apitest.Must(t, s.Get(t, key, "/notebooks"), 200)
					if d := r.Data(t); len(d) != 1 || d[0]["id"] != wsNB {
						t.Fatalf("a notebook key lists %v", d)
					}
					apitest.CheckEnvelope(t, s.Get(t, key, "/notebooks/"+personalNB), 403, "KEY_NOTEBOOK_MISMATCH")
				}},
				{"  Personal notebook  ", "notebook:" + personalNB, 3, "read+write", []string{"Notebook: One on ones"}, func(t *testing.T, key string) {
					apitest.Must(t, s.Get(t, key, "/notebooks/"+personalNB), 200)
				}},
			} {
				t.Run(strings.TrimSpace(tc.name), func(t *testing.T) {
					b.get("/settings/keys/new")
					p := b.submit("/settings/keys", url.Values{"name": {tc.name}, "scope": {fmt.Sprint(tc.scope)}, "access": {tc.access}})
					want(t, p, http.StatusOK, "Copy this key now", strings.TrimSpace(tc.name), tc.label)
					key := rawKey(t, p)
					if n := strings.Count(p.Body, key); n != 1 {
						t.Fatalf("the raw key appears %d times on its page, want once", n)
					}
					prefix := apitest.KeyPrefix(t, key)
					if !strings.Contains(p.Body, `data-copy="raw-key"`) || !strings.Contains(p.Text, "svc_live_"+prefix) {
						t.Fatal("no copy button or display prefix on the key's page")
					}
					if row := keyRow(t, b.get("/settings/keys"), prefix); !strings.Contains(row, "Never") {
						t.Fatalf("a key not yet used shows a last use:\n%s", row)
					}
					tc.check(t, key)

					// The last use is recorded off the request path: wait for it.
					var list page
					for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
						list = b.get("/settings/keys")
						if !strings.Contains(keyRow(t, list, prefix), "Never") {
							break
						}
						if time.Now().After(deadline) {
							t.Fatalf("the key's last use never shows:\n%s", keyRow(t, list, prefix))
						}
					}
					want(t, list, http.StatusOK)
					_, secret, _ := auth.ParseKey(key)
					if strings.Contains(list.Body, secret) || anyKeyRe.MatchString(list.Body) {
						t.Fatal("the keys page shows a secret")
					}
					row := keyRow(t, list, prefix)
					for _, s := range append([]string{strings.TrimSpace(tc.name), "svc_live_" + prefix, ">" + tc.label + "<", "Active", "Rotate", "Revoke"}, tc.row...) {
						if !strings.Contains(row, s) {
							t.Fatalf("the row does not show %q:\n%s", s, row)
						}
					}
					if !regexp.MustCompile(`\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC`).MatchString(row) {
						t.Fatalf("no creation date in the row:\n%s", row)
					}
				})
			}
		})

		t.Run("the keys page shows only the user's own keys", func(t *testing.T) {
			p := b.get("/settings/keys")
			if strings.Contains(p.Text, "svc_live_"+apitest.KeyPrefix(t, otherKey)) {
				t.Fatal("another user's key is listed")
			}
		})

		t.Run("a restriction that left the user's reach", func(t *testing.T) {
			// Olga adds Ann to her workspace, Ann makes a key for it, Olga removes her.
			apitest.Must(t, s.Post(t, otherKey, "/workspaces/"+otherWS+"/members", map[string]any{"email": ann.Email}), 201)
			key := createKey(t, b, "Olga's workspace", 1, "workspace:"+otherWS)
			apitest.Must(t, s.Get(t, key, "/workspaces"), 200)
			apitest.Must(t, s.Delete(t, otherKey, "/workspaces/"+otherWS+"/members/"+annID), 200)
			row := keyRow(t, b.get("/settings/keys"), apitest.KeyPrefix(t, key))
			if !strings.Contains(row, "Workspace: one you no longer belong to") {
				t.Fatalf("row: %s", row)
			}
			// The form no longer offers it.
			b.get("/settings/keys/new")
			want(t, b.submit("/settings/keys", url.Values{"name": {"again"}, "scope": {"1"}, "access": {"workspace:" + otherWS}}),
				http.StatusBadRequest, "Choose a workspace or notebook from the list.")
		})
	})
}

// TestRotateAndRevokeForms: each needs a confirmation page and the CSRF token, works only on the
// user's own active keys, and takes effect on the API at once (the instance's key cache is
// invalidated: each key is used, and so cached, before it is rotated or revoked).
func TestRotateAndRevokeForms(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		b := newBrowser(t, s)
		signUp(t, b, "Ann Rotate")
		ws, _, _ := places(t, b)
		other := s.NewUser(t, "Olga Other")
		otherKey := s.NewKey(t, other, auth.ScopeReadWrite)
		otherPrefix := apitest.KeyPrefix(t, otherKey)

		key := createKey(t, b, "Deploy bot", 1, "workspace:"+ws)
		prefix := apitest.KeyPrefix(t, key)
		apitest.Must(t, s.Get(t, key, "/notebooks"), 200)

		t.Run("confirmation pages", func(t *testing.T) {
			want(t, b.get("/settings/keys/"+prefix+"/rotate"), http.StatusOK, "Rotate “Deploy bot”?", "svc_live_"+prefix, "Workspace: Acme", "Rotate key", "Cancel")
			want(t, b.get("/settings/keys/"+prefix+"/revoke"), http.StatusOK, "Revoke “Deploy bot”?", "cannot be undone", "Revoke key", "Cancel")
			for _, p := range []string{otherPrefix, "AAAAAAAA", "short", "toolong123", "svc_live_" + prefix} {
				for _, action := range []string{"rotate", "revoke"} {
					want(t, b.get("/settings/keys/"+p+"/"+action), http.StatusNotFound, "Key not found")
				}
			}
			apitest.Must(t, s.Get(t, key, "/notebooks"), 200) // looking changes nothing
		})

		t.Run("rotate", func(t *testing.T) {
			want(t, b.post("/settings/keys/"+prefix+"/rotate", url.Values{}), http.StatusForbidden, "This form has expired")
			want(t, b.post("/settings/keys/"+prefix+"/rotate", url.Values{"csrf_token": {"forged"}}), http.StatusForbidden)
			apitest.Must(t, s.Get(t, key, "/notebooks"), 200)

			b.get("/settings/keys/" + prefix + "/rotate")
			p := b.submit("/settings/keys/"+prefix+"/rotate", nil)
			want(t, p, http.StatusOK, "Your rotated API key", "Copy this key now", "The previous key", "svc_live_"+prefix, "has stopped working", "Deploy bot", "Workspace: Acme", "read")
			rotated := rawKey(t, p)
			if apitest.KeyPrefix(t, rotated) == prefix {
				t.Fatal("the rotated key kept its prefix")
			}
			apitest.CheckEnvelope(t, s.Get(t, key, "/notebooks"), 401, "UNAUTHENTICATED")
			r := apitest.Must(t, s.Get(t, rotated, "/workspaces"), 200)
			if d := r.Data(t); len(d) != 1 || d[0]["id"] != ws {
				t.Fatalf("the rotated key lost its restriction: %v", d)
			}
			list := b.get("/settings/keys")
			old := keyRow(t, list, prefix)
			if !strings.Contains(old, "Rotated") || !strings.Contains(old, "replaced by <code>svc_live_"+apitest.KeyPrefix(t, rotated)) || strings.Contains(old, "Revoke") {
				t.Fatalf("the old key's row: %s", old)
			}
			if !strings.Contains(keyRow(t, list, apitest.KeyPrefix(t, rotated)), "Active") {
				t.Fatal("the new key is not listed as active")
			}
			want(t, b.submit("/settings/keys/"+prefix+"/rotate", nil), http.StatusConflict, "This key is already revoked")
			want(t, b.get("/settings/keys/"+prefix+"/rotate"), http.StatusConflict, "This key is already revoked")
			key, prefix = rotated, apitest.KeyPrefix(t, rotated)
		})

		t.Run("revoke", func(t *testing.T) {
			want(t, b.post("/settings/keys/"+prefix+"/revoke", url.Values{}), http.StatusForbidden)
			apitest.Must(t, s.Get(t, key, "/notebooks"), 200)

			b.get("/settings/keys/" + prefix + "/revoke")
			p := b.submit("/settings/keys/"+prefix+"/revoke", nil)
			wantRedirect(t, p, "/settings/keys?revoked="+prefix)
			apitest.CheckEnvelope(t, s.Get(t, key, "/notebooks"), 401, "UNAUTHENTICATED")
			list := b.get(p.Location())
			want(t, list, http.StatusOK, "The key “Deploy bot” (svc_live_"+prefix+") is revoked.", "No active keys")
			if row := keyRow(t, list, prefix); !strings.Contains(row, "Revoked") {
				t.Fatalf("row: %s", row)
			}
			want(t, b.submit("/settings/keys/"+prefix+"/revoke", nil), http.StatusConflict, "This key is already revoked")
		})

		t.Run("another user's key", func(t *testing.T) {
			apitest.Must(t, s.Get(t, otherKey, "/notebooks"), 200)
			b.get("/settings/keys")
			want(t, b.submit("/settings/keys/"+otherPrefix+"/rotate", nil), http.StatusNotFound, "Key not found")
			want(t, b.submit("/settings/keys/"+otherPrefix+"/revoke", nil), http.StatusNotFound, "Key not found")
			want(t, b.submit("/settings/keys/AAAAAAAA/revoke", nil), http.StatusNotFound, "Key not found")
			apitest.Must(t, s.Get(t, otherKey, "/notebooks"), 200)
		})
	})
}

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
