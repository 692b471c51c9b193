package web

import (
	"context"
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

// The account pages: sign-up, sign-in (and its failure budget), sign-out, passwords set by the
// operator or changed by the user, the session cookie's flags, settings that need a session; and
// the security headers every page of the UI carries.

// TestSecurityHeaders checks every page of the UI: a Content-Security-Policy without inline script
// (and markup that needs none: no inline script, style attribute or event handler), no framing, no
// referrer, no sniffing, no caching; and the assets the pages load.
func TestSecurityHeaders(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		b := newBrowser(t, s)
		out := newBrowser(t, s)
		pages := map[string]page{"sign-in": out.get("/signin"), "sign-up": out.get("/signup")}
		signUp(t, b, "Ann Headers")
		raw := createKey(t, b, "headers", 3, "")
		prefix := apitest.KeyPrefix(t, raw)
		pages["keys"] = b.get("/settings/keys")
		pages["new key"] = b.get("/settings/keys/new")
		pages["rotate"] = b.get("/settings/keys/" + prefix + "/rotate")
		pages["revoke"] = b.get("/settings/keys/" + prefix + "/revoke")
		pages["account"] = b.get("/settings/account")
		pages["not found"] = b.get("/settings/keys/AAAAAAAA/revoke")
		pages["key shown once"] = b.submit("/settings/keys", url.Values{"name": {"once"}, "scope": {"1"}})
		pages["form error"] = b.submit("/settings/keys", url.Values{"name": {""}, "scope": {"1"}})

		inlineScript := regexp.MustCompile(`<script\b[^>]*>`)
		handler := regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
		for name, p := range pages {
			t.Run(name, func(t *testing.T) {
				h := p.Header
				csp := h.Get("Content-Security-Policy")
				for _, d := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "form-action 'self'", "base-uri 'none'"} {
					if !strings.Contains(csp, d) {
						t.Errorf("Content-Security-Policy %q lacks %q", csp, d)
					}
				}
				if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
					t.Errorf("Content-Security-Policy %q allows inline code", csp)
				}
				for k, v := range map[string]string{
					"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
					"Cache-Control": "no-store", "Content-Type": "text/html; charset=utf-8",
				} {
					if h.Get(k) != v {
						t.Errorf("%s: %q, want %q", k, h.Get(k), v)
					}
				}
				for _, tag := range inlineScript.FindAllString(p.Body, -1) {
					if !strings.Contains(tag, ` src="/assets/`) {
						t.Errorf("inline script %s", tag)
					}
				}
				if strings.Contains(p.Body, "style=") || strings.Contains(p.Body, "<style") || handler.MatchString(p.Body) {
					t.Errorf("inline style or event handler in the page:\n%s", p.Body)
				}
				if !strings.Contains(p.Body, `<html lang="en">`) || !strings.Contains(p.Body, `name="viewport"`) {
					t.Errorf("the page lacks its language or viewport")
				}
			})
		}

		assets := regexp.MustCompile(`(?:href|src)="(/assets/[^"]+)"`).FindAllStringSubmatch(pages["keys"].Body, -1)
		if len(assets) != 4 {
			t.Fatalf("the keys page loads %d assets, want the stylesheet, the two scripts (copy.js, desk.js) and the icon", len(assets))
		}
		for _, m := range assets {
			p := out.get(unescapeAttr(m[1]))
			if p.Status != 200 || p.Header.Get("X-Content-Type-Options") != "nosniff" || p.Body == "" {
				t.Fatalf("asset %s: %d %v", m[1], p.Status, p.Header)
			}
			ct := p.Header.Get("Content-Type")
			if !strings.HasPrefix(ct, "text/css") && !strings.HasPrefix(ct, "text/javascript") && ct != "image/svg+xml" {
				t.Fatalf("asset %s has Content-Type %q", m[1], ct)
			}
		}
		apitest.CheckEnvelope(t, s.Do(t, apitest.Request{Method: "GET", Path: "//assets/nothing.js"}), 404, "ROUTE_NOT_FOUND")
		// Every signed-in page links to the API reference (CONTRACT.md section 10).
		for _, name := range []string{"keys", "new key", "account", "rotate"} {
			if !strings.Contains(pages[name].Body, `<a href="/docs">API reference</a>`) {
				t.Errorf("the %s page does not link to /docs", name)
			}
		}
	})
}

