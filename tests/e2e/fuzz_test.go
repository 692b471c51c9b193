package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"folio/platform/auth"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

// fuzzMethods are the methods a fuzz input picks from: the API's own and three it does not serve.
var fuzzMethods = []string{"GET", "POST", "PATCH", "DELETE", "PUT", "HEAD", "OPTIONS"}

// fuzzRoutes build the path from the fuzzed segments x and y; "//" prefixes are outside /api/v1.
var fuzzRoutes = []func(x, y string) string{
	func(x, y string) string { return "/notebooks" },
	func(x, y string) string { return "/notebooks/" + x },
	func(x, y string) string { return "/workspaces" },
	func(x, y string) string { return "/workspaces/" + x + "/members" },
	func(x, y string) string { return "/workspaces/" + x + "/members/" + y },
	func(x, y string) string { return "/audit-log" },
	func(x, y string) string { return "/" + x },
	func(x, y string) string { return "/notebooks/" + x + "/" + y },
	func(x, y string) string { return "//" + x }, // /healthz, /readyz, unknown roots
}

// fuzzCredentials are the principals a fuzz input picks from.
const (
	credNone = iota
	credRW
	credRead
	credWorkspace
	credNotebook
	credGarbage
	credSessionCSRF
	credSessionNoCSRF
	credOtherUser
	credCount
)

// fuzzTarget is one server and the world built on it. Placeholders such as $team in a fuzzed
// segment, query or body stand for that world's real ids, so the corpus can reach past the 404s.
type fuzzTarget struct {
	name         string
	s            *apitest.Server
	placeholders *strings.Replacer
	headers      [credCount]map[string]string
}

func newFuzzTarget(tb testing.TB, name string) *fuzzTarget {
	cfg := apitest.Config(tb, name)
	cfg.RateLimit, cfg.AuthFailureLimit = 1<<30, 1<<30
	s := apitest.StartWith(tb, cfg)
	ann, bob, carl := s.NewUser(tb, "Ann Fuzz"), s.NewUser(tb, "Bob Fuzz"), s.NewUser(tb, "Carl Fuzz")
	annRW, carlRW := s.NewKey(tb, ann, auth.ScopeReadWrite), s.NewKey(tb, carl, auth.ScopeReadWrite)
	team := apitest.Must(tb, s.Post(tb, annRW, "/workspaces", map[string]any{"name": "Team"}), 201).Str(tb, "id")
	apitest.Must(tb, s.Post(tb, annRW, "/workspaces/"+team+"/members", map[string]any{"email": bob.Email}), 201)
	carlWS := apitest.Must(tb, s.Post(tb, carlRW, "/workspaces", map[string]any{"name": "Carl's"}), 201).Str(tb, "id")
	annNB := apitest.Must(tb, s.Post(tb, annRW, "/notebooks", map[string]any{"name": "Ann personal"}), 201).Str(tb, "id")
	teamNB := apitest.Must(tb, s.Post(tb, annRW, "/notebooks", map[string]any{"name": "Team Notes", "workspaceId": team}), 201).Str(tb, "id")
	carlNB := apitest.Must(tb, s.Post(tb, carlRW, "/notebooks", map[string]any{"name": "Carl personal"}), 201).Str(tb, "id")
	sess := s.OpenSession(tb, ann)

	ft := &fuzzTarget{name: name, s: s}
	ft.headers[credNone] = map[string]string{}
	ft.headers[credRW] = bearer(annRW)
	ft.headers[credRead] = bearer(s.NewKey(tb, ann, auth.ScopeRead))
	ft.headers[credWorkspace] = bearer(s.NewKey(tb, ann, auth.ScopeReadWrite, apitest.KeyOpts{Workspace: team}))
	ft.headers[credNotebook] = bearer(s.NewKey(tb, ann, auth.ScopeReadWrite, apitest.KeyOpts{Notebook: teamNB}))
	ft.headers[credGarbage] = bearer("svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB")
	ft.headers[credSessionCSRF] = apitest.SessionHeader(sess.Token, sess.CSRFToken)
	ft.headers[credSessionNoCSRF] = apitest.SessionHeader(sess.Token, "")
	ft.headers[credOtherUser] = bearer(carlRW)
	ft.placeholders = strings.NewReplacer(
		"$annEmail", ann.Email, "$bobEmail", bob.Email, "$carlEmail", carl.Email,
		"$annNB", annNB, "$teamNB", teamNB, "$carlNB", carlNB,
		"$carlWS", carlWS, "$team", team,
		"$ann", ann.ID, "$bob", bob.ID, "$carl", carl.ID,
	)
	return ft
}

