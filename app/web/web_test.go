package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gin-gonic/gin"

	"folio/app/web"
	"folio/modules/accounts"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/config"
	"folio/platform/httpx"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// sessions is a fake of the accounts module's sessions: the cookie "ann" is Ann's session (CSRF
// token "ann-token"), "down" is a database that cannot be reached, anything else is no session.
type sessions struct{}

func (sessions) CurrentSession(_ context.Context, token string) (accounts.Session, error) {
	switch token {
	case "ann":
		return accounts.Session{ID: "s1", UserID: "u1", CSRFToken: "ann-token", User: &accounts.User{ID: "u1", Name: "Ann", Email: "ann@example.com"}}, nil
	case "down":
		return accounts.Session{}, apierr.New(http.StatusServiceUnavailable, "UNAVAILABLE", "no database")
	}
	return accounts.Session{}, accounts.ErrNoSession
}

// jobTemplates are a job's templates as a job package embeds them: a page, a broken page, and the
// partials both are parsed with.
var jobTemplates = fstest.MapFS{
	"t/partials.html": {Data: []byte(`{{define "hello"}}Hello, {{.}}{{end}}`)},
	"t/page.html":     {Data: []byte(`{{define "content"}}<p id="said">{{template "hello" .User.Name}} ({{shout .Title}})</p>{{end}}`)},
	"t/broken.html":   {Data: []byte(`{{define "content"}}{{.NoSuchField}}{{end}}`)},
}

// site serves a job made of jobTemplates on a test server: GET /page and POST /form need a session
// (the form's handler counts its calls), GET /broken renders a page that fails.
func site(t *testing.T, c config.Config, proxies httpx.TrustedProxies) (url string, calls *int) {
	t.Helper()
	s, err := web.NewSite(web.SiteParams{Sessions: sessions{}, Config: c, Proxies: proxies})
	if err != nil {
		t.Fatal(err)
	}
	pages, err := s.Pages(jobTemplates, "t", map[string]any{"shout": strings.ToUpper})
	if err != nil {
		t.Fatal(err)
	}
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	r := httpx.Router{Public: httpx.NewRouteGroup(&e.RouterGroup)}
	s.Register(r)
	g := web.Group(r)
	n := 0
	g.GET("/page", pages.SignedIn(func(c *gin.Context, sess accounts.Session) {
		pages.Render(c, http.StatusOK, "page", web.Base(&sess, "Test page", ""))
	}))
	g.POST("/form", pages.SignedIn(func(c *gin.Context, sess accounts.Session) {
		n++
		pages.Message(c, http.StatusOK, &sess, "Done", "The form was "+c.Request.PostForm.Get("what")+".")
	}))
	g.GET("/broken", func(c *gin.Context) { pages.Render(c, http.StatusOK, "broken", web.Base(nil, "Broken", "")) })
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv.URL, &n
}

type answer struct {
	status int
	header http.Header
	body   string
}

func send(t *testing.T, method, url, cookie, body string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: auth.SessionCookie, Value: cookie})
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(raw)}
}