// unescapeAttr undoes the one escape html/template applies inside these attribute URLs.
func unescapeAttr(s string) string { return strings.ReplaceAll(s, "&amp;", "&") }

// TestSignUpForm submits the sign-up form with each mistake a person can make, then correctly.
func TestSignUpForm(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		taken := newAccount("Taken Person")
		if _, err := s.Accounts.CreateUser(context.Background(), taken.Email, taken.Name, taken.Password); err != nil {
			t.Fatal(err)
		}
		long := strings.Repeat("x", 257)
		for _, tc := range []struct {
			name   string
			change func(f url.Values)
			errors []string // the messages, each shown beside its field
		}{
			{"no name", func(f url.Values) { f.Set("name", "") }, []string{"Enter your name."}},
			{"blank name", func(f url.Values) { f.Set("name", "   ") }, []string{"Enter your name."}},
			{"name too long", func(f url.Values) { f.Set("name", strings.Repeat("n", 201)) }, []string{"Use at most 200 characters for your name."}},
			{"name with NUL", func(f url.Values) { f.Set("name", "Ann\x00") }, []string{"Your name contains characters that cannot be stored."}},
			{"name not UTF-8", func(f url.Values) { f.Set("name", "Ann\xff") }, []string{"Your name contains characters that cannot be stored."}},
			{"no email", func(f url.Values) { f.Set("email", "") }, []string{"Enter your email address."}},
			{"not an email", func(f url.Values) { f.Set("email", "ann.example.com") }, []string{"Enter an email address like name@example.com."}},
			{"email with a display name", func(f url.Values) { f.Set("email", "Ann <ann@example.com>") }, []string{"Enter an email address like name@example.com."}},
			{"email with NUL", func(f url.Values) { f.Set("email", "ann\x00@example.com") }, []string{"Enter an email address like name@example.com."}},
			{"no password", func(f url.Values) { f.Set("password", ""); f.Set("confirm", "") }, []string{"Choose a password."}},
			{"password too short", func(f url.Values) { f.Set("password", "1234567"); f.Set("confirm", "1234567") }, []string{"Use at least 8 characters for your password."}},
			{"password too long", func(f url.Values) { f.Set("password", long); f.Set("confirm", long) }, []string{"Use at most 256 characters for your password."}},
			{"passwords differ", func(f url.Values) { f.Set("confirm", "something else entirely") }, []string{"The two passwords don't match."}},
			{"email taken", func(f url.Values) { f.Set("email", strings.ToUpper(taken.Email)) }, []string{"An account with this email address already exists."}},
			{"everything wrong at once", func(f url.Values) { f.Set("name", ""); f.Set("email", "x"); f.Set("password", "short") },
				[]string{"Enter your name.", "Enter an email address like name@example.com.", "Use at least 8 characters for your password."}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b := newBrowser(t, s)
				a := newAccount("Sam Signup")
				f := a.form()
				tc.change(f)
				want(t, b.get("/signup"), http.StatusOK)
				p := b.submit("/signup", f)
				want(t, p, http.StatusBadRequest, append([]string{"Please check the form:"}, tc.errors...)...)
				if !strings.Contains(p.Body, `aria-invalid="true"`) {
					t.Fatalf("no field is marked aria-invalid")
				}
				if f.Get("password") != "" && strings.Contains(p.Body, f.Get("password")) {
					t.Fatalf("the page echoes the password")
				}
				if p.cookie(auth.SessionCookie) != nil {
					t.Fatalf("a failed sign-up set a session cookie")
				}
				if _, err := s.Accounts.UserByEmail(context.Background(), a.Email); err == nil && f.Get("email") == a.Email {
					t.Fatalf("a failed sign-up created the account")
				}
			})
		}

		t.Run("the form keeps what was typed, except passwords", func(t *testing.T) {
			b := newBrowser(t, s)
			a := newAccount("Kept Values")
			f := a.form()
			f.Set("confirm", "different password")
			b.get("/signup")
			p := b.submit("/signup", f)
			want(t, p, http.StatusBadRequest)
			if !strings.Contains(p.Body, `value="`+a.Email+`"`) || !strings.Contains(p.Body, `value="`+a.Name+`"`) {
				t.Fatalf("the form lost the name or email:\n%s", p.Body)
			}
		})

		t.Run("CSRF", func(t *testing.T) {
			a := newAccount("Csrf Signup")
			b := newBrowser(t, s)
			b.get("/signup")
			f := a.form()
			want(t, b.post("/signup", f), http.StatusForbidden, "This form had expired")
			f.Set("csrf_token", "forged-token-forged-token-forged-token-abcd")
			want(t, b.post("/signup", f), http.StatusForbidden, "This form had expired")
			// A token from the page, but no cookie (a cross-site post from a page that read one).
			fresh := newBrowser(t, s)
			f.Set("csrf_token", b.token)
			want(t, fresh.post("/signup", f), http.StatusForbidden, "This form had expired")
			if _, err := s.Accounts.UserByEmail(context.Background(), a.Email); err == nil {
				t.Fatal("a sign-up without a valid CSRF token created the account")
			}
			// The 403 page carries a fresh token that works.
			p := b.submit("/signup", a.form())
			wantRedirect(t, p, "/settings/keys?welcome=1")
		})

		t.Run("success signs in", func(t *testing.T) {
			b := newBrowser(t, s)
			a := newAccount("Nina New")
			b.get("/signup")
			p := b.submit("/signup", a.form())
			wantRedirect(t, p, "/settings/keys?welcome=1")
			if c := p.cookie(auth.SessionCookie); c == nil || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" {
				t.Fatalf("session cookie %+v, want HttpOnly, SameSite=Lax, Path=/", c)
			}
			want(t, b.get("/settings/keys?welcome=1"), http.StatusOK, "Welcome to folio, Nina New.", "No active keys")
			want(t, b.get("/signup"), http.StatusSeeOther)
			u, err := s.Accounts.UserByEmail(context.Background(), strings.ToUpper(a.Email))
			if err != nil || u.Name != "Nina New" {
				t.Fatalf("account: %+v, %v", u, err)
			}
		})
	})
}