// FuzzAPI sends fuzzed requests over the HTTP surface of the foundation (notebooks, workspaces and
// members, audit log, unknown routes, health) with every kind of principal, and checks what must
// hold for any input: never a 5xx, every response has a UUID X-Request-Id, every 4xx is the error
// envelope (code and message not empty, requestId equal to X-Request-Id), and every 2xx body is
// JSON.
//
// Plain `go test` replays the committed corpus in testdata/fuzz/FuzzAPI on SQLite and PostgreSQL;
// fuzzing (-fuzz FuzzAPI) runs on SQLite only, for speed.
func FuzzAPI(f *testing.F) {
	targets := []*fuzzTarget{newFuzzTarget(f, "sqlite")}
	fz := flag.Lookup("test.fuzz")
	fuzzing := fz != nil && fz.Value.String() != ""
	if !fuzzing && os.Getenv(testenv.SkipPostgresEnv) != "1" { // the skip would skip SQLite too
		targets = append(targets, newFuzzTarget(f, "postgres"))
	}
	client := &http.Client{Timeout: 30 * time.Second}

	f.Fuzz(func(t *testing.T, method, route uint8, x, y, query string, body []byte, ctype string, cred uint8) {
		for _, ft := range targets {
			checkFuzzResponse(t, ft, client, method, route, x, y, query, body, ctype, cred)
		}
	})
}

func checkFuzzResponse(t *testing.T, ft *fuzzTarget, client *http.Client, method, route uint8, x, y, query string, body []byte, ctype string, cred uint8) {
	m := fuzzMethods[int(method)%len(fuzzMethods)]
	path := fuzzRoutes[int(route)%len(fuzzRoutes)](
		url.PathEscape(ft.placeholders.Replace(x)), url.PathEscape(ft.placeholders.Replace(y)))
	target := ft.s.URL + "/api/v1" + path
	if strings.HasPrefix(path, "//") {
		target = ft.s.URL + path[1:]
	}
	if q := escapeQuery(ft.placeholders.Replace(query)); q != "" {
		target += "?" + q
	}
	var rd io.Reader
	var sent []byte
	if len(body) > 0 {
		sent = []byte(ft.placeholders.Replace(string(body)))
		rd = bytes.NewReader(sent)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, m, target, rd)
	if err != nil {
		t.Fatalf("the fuzz harness built an invalid request %s %q: %v", m, target, err)
	}
	for k, v := range ft.headers[int(cred)%credCount] {
		req.Header.Set(k, v)
	}
	if ct := headerSafe(ctype); ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s: %s %s: %v", ft.name, m, target, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: %s %s: reading the body: %v", ft.name, m, target, err)
	}
	ft.s.Contract.Check(t, req, sent, apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: raw})
	where := func() string {
		return ft.name + ": " + m + " " + target + " (Content-Type " + req.Header.Get("Content-Type") + ", body " + string(body) + ")"
	}
	if resp.StatusCode >= 500 {
		t.Fatalf("%s: %d: %s", where(), resp.StatusCode, raw)
	}
	rid := resp.Header.Get("X-Request-Id")
	if _, err := uuid.Parse(rid); err != nil || len(rid) != 36 {
		t.Fatalf("%s: X-Request-Id %q is not a UUID", where(), rid)
	}
	if m == http.MethodHead {
		return // no body, by HTTP's rules
	}
	if strings.HasPrefix(path, "//") && !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return // the settings UI's HTML pages and assets live outside /api/v1: only the checks above apply
	}
	if resp.StatusCode >= 400 {
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("%s: %d with Content-Type %q: %s", where(), resp.StatusCode, ct, raw)
		}
		var env struct {
			Error *struct {
				Code      string `json:"code"`
				Message   string `json:"message"`
				RequestID string `json:"requestId"`
			} `json:"error"`
		}
		if err := json.Unmarshal(raw, &env); err != nil || env.Error == nil {
			t.Fatalf("%s: %d without the error envelope: %s", where(), resp.StatusCode, raw)
		}
		if env.Error.Code == "" || env.Error.Message == "" || env.Error.RequestID != rid {
			t.Fatalf("%s: %d malformed envelope (header X-Request-Id %q): %s", where(), resp.StatusCode, rid, raw)
		}
		return
	}
	if !json.Valid(raw) {
		t.Fatalf("%s: %d body is not JSON: %q", where(), resp.StatusCode, raw)
	}
}

// escapeQuery keeps a fuzzed query string as raw as a valid request line allows: the characters a
// query may carry pass as they are (so "&", "=", "+" and broken "%" escapes reach the server's
// parser), and everything else is percent-encoded.
func escapeQuery(q string) string {
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=:@/?%", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
	}
	return b.String()
}

// headerSafe drops the bytes a header value cannot carry (control characters).
func headerSafe(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '\t' || c >= 0x20 && c != 0x7f {
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}