// wantHeaders fails unless a page carries every security header of the web pages.
func wantHeaders(t *testing.T, a answer) {
	t.Helper()
	for name, want := range map[string]string{
		"Content-Security-Policy":    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
		"X-Frame-Options":            "DENY",
		"X-Content-Type-Options":     "nosniff",
		"Referrer-Policy":            "no-referrer",
		"Cross-Origin-Opener-Policy": "same-origin",
		"Cache-Control":              "no-store",
	} {
		if got := a.header.Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

// TestSignedIn: a page of any job that needs a session sends a browser without one to the sign-in
// page (and drops a cookie that names no session), renders with the job's partials and functions
// in the shared layout, and runs a POST's handler only when its form repeats the session's CSRF
// token; every answer has the security headers.
func TestSignedIn(t *testing.T) {
	base, calls := site(t, config.Default(), nil)
	form := func(v url.Values) string { return v.Encode() }

	a := send(t, "GET", base+"/page", "", "")
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/signin?next=%2Fpage" || a.header.Get("Set-Cookie") != "" {
		t.Fatalf("no session: %d to %q, Set-Cookie %q; want 303 to /signin?next=%%2Fpage, no cookie", a.status, a.header.Get("Location"), a.header.Get("Set-Cookie"))
	}
	wantHeaders(t, a)
	a = send(t, "GET", base+"/page", "ended", "")
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/signin?next=%2Fpage" || !strings.HasPrefix(a.header.Get("Set-Cookie"), auth.SessionCookie+"=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax") {
		t.Fatalf("an ended session: %d to %q, Set-Cookie %q; want 303 to /signin, the cookie deleted", a.status, a.header.Get("Location"), a.header.Get("Set-Cookie"))
	}
	a = send(t, "GET", base+"/page", "ann", "")
	if a.status != http.StatusOK || a.header.Get("Content-Type") != "text/html; charset=utf-8" ||
		!strings.Contains(a.body, `<p id="said">Hello, Ann (TEST PAGE)</p>`) || !strings.Contains(a.body, `<title>Test page · folio</title>`) ||
		!strings.Contains(a.body, `name="csrf_token" value="ann-token"`) {
		t.Fatalf("the page: %d %q\n%s", a.status, a.header.Get("Content-Type"), a.body)
	}
	wantHeaders(t, a)

	for _, tc := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"no token", form(url.Values{"what": {"sent"}}), http.StatusForbidden, "This form has expired"},
		{"an empty token", form(url.Values{"what": {"sent"}, "csrf_token": {""}}), http.StatusForbidden, "This form has expired"},
		{"another token", form(url.Values{"what": {"sent"}, "csrf_token": {"ann-token2"}}), http.StatusForbidden, "This form has expired"},
		{"a form that cannot be read", "what=%zz&csrf_token=ann-token", http.StatusBadRequest, "This form could not be read"},
		{"the session's token", form(url.Values{"what": {"sent"}, "csrf_token": {"ann-token"}}), http.StatusOK, "The form was sent."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := *calls
			a := send(t, "POST", base+"/form", "ann", tc.body)
			if a.status != tc.status || !strings.Contains(a.body, tc.says) {
				t.Fatalf("%d, want %d saying %q:\n%s", a.status, tc.status, tc.says, a.body)
			}
			if ran := *calls > before; ran != (tc.status == http.StatusOK) {
				t.Fatalf("the form's handler ran: %v", ran)
			}
			wantHeaders(t, a)
		})
	}
	// The token in a header, as the JSON API takes it, is not the form's.
	if a := send(t, "POST", base+"/form", "ann", "what=sent", auth.CSRFHeader, "ann-token"); a.status != http.StatusForbidden {
		t.Fatalf("the token in %s: %d, want 403", auth.CSRFHeader, a.status)
	}
	if a := send(t, "POST", base+"/form", "", form(url.Values{"csrf_token": {"ann-token"}})); a.status != http.StatusSeeOther || a.header.Get("Location") != "/signin" {
		t.Fatalf("a POST without a session: %d to %q, want 303 to /signin", a.status, a.header.Get("Location"))
	}
}

// TestPagesFailSafely: a session store that cannot be reached gives a 503 page with Retry-After,
// and a page whose template fails gives a plain 500 with nothing of the half-rendered page.
func TestPagesFailSafely(t *testing.T) {
	base, _ := site(t, config.Default(), nil)
	a := send(t, "GET", base+"/page", "down", "")
	if a.status != http.StatusServiceUnavailable || a.header.Get("Retry-After") == "" || !strings.Contains(a.body, "Temporarily unavailable") {
		t.Fatalf("no database: %d, Retry-After %q:\n%s", a.status, a.header.Get("Retry-After"), a.body)
	}
	wantHeaders(t, a)
	a = send(t, "GET", base+"/broken", "", "")
	if a.status != http.StatusInternalServerError || a.header.Get("Content-Type") != "text/plain; charset=utf-8" ||
		a.body != "Something went wrong on our side. Please try again.\n" {
		t.Fatalf("a broken page: %d %q %q", a.status, a.header.Get("Content-Type"), a.body)
	}
}

// TestCookieSecure: with FOLIO_COOKIE_SECURE=auto a cookie is Secure when the request came through
// a trusted proxy that says https (the test server's peer is 127.0.0.1), never on anyone else's
// word; true and false decide alone.
func TestCookieSecure(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mode    string
		proxies httpx.TrustedProxies
		proto   string
		secure  bool
	}{
		{"auto, plain HTTP", "auto", nil, "", false},
		{"auto, https from an untrusted peer", "auto", nil, "https", false},
		{"auto, https from a trusted proxy", "auto", httpx.TrustedProxies{"127.0.0.0/8"}, "https", true},
		{"auto, http from a trusted proxy", "auto", httpx.TrustedProxies{"127.0.0.1"}, "http", false},
		{"true", "true", nil, "", true},
		{"false behind a trusted https proxy", "false", httpx.TrustedProxies{"127.0.0.1"}, "https", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := config.Default()
			c.CookieSecure = tc.mode
			base, _ := site(t, c, tc.proxies)
			var header []string
			if tc.proto != "" {
				header = []string{"X-Forwarded-Proto", tc.proto}
			}
			a := send(t, "GET", base+"/page", "ended", "", header...)
			cookies := (&http.Response{Header: a.header}).Cookies()
			if len(cookies) != 1 || cookies[0].Secure != tc.secure {
				t.Fatalf("cookies %+v, want one with Secure %v", cookies, tc.secure)
			}
		})
	}
}