// TestSignInForm covers wrong credentials (the same answer whether or not the email has an
// account), missing fields, CSRF, success, and the session acting on the JSON API.
func TestSignInForm(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		a := newAccount("Ann Signin")
		if _, err := s.Accounts.CreateUser(context.Background(), a.Email, a.Name, a.Password); err != nil {
			t.Fatal(err)
		}
		noPassword := s.NewUser(t, "Cli Only") // made by the CLI without a password

		messageOf := regexp.MustCompile(`(?s)<div class="alert" role="alert"><p>(.*?)</p></div>`)
		var seen []string
		for _, tc := range []struct {
			name, email, password string
			status                int
			message               string
		}{
			{"wrong password", a.Email, "not the password", 401, "The email address or password is wrong."},
			{"unknown email", "nobody.here@example.com", a.Password, 401, "The email address or password is wrong."},
			{"account without a password", noPassword.Email, "anything at all", 401, "The email address or password is wrong."},
			{"email with NUL", "ann\x00@example.com", a.Password, 401, "The email address or password is wrong."},
			{"email not UTF-8", "ann\xff@example.com", a.Password, 401, "The email address or password is wrong."},
			{"password of another case", a.Email, strings.ToUpper(a.Password), 401, "The email address or password is wrong."},
			{"no email", "", a.Password, 400, "Enter your email address and password."},
			{"no password", a.Email, "", 400, "Enter your email address and password."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b := newBrowser(t, s)
				b.get("/signin")
				p := b.submit("/signin", url.Values{"email": {tc.email}, "password": {tc.password}})
				want(t, p, tc.status, tc.message)
				if p.cookie(auth.SessionCookie) != nil {
					t.Fatal("a failed sign-in set a session cookie")
				}
				if tc.password != "" && strings.Contains(p.Body, tc.password) {
					t.Fatal("the page echoes the password")
				}
				if tc.status == 401 {
					m := messageOf.FindStringSubmatch(p.Body)
					if m == nil {
						t.Fatalf("no alert on the page:\n%s", p.Body)
					}
					seen = append(seen, m[1])
				}
			})
		}
		for _, m := range seen {
			if m != seen[0] {
				t.Fatalf("wrong-credential answers differ (%q vs %q): they would tell whether an email has an account", m, seen[0])
			}
		}

		t.Run("CSRF", func(t *testing.T) {
			b := newBrowser(t, s)
			b.get("/signin")
			f := url.Values{"email": {a.Email}, "password": {a.Password}}
			p := b.post("/signin", f)
			want(t, p, http.StatusForbidden, "This form had expired")
			if p.cookie(auth.SessionCookie) != nil {
				t.Fatal("a sign-in without a CSRF token set a session cookie")
			}
			f.Set("csrf_token", "x")
			want(t, b.post("/signin", f), http.StatusForbidden, "This form had expired")
			wantRedirect(t, b.submit("/signin", f), "/app") // the 403 page's fresh token works

			// The expired form's page keeps where the sign-in was to return.
			b = newBrowser(t, s)
			b.get("/signin?next=%2Fapp%2Ftasks")
			f.Set("csrf_token", "x")
			f.Set("next", "/app/tasks")
			want(t, b.post("/signin", f), http.StatusForbidden, "This form had expired", `name="next" value="/app/tasks"`)
			wantRedirect(t, b.submit("/signin", f), "/app/tasks")
		})

		t.Run("success, and the session on the JSON API", func(t *testing.T) {
			b := newBrowser(t, s)
			b.get("/signin")
			p := b.submit("/signin", url.Values{"email": {"  " + strings.ToUpper(a.Email) + " "}, "password": {a.Password}})
			wantRedirect(t, p, "/app")
			c := p.cookie(auth.SessionCookie)
			if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure {
				t.Fatalf("session cookie %+v", c)
			}
			if ttl := time.Duration(c.MaxAge) * time.Second; ttl < s.Config.SessionTTL-time.Minute || ttl > s.Config.SessionTTL {
				t.Fatalf("session cookie Max-Age %v, want the session TTL %v", ttl, s.Config.SessionTTL)
			}
			want(t, b.get("/settings/keys"), http.StatusOK, "Ann Signin")
			want(t, b.get("/signin"), http.StatusSeeOther)
			apitest.Must(t, b.api("GET", "/notebooks", ""), 200)
			// The form token is the session's CSRF token: it is what the API takes in X-CSRF-Token.
			apitest.Must(t, b.api("POST", "/notebooks", `{"name":"From the session"}`), 201)
			tok := b.token
			b.token = "wrong"
			apitest.CheckEnvelope(t, b.api("POST", "/notebooks", `{"name":"x"}`), 403, "CSRF_TOKEN_INVALID")
			b.token = tok
		})

		t.Run("signing in again ends the previous session", func(t *testing.T) {
			b := newBrowser(t, s)
			want(t, b.get("/signin"), http.StatusOK)
			form := url.Values{"email": {a.Email}, "password": {a.Password}, "csrf_token": {b.token}}
			wantRedirect(t, b.post("/signin", form), "/app")
			old := b.sessionCookie()
			// The same form again (as from a second tab): a new session replaces the old one.
			wantRedirect(t, b.post("/signin", form), "/app")
			if b.sessionCookie() == old {
				t.Fatal("signing in again kept the session token")
			}
			r := s.Do(t, apitest.Request{Method: "GET", Path: "/notebooks", Header: apitest.SessionHeader(old, "")})
			apitest.CheckEnvelope(t, r, 401, "UNAUTHENTICATED")
		})
	})
}

