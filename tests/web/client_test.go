package web

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"folio/platform/auth"
	"folio/tests/apitest"
)

// browser is an HTTP client with a cookie jar that does not follow redirects, so that every
// answer of the UI (a page or a 303) is seen as it is.
type browser struct {
	t     testing.TB
	s     *apitest.Server
	c     *http.Client
	token string // the CSRF token of the last page that carried one
}

func newBrowser(t testing.TB, s *apitest.Server) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, s: s, c: &http.Client{
		Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// page is one answer of the UI.
type page struct {
	Status int
	Header http.Header
	Body   string // raw HTML
	Text   string // Body with HTML entities decoded (for matching messages)
}

// Location returns the redirect target.
func (p page) Location() string { return p.Header.Get("Location") }

// Contains reports whether the decoded page text contains s.
func (p page) Contains(s string) bool { return strings.Contains(p.Text, s) }

// cookie returns the Set-Cookie of this response for name.
func (p page) cookie(name string) *http.Cookie {
	for _, c := range (&http.Response{Header: p.Header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	p := page{Status: resp.StatusCode, Header: resp.Header, Body: string(raw), Text: html.UnescapeString(string(raw))}
	if tok := formToken(p.Body); tok != "" {
		b.token = tok
	}
	return p
}

func (b *browser) get(path string) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.s.URL+path, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.do(req)
}

// post submits form as a browser would (application/x-www-form-urlencoded), exactly as given.
func (b *browser) post(path string, form url.Values, header ...string) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.s.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return b.do(req)
}

// submit posts form with the CSRF token of the last page seen (as the page's form would).
func (b *browser) submit(path string, form url.Values) page {
	b.t.Helper()
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	f.Set("csrf_token", b.token)
	return b.post(path, f)
}

// api calls the JSON API with the browser's cookies (the session) and, for writes, the CSRF
// header carrying the token the settings pages put in their forms.
func (b *browser) api(method, path, body string) apitest.Response {
	b.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, b.s.URL+"/api/v1"+path, rd)
	if err != nil {
		b.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if method != http.MethodGet {
		req.Header.Set(auth.CSRFHeader, b.token)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
	b.s.Contract.Check(b.t, req, []byte(body), out)
	return out
}

// sessionCookie returns the session cookie the jar holds ("" when none).
func (b *browser) sessionCookie() string {
	u, _ := url.Parse(b.s.URL)
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == auth.SessionCookie {
			return c.Value
		}
	}
	return ""
}

var (
	tokenRe  = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)
	rawKeyRe = regexp.MustCompile(`id="raw-key"[^>]*>(svc_live_[A-Za-z0-9]{8}_[A-Za-z0-9]{24})<`)
	anyKeyRe = regexp.MustCompile(`svc_live_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}`)
)

func formToken(body string) string {
	if m := tokenRe.FindStringSubmatch(body); m != nil {
		return m[1]
	}
	return ""
}

// rawKey returns the raw key a page shows, failing the test when there is none.
func rawKey(t testing.TB, p page) string {
	t.Helper()
	m := rawKeyRe.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("no raw key on the page (status %d):\n%s", p.Status, p.Body)
	}
	return m[1]
}

// want fails the test unless the page has the status and contains every text.
func want(t testing.TB, p page, status int, texts ...string) {
	t.Helper()
	if p.Status != status {
		t.Fatalf("status %d, want %d; page:\n%s", p.Status, status, p.Text)
	}
	for _, s := range texts {
		if !p.Contains(s) {
			t.Fatalf("the page (status %d) does not say %q:\n%s", p.Status, s, p.Text)
		}
	}
}

// signInFor is where a GET of path without a session goes: the sign-in page, which returns to
// path once signed in.
func signInFor(path string) string { return "/signin?next=" + url.QueryEscape(path) }

// wantRedirect fails the test unless the answer is a 303 to location.
func wantRedirect(t testing.TB, p page, location string) {
	t.Helper()
	if p.Status != http.StatusSeeOther || p.Location() != location {
		t.Fatalf("got %d to %q, want 303 to %q; body:\n%s", p.Status, p.Location(), location, p.Text)
	}
}

var seq atomic.Int64

// account is a user made through the sign-up form.
type account struct {
	Name, Email, Password string
}

func newAccount(name string) account {
	n := seq.Add(1)
	return account{
		Name:     name,
		Email:    fmt.Sprintf("%s.%d@example.com", strings.ToLower(strings.ReplaceAll(name, " ", ".")), n),
		Password: fmt.Sprintf("correct horse battery %d", n),
	}
}

func (a account) form() url.Values {
	return url.Values{"name": {a.Name}, "email": {a.Email}, "password": {a.Password}, "confirm": {a.Password}}
}

// signUp creates an account through the form; the browser is then signed in and has seen the
// keys page (so b.token is the session's CSRF token).
func signUp(t testing.TB, b *browser, name string) account {
	t.Helper()
	a := newAccount(name)
	want(t, b.get("/signup"), http.StatusOK)
	wantRedirect(t, b.submit("/signup", a.form()), "/settings/keys?welcome=1")
	want(t, b.get("/settings/keys"), http.StatusOK, "API keys")
	return a
}

// signIn signs the browser in through the form (it lands on the web app's Focus) and loads the
// keys page.
func signIn(t testing.TB, b *browser, a account) {
	t.Helper()
	want(t, b.get("/signin"), http.StatusOK)
	wantRedirect(t, b.submit("/signin", url.Values{"email": {a.Email}, "password": {a.Password}}), "/app")
	want(t, b.get("/settings/keys"), http.StatusOK)
}

// createKey submits the new-key form and returns the raw key the answer shows.
func createKey(t testing.TB, b *browser, name string, scope int, access string) string {
	t.Helper()
	want(t, b.get("/settings/keys/new"), http.StatusOK)
	p := b.submit("/settings/keys", url.Values{"name": {name}, "scope": {fmt.Sprint(scope)}, "access": {access}})
	want(t, p, http.StatusOK, "Copy this key now")
	return rawKey(t, p)
}

// userID finds an account's id.
func userID(t testing.TB, s *apitest.Server, email string) string {
	t.Helper()
	u, err := s.Accounts.UserByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}