// TestRoutesByJob: the real server answers every page of every job (sign-in, keys, review) at the
// URLs the pages had before they were split by job: the signed-out pages render, every page that
// needs a session sends the browser to /signin, each with the security headers; the assets are
// served without them. (The pages themselves are tested in tests/web, on both databases.)
func TestRoutesByJob(t *testing.T) {
	s := apitest.Start(t, "sqlite")
	const id = "0123456789abcdefghijklmn"
	for _, tc := range []struct {
		method, path string
		status       int
		location     string
	}{
		{"GET", "/signup", http.StatusOK, ""},
		{"HEAD", "/signup", http.StatusOK, ""},
		{"GET", "/signin", http.StatusOK, ""},
		{"POST", "/signup", http.StatusForbidden, ""}, // no double-submit token
		{"POST", "/signin", http.StatusForbidden, ""},
		{"GET", "/signout", http.StatusSeeOther, "/settings/keys"},
		{"POST", "/signout", http.StatusSeeOther, "/signin"},
		{"GET", "/settings", http.StatusSeeOther, "/settings/keys"},
		{"GET", "/settings/account", http.StatusSeeOther, "/signin"},
		{"POST", "/settings/account/password", http.StatusSeeOther, "/signin"},
		{"GET", "/settings/keys", http.StatusSeeOther, "/signin"},
		{"GET", "/settings/keys/new", http.StatusSeeOther, "/signin"},
		{"POST", "/settings/keys", http.StatusSeeOther, "/signin"},
		{"GET", "/settings/keys/ABCD1234/rotate", http.StatusSeeOther, "/signin"},
		{"POST", "/settings/keys/ABCD1234/rotate", http.StatusSeeOther, "/signin"},
		{"GET", "/settings/keys/ABCD1234/revoke", http.StatusSeeOther, "/signin"},
		{"POST", "/settings/keys/ABCD1234/revoke", http.StatusSeeOther, "/signin"},
		{"GET", "/settings/webhooks", http.StatusSeeOther, "/settings/keys#webhooks"},
		{"GET", "/settings/webhooks/" + id + "/delete", http.StatusSeeOther, "/signin"},
		{"POST", "/settings/webhooks/" + id + "/delete", http.StatusSeeOther, "/signin"},
		{"GET", "/settings/calendar-feeds", http.StatusSeeOther, "/settings/keys#calendar-feeds"},
		{"GET", "/settings/calendar-feeds/" + id + "/delete", http.StatusSeeOther, "/signin"},
		{"POST", "/settings/calendar-feeds/" + id + "/delete", http.StatusSeeOther, "/signin"},
		{"GET", "/review", http.StatusSeeOther, "/signin"},
		{"GET", "/review/suggestions/" + id, http.StatusSeeOther, "/signin"},
		{"POST", "/review/suggestions/" + id + "/approve", http.StatusSeeOther, "/signin"},
		{"POST", "/review/suggestions/" + id + "/reject", http.StatusSeeOther, "/signin"},
		{"GET", "/review/notes/" + id + "/history", http.StatusSeeOther, "/signin"},
		{"GET", "/review/tasks/" + id + "/history/" + id, http.StatusSeeOther, "/signin"},
		{"POST", "/review/notes/" + id + "/history/" + id + "/restore", http.StatusSeeOther, "/signin"},
		{"POST", "/review/tasks/" + id + "/history/" + id + "/restore", http.StatusSeeOther, "/signin"},
		{"GET", "/", http.StatusSeeOther, "/signin"},
		{"GET", "/app", http.StatusSeeOther, "/signin"},
		{"POST", "/app/time-zone", http.StatusSeeOther, "/signin"},
		{"GET", "/settings/time-zone", http.StatusSeeOther, "/signin"},
		{"GET", "/app/notebooks", http.StatusSeeOther, "/signin"},
		{"GET", "/app/notebooks/" + id, http.StatusSeeOther, "/signin"},
		{"GET", "/app/notes/new", http.StatusSeeOther, "/signin"},
		{"POST", "/app/notes", http.StatusSeeOther, "/signin"},
		{"GET", "/app/notes/" + id, http.StatusSeeOther, "/signin"},
		{"GET", "/app/notes/" + id + "/edit", http.StatusSeeOther, "/signin"},
		{"POST", "/app/notes/" + id + "/edit", http.StatusSeeOther, "/signin"},
		{"POST", "/app/notes/" + id + "/archive", http.StatusSeeOther, "/signin"},
		{"POST", "/app/notes/" + id + "/move", http.StatusSeeOther, "/signin"},
		{"GET", "/app/notes/" + id + "/delete", http.StatusSeeOther, "/signin"},
		{"POST", "/app/notes/" + id + "/delete", http.StatusSeeOther, "/signin"},
		{"GET", "/app/tasks", http.StatusSeeOther, "/signin"},
		{"GET", "/app/tasks/" + id, http.StatusSeeOther, "/signin"},
		{"POST", "/app/tasks/" + id + "/status", http.StatusSeeOther, "/signin"},
		{"GET", "/app/people/sam", http.StatusSeeOther, "/signin"},
		{"GET", "/app/tags/q4", http.StatusSeeOther, "/signin"},
		{"GET", "/app/decisions", http.StatusSeeOther, "/signin"},
		{"GET", "/app/search", http.StatusSeeOther, "/signin"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			// A GET of a page other than / and /app names it in next (web.SignInFor).
			want := tc.location
			if want == "/signin" && tc.method == "GET" && tc.path != "/" && tc.path != "/app" {
				want += "?next=" + url.QueryEscape(tc.path)
			}
			a := send(t, tc.method, s.URL+tc.path, "", "")
			if a.status != tc.status || a.header.Get("Location") != want {
				t.Fatalf("%d to %q, want %d to %q", a.status, a.header.Get("Location"), tc.status, want)
			}
			wantHeaders(t, a)
		})
	}
	a := send(t, "GET", s.URL+"/assets/app.css", "", "")
	if a.status != http.StatusOK || !strings.HasPrefix(a.header.Get("Content-Type"), "text/css") || a.header.Get("Content-Security-Policy") != "" {
		t.Fatalf("the stylesheet: %d %q, CSP %q", a.status, a.header.Get("Content-Type"), a.header.Get("Content-Security-Policy"))
	}
}