// TestSignInRateLimit: failed sign-ins are limited per client address, in a budget of their own
// (not the API's); over it even the right password is refused, with a clear message.
func TestSignInRateLimit(t *testing.T) {
	apitest.ForEachDBWithClock(t, time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC), func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		a := newAccount("Ann Limited")
		if _, err := s.Accounts.CreateUser(context.Background(), a.Email, a.Name, a.Password); err != nil {
			t.Fatal(err)
		}
		b := newBrowser(t, s)
		b.get("/signin")
		wrong := url.Values{"email": {a.Email}, "password": {"wrong password"}}
		right := url.Values{"email": {a.Email}, "password": {a.Password}}
		for i := 0; i < 3; i++ {
			want(t, b.submit("/signin", wrong), http.StatusUnauthorized, "The email address or password is wrong.")
		}
		p := b.submit("/signin", right)
		want(t, p, http.StatusTooManyRequests, "Too many failed attempts from your network. Wait a minute, then try again.")
		if p.Header.Get("Retry-After") != "60" || p.cookie(auth.SessionCookie) != nil {
			t.Fatalf("429: Retry-After %q, session cookie %v", p.Header.Get("Retry-After"), p.cookie(auth.SessionCookie))
		}
		// The API is not locked by it: a valid key from this address is accepted, and a bad one
		// still gets its 401 (failed API authentications have their own budget).
		key := s.NewKey(t, apitest.User{ID: userID(t, s, a.Email)}, auth.ScopeRead)
		apitest.Must(t, s.Get(t, key, "/notebooks"), 200)
		unknown, _, _ := auth.NewKey()
		apitest.CheckEnvelope(t, s.Get(t, unknown, "/notebooks"), 401, "UNAUTHENTICATED")
		// The sign-up and password forms answer the same.
		b2 := newBrowser(t, s)
		b2.get("/signup")
		want(t, b2.submit("/signup", newAccount("Late Comer").form()), http.StatusTooManyRequests, "Too many failed attempts")

		fake.Advance(61 * time.Second)
		wantRedirect(t, b.submit("/signin", right), "/app")
	}, apitest.AuthFailureLimit(3))

	t.Run("failed API authentications do not lock the sign-in form", func(t *testing.T) {
		s := apitest.Start(t, "sqlite", apitest.AuthFailureLimit(2))
		a := newAccount("Ann Shared")
		if _, err := s.Accounts.CreateUser(context.Background(), a.Email, a.Name, a.Password); err != nil {
			t.Fatal(err)
		}
		unknown, _, _ := auth.NewKey()
		apitest.CheckEnvelope(t, s.Get(t, unknown, "/notebooks"), 401, "UNAUTHENTICATED")
		apitest.CheckEnvelope(t, s.Get(t, unknown, "/notebooks"), 401, "UNAUTHENTICATED")
		apitest.CheckEnvelope(t, s.Get(t, unknown, "/notebooks"), 429, "RATE_LIMIT_EXCEEDED")
		b := newBrowser(t, s)
		b.get("/signin")
		wantRedirect(t, b.submit("/signin", url.Values{"email": {a.Email}, "password": {a.Password}}), "/app")
	})

	t.Run("a taken email on sign-up counts as a failure", func(t *testing.T) {
		s := apitest.Start(t, "sqlite", apitest.AuthFailureLimit(2))
		a := newAccount("Ann Taken")
		if _, err := s.Accounts.CreateUser(context.Background(), a.Email, a.Name, a.Password); err != nil {
			t.Fatal(err)
		}
		b := newBrowser(t, s)
		b.get("/signup")
		for i := 0; i < 2; i++ {
			want(t, b.submit("/signup", a.form()), http.StatusBadRequest, "already exists")
		}
		want(t, b.submit("/signup", a.form()), http.StatusTooManyRequests, "Too many failed attempts")
		b.get("/signin")
		want(t, b.submit("/signin", url.Values{"email": {a.Email}, "password": {a.Password}}), http.StatusTooManyRequests)
	})

	t.Run("successful sign-ins do not count", func(t *testing.T) {
		s := apitest.Start(t, "sqlite", apitest.AuthFailureLimit(2))
		a := newAccount("Ann Often")
		if _, err := s.Accounts.CreateUser(context.Background(), a.Email, a.Name, a.Password); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			signIn(t, newBrowser(t, s), a)
		}
	})
}

// TestSignOut: sign-out needs the CSRF token, ends the server-side session (the cookie is then
// worthless on the pages and on the API) and clears the cookie.
func TestSignOut(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		b := newBrowser(t, s)
		signUp(t, b, "Ann Signout")
		token := b.sessionCookie()
		apitest.Must(t, b.api("GET", "/notebooks", ""), 200) // caches the session on this instance

		want(t, b.post("/signout", url.Values{}), http.StatusForbidden, "This form has expired")
		want(t, b.post("/signout", url.Values{"csrf_token": {"nope"}}), http.StatusForbidden)
		apitest.Must(t, b.api("GET", "/notebooks", ""), 200)

		p := b.submit("/signout", nil)
		wantRedirect(t, p, "/signin?signedout=1")
		if c := p.cookie(auth.SessionCookie); c == nil || c.MaxAge >= 0 {
			t.Fatalf("sign-out did not delete the cookie: %+v", c)
		}
		want(t, b.get("/signin?signedout=1"), http.StatusOK, "You have signed out.")
		apitest.CheckEnvelope(t, s.Do(t, apitest.Request{Method: "GET", Path: "/notebooks", Header: apitest.SessionHeader(token, "")}), 401, "UNAUTHENTICATED")
		replay := newBrowser(t, s)
		req := s.URL + "/settings/keys"
		u, _ := url.Parse(req)
		replay.c.Jar.SetCookies(u, []*http.Cookie{{Name: auth.SessionCookie, Value: token}})
		wantRedirect(t, replay.get("/settings/keys"), signInFor("/settings/keys"))
		var n int64
		if err := s.DB.Table("sessions").Where("token_hash = ?", auth.HashSessionToken(token)).Count(&n).Error; err != nil || n != 0 {
			t.Fatalf("the session record is still there (%d, %v)", n, err)
		}
	})
}