// TestLocalPath: what a sign-in's next (and a form's back) may send a browser to. Only a path of
// this site is kept; every form a browser could read as another host, a scheme or a header is
// dropped: two leading slashes, a backslash (browsers read "/\" as "//"), a tab, CR or LF (which
// browsers strip from URLs, so "/\t/host" becomes "//host"), any other control character, a
// scheme, no leading slash, more than 2,048 bytes, malformed escapes. Encoded slashes stay in the
// path, where browsers keep them.
func TestLocalPath(t *testing.T) {
	long := "/app/search?q=" + strings.Repeat("a", 2048)
	for _, tc := range []struct{ in, want string }{
		{"/app", "/app"},
		{"/", "/"},
		{"/app/notes/abc?done=saved#top", "/app/notes/abc?done=saved#top"},
		{"/app/search?q=%2F%2Fevil.example", "/app/search?q=%2F%2Fevil.example"},
		{"/%2F%2Fevil.example", "/%2F%2Fevil.example"},
		{"/app/people/ren%C3%A9", "/app/people/ren%C3%A9"},
		{long[:2048], long[:2048]},
		{long[:2049], ""},
		{"", ""},
		{"app", ""},
		{"//evil.example", ""},
		{"///evil.example", ""},
		{"/\\evil.example", ""},
		{"/app\\..\\..\\evil", ""},
		{"/\t/evil.example", ""},
		{"/\n/evil.example", ""},
		{"/\r/evil.example", ""},
		{"/app\r\nSet-Cookie: x=y", ""},
		{"/app\x00", ""},
		{"/app\x7f", ""},
		{"https://evil.example/", ""},
		{"javascript:alert(1)", ""},
		{" /app", ""},
		{"/app%zz", ""},
	} {
		if got := web.LocalPath(tc.in); got != tc.want {
			t.Errorf("LocalPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