// TestSettingsNeedASession: without a live session every settings page sends the browser to sign
// in, and no POST changes anything.
func TestSettingsNeedASession(t *testing.T) {
	fake := clock.NewFake(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	s := apitest.StartFx(t, "sqlite", []apitest.Option{func(c *config.Config) { c.SessionTTL = time.Hour }}, apitest.FakeClock(fake))
	owner := newBrowser(t, s)
	signUp(t, owner, "Ann Owner")
	raw := createKey(t, owner, "kept", 3, "")
	prefix := apitest.KeyPrefix(t, raw)

	for _, cookie := range []struct{ name, value string }{{"no cookie", ""}, {"garbage cookie", "garbage"}} {
		t.Run(cookie.name, func(t *testing.T) {
			b := newBrowser(t, s)
			if cookie.value != "" {
				u, _ := url.Parse(s.URL)
				b.c.Jar.SetCookies(u, []*http.Cookie{{Name: auth.SessionCookie, Value: cookie.value}})
			}
			for _, path := range []string{"/settings/keys", "/settings/keys/new", "/settings/account", "/settings/keys/" + prefix + "/rotate", "/settings/keys/" + prefix + "/revoke"} {
				wantRedirect(t, b.get(path), signInFor(path))
			}
			for _, path := range []string{"/settings/keys", "/settings/keys/" + prefix + "/rotate", "/settings/keys/" + prefix + "/revoke", "/signout", "/settings/account/password"} {
				wantRedirect(t, b.post(path, url.Values{"csrf_token": {owner.token}, "name": {"x"}, "scope": {"3"}}), "/signin")
			}
		})
	}
	apitest.Must(t, s.Get(t, raw, "/notebooks"), 200)
	if keys, _ := s.Accounts.Keys(context.Background(), userID(t, s, newAccountEmail(t, s, "Ann Owner"))); len(keys) != 1 {
		t.Fatalf("%d keys, want only the one created", len(keys))
	}
	wantRedirect(t, owner.get("/settings"), "/settings/keys")

	t.Run("an expired session", func(t *testing.T) {
		fake.Advance(time.Hour + time.Second)
		wantRedirect(t, owner.get("/settings/keys"), signInFor("/settings/keys"))
		apitest.CheckEnvelope(t, owner.api("GET", "/notebooks", ""), 401, "UNAUTHENTICATED")
	})
}

// newAccountEmail finds the email of the only account with this name (made by signUp).
func newAccountEmail(t *testing.T, s *apitest.Server, name string) string {
	t.Helper()
	var email string
	if err := s.DB.Table("users").Where("name = ?", name).Select("email").Scan(&email).Error; err != nil || email == "" {
		t.Fatalf("no account named %q: %v", name, err)
	}
	return email
}

// TestOperatorSetsPassword: a user created without a password (as `folio user create` does) cannot
// sign in; after the operator's reset (`folio user set-password`, accounts.SetPassword) they can,
// a too-short password is refused with the rule's message, and a reset ends every session the
// user had.
func TestOperatorSetsPassword(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		ctx := context.Background()
		a := newAccount("Carl Cli")
		if _, err := s.Accounts.CreateUser(ctx, a.Email, a.Name, ""); err != nil {
			t.Fatal(err)
		}
		b := newBrowser(t, s)
		want(t, b.get("/signin"), http.StatusOK)
		want(t, b.submit("/signin", url.Values{"email": {a.Email}, "password": {a.Password}}), http.StatusUnauthorized)

		if err := s.Accounts.SetPassword(ctx, a.Email, "short"); err == nil || !strings.Contains(err.Error(), "8 characters") {
			t.Fatalf("a 5-character password: %v, want the password rule", err)
		}
		if err := s.Accounts.SetPassword(ctx, "nobody@example.com", a.Password); err == nil {
			t.Fatal("set-password for an unknown email succeeded")
		}
		if err := s.Accounts.SetPassword(ctx, strings.ToUpper(a.Email), a.Password); err != nil {
			t.Fatal(err)
		}
		signIn(t, b, a)
		token := b.sessionCookie()
		apitest.Must(t, b.api("GET", "/notebooks", ""), 200)

		a.Password += " again"
		if err := s.Accounts.SetPassword(ctx, a.Email, a.Password); err != nil {
			t.Fatal(err)
		}
		apitest.CheckEnvelope(t, s.Do(t, apitest.Request{Method: "GET", Path: "/notebooks", Header: apitest.SessionHeader(token, "")}), 401, "UNAUTHENTICATED")
		signIn(t, newBrowser(t, s), a)
	})
}

// TestCookieFlags: the session cookie (and the sign-in form's token cookie) are HttpOnly and
// SameSite=Lax; Secure follows FOLIO_COOKIE_SECURE, and with auto, TLS as seen directly or as
// reported by a trusted proxy only.
func TestCookieFlags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mode    string
		proxies []string
		header  []string
		secure  bool
	}{
		{"auto over plain HTTP", "auto", nil, nil, false},
		{"auto, X-Forwarded-Proto from an untrusted peer", "auto", nil, []string{"X-Forwarded-Proto", "https"}, false},
		{"auto, X-Forwarded-Proto https from a trusted proxy", "auto", []string{"127.0.0.1/32"}, []string{"X-Forwarded-Proto", "https"}, true},
		{"auto, a trusted proxy given as an address", "auto", []string{"127.0.0.1"}, []string{"X-Forwarded-Proto", "HTTPS, http"}, true},
		{"auto, X-Forwarded-Proto http from a trusted proxy", "auto", []string{"127.0.0.1/32"}, []string{"X-Forwarded-Proto", "http"}, false},
		{"true", "true", nil, nil, true},
		{"false, even behind a trusted TLS proxy", "false", []string{"127.0.0.1/32"}, []string{"X-Forwarded-Proto", "https"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := apitest.Start(t, "sqlite", func(c *config.Config) { c.CookieSecure = tc.mode; c.TrustedProxies = tc.proxies })
			b := newBrowser(t, s)
			a := newAccount("Ann Cookie")
			req, _ := http.NewRequest("GET", s.URL+"/signup", nil)
			for i := 0; i+1 < len(tc.header); i += 2 {
				req.Header.Set(tc.header[i], tc.header[i+1])
			}
			first := b.do(req)
			f := a.form()
			f.Set("csrf_token", b.token)
			p := b.post("/signup", f, tc.header...)
			wantRedirect(t, p, "/settings/keys?welcome=1")
			for name, c := range map[string]*http.Cookie{"session": p.cookie(auth.SessionCookie), "form token": first.cookie("folio_csrf")} {
				if c == nil {
					t.Fatalf("no %s cookie", name)
				}
				if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Secure != tc.secure {
					t.Fatalf("%s cookie: HttpOnly %v, SameSite %v, Path %q, Secure %v; want HttpOnly, Lax, /, Secure %v",
						name, c.HttpOnly, c.SameSite, c.Path, c.Secure, tc.secure)
				}
			}
		})
	}
}

// TestChangePassword: every validation error, CSRF, a wrong current password; a change ends every
// session (this browser gets a new one), and only the new password signs in.
func TestChangePassword(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		b := newBrowser(t, s)
		a := signUp(t, b, "Ann Password")
		elsewhere := newBrowser(t, s)
		signIn(t, elsewhere, a)
		const next = "a brand new passphrase"
		long := strings.Repeat("p", 257)
		want(t, b.get("/settings/account"), http.StatusOK, "Change password", a.Email, `for="current"`, `for="new"`, `for="confirm"`)

		for _, tc := range []struct {
			name    string
			form    url.Values
			status  int
			message string
		}{
			{"no current password", url.Values{"new": {next}, "confirm": {next}}, 400, "Enter your current password."},
			{"no new password", url.Values{"current": {a.Password}}, 400, "Choose a new password."},
			{"new password too short", url.Values{"current": {a.Password}, "new": {"short"}, "confirm": {"short"}}, 400, "Use at least 8 characters for your password."},
			{"new password too long", url.Values{"current": {a.Password}, "new": {long}, "confirm": {long}}, 400, "Use at most 256 characters for your password."},
			{"passwords differ", url.Values{"current": {a.Password}, "new": {next}, "confirm": {next + "!"}}, 400, "The two passwords don't match."},
			{"wrong current password", url.Values{"current": {"not it at all"}, "new": {next}, "confirm": {next}}, 400, "That is not your current password."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				want(t, b.submit("/settings/account/password", tc.form), tc.status, tc.message)
			})
		}
		t.Run("CSRF", func(t *testing.T) {
			f := url.Values{"current": {a.Password}, "new": {next}, "confirm": {next}}
			want(t, b.post("/settings/account/password", f), http.StatusForbidden, "This form has expired")
			f.Set("csrf_token", elsewhere.token)
			want(t, b.post("/settings/account/password", f), http.StatusForbidden)
		})
		// Nothing above changed the password or ended a session.
		want(t, elsewhere.get("/settings/keys"), http.StatusOK)
		oldToken := b.sessionCookie()

		p := b.submit("/settings/account/password", url.Values{"current": {a.Password}, "new": {next}, "confirm": {next}})
		wantRedirect(t, p, "/settings/account?changed=1")
		if c := p.cookie(auth.SessionCookie); c == nil || c.Value == oldToken || !c.HttpOnly {
			t.Fatalf("no new session cookie: %+v", c)
		}
		want(t, b.get("/settings/account?changed=1"), http.StatusOK, "Your password was changed.")
		wantRedirect(t, elsewhere.get("/settings/keys"), signInFor("/settings/keys"))
		apitest.CheckEnvelope(t, elsewhere.api("GET", "/notebooks", ""), 401, "UNAUTHENTICATED")
		apitest.CheckEnvelope(t, s.Do(t, apitest.Request{Method: "GET", Path: "/notebooks", Header: apitest.SessionHeader(oldToken, "")}), 401, "UNAUTHENTICATED")
		apitest.Must(t, b.api("GET", "/notebooks", ""), 200)

		fresh := newBrowser(t, s)
		fresh.get("/signin")
		want(t, fresh.submit("/signin", url.Values{"email": {a.Email}, "password": {a.Password}}), http.StatusUnauthorized)
		a.Password = next
		signIn(t, fresh, a)
	})
}
