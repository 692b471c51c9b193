package e2e

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"folio/platform/auth"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

var (
	keyLine = regexp.MustCompile(`^svc_live_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}$`)
	idLine  = regexp.MustCompile(`^[a-z][a-z0-9]{23}$`)
)

// TestCLI drives the real folio binary as an operator would (CONTRACT.md section 9): migrate,
// create a user and keys, list, revoke and rotate them, then serve the API with the same database
// and check the keys against it, and stop the server with SIGTERM. Secrets must never reach a log.
func TestCLI(t *testing.T) {
	t.Parallel()
	bin := testenv.FolioBinary(t)
	apitest.EachDB(t, func(t *testing.T, kind string) {
		var env []string
		switch kind {
		case "sqlite":
			env = []string{"FOLIO_SQLITE_PATH=" + filepath.Join(t.TempDir(), "data", "folio.db")}
		case "postgres":
			url := testenv.PostgresDB(t, func(url string) error {
				_, stderr, err := runFolio(bin, []string{"FOLIO_DATABASE_URL=" + url}, "migrate")
				if err != nil {
					return fmt.Errorf("folio migrate: %v: %s", err, stderr)
				}
				return nil
			})
			env = []string{"FOLIO_DATABASE_URL=" + url}
		}
		cliScenario(t, bin, env)
	})
}

func cliScenario(t *testing.T, bin string, env []string) {
	c := &cli{t: t, bin: bin, env: env}
	var secrets []string // every raw key the CLI printed

	// migrate: idempotent, silent on stdout.
	for range 2 {
		if out := c.ok("migrate"); out != "" {
			t.Fatalf("folio migrate printed %q on stdout", out)
		}
	}

	// user create prints only the id.
	annID := c.line("user", "create", "--email", "Ann@Example.com", "--name", "Ann Operator")
	if !idLine.MatchString(annID) {
		t.Fatalf("user create printed %q, want an id", annID)
	}
	c.line("user", "create", "--email", "bob@example.com", "--name", "Bob", "--password", "correct horse")
	c.fails("user create with a taken email", "already exists", "user", "create", "--email", "ann@example.com", "--name", "Ann Again")
	c.fails("user create without --name", "--name", "user", "create", "--email", "x@example.com")

	// user set-password reads the password from stdin, prints nothing on stdout and no error on
	// stderr (where a log line such as a slow query's may go), and applies the password rule.
	setPassword := func(email, password string) (stdout, stderr string, err error) {
		cmd := exec.Command(bin, "user", "set-password", "--email", email)
		cmd.Env, cmd.Dir, cmd.Stdin = testenv.FolioEnv(env), os.TempDir(), strings.NewReader(password+"\n")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err = cmd.Run()
		c.allStderr.WriteString(errb.String())
		return out.String(), errb.String(), err
	}
	if out, errOut, err := setPassword("ann@example.com", "correct horse battery"); err != nil || out != "" || strings.Contains(errOut, `"level":"error"`) {
		t.Fatalf("user set-password: %v, printed %q, stderr %q", err, out, errOut)
	}
	if out, errOut, err := setPassword("ann@example.com", "short"); err == nil || out != "" || !strings.Contains(errOut, "8 characters") {
		t.Errorf("user set-password with a short password: %v, printed %q, stderr %q", err, out, errOut)
	}
	c.fails("user create with a bad email", "email", "user", "create", "--email", "not-an-email", "--name", "X")
	c.fails("user create with a short password", "password", "user", "create", "--email", "y@example.com", "--name", "Y", "--password", "short")

	// key create prints exactly one line: the raw key.
	newKey := func(name string, scope string) string {
		t.Helper()
		k := c.line("key", "create", "--email", "ann@example.com", "--name", name, "--scope", scope)
		if !keyLine.MatchString(k) {
			t.Fatalf("key create printed %q, want one raw key", k)
		}
		secrets = append(secrets, k)
		return k
	}
	kept := newKey("kept", "3")
	revoked := newKey("to revoke", "1")
	rotated := newKey("to rotate", "3")
	laterRevoked := newKey("cut while serving", "1")
	for _, tc := range []struct {
		name, want string
		args       []string
	}{
		{"scope 0", "--scope", []string{"--scope", "0"}},
		{"scope 4", "scope", []string{"--scope", "4"}},
		{"scope -1", "scope", []string{"--scope", "-1"}},
		{"scope not a number", "scope", []string{"--scope", "rw"}},
		{"unknown email", "email", []string{"--scope", "3", "--email-override", "nobody@example.com"}},
		{"both --workspace and --notebook", "workspace", []string{"--scope", "3", "--workspace", "aaaaaaaaaaaaaaaaaaaaaaaa", "--notebook", "bbbbbbbbbbbbbbbbbbbbbbbb"}},
		{"unknown workspace", "workspace", []string{"--scope", "3", "--workspace", "aaaaaaaaaaaaaaaaaaaaaaaa"}},
		{"unknown notebook", "notebook", []string{"--scope", "3", "--notebook", "bbbbbbbbbbbbbbbbbbbbbbbb"}},
		{"blank name", "name", []string{"--scope", "3", "--name-override", "   "}},
	} {
		email, name := "ann@example.com", "bad"
		var args []string
		for i := 0; i < len(tc.args); i++ {
			switch tc.args[i] {
			case "--email-override":
				email = tc.args[i+1]
				i++
			case "--name-override":
				name = tc.args[i+1]
				i++
			default:
				args = append(args, tc.args[i])
			}
		}
		c.fails("key create: "+tc.name, tc.want, append([]string{"key", "create", "--email", email, "--name", name}, args...)...)
	}

	// key revoke and rotate.
	if out := c.ok("key", "revoke", "--prefix", prefixOf(t, revoked)); out != "" {
		t.Fatalf("key revoke printed %q", out)
	}
	c.fails("revoking a revoked key", "revoked", "key", "revoke", "--prefix", prefixOf(t, revoked))
	c.fails("revoking an unknown prefix", "prefix", "key", "revoke", "--prefix", "ZZZZZZZZ")
	c.fails("revoke without --prefix", "--prefix", "key", "revoke")
	fresh := c.line("key", "rotate", "--prefix", "svc_live_"+prefixOf(t, rotated)) // the display prefix works too
	if !keyLine.MatchString(fresh) || fresh == rotated {
		t.Fatalf("key rotate printed %q, want a new raw key", fresh)
	}
	secrets = append(secrets, fresh)
	c.fails("rotating a rotated-away key", "revoked", "key", "rotate", "--prefix", prefixOf(t, rotated))

	// key list shows prefixes and states, never a secret.
	list := c.ok("key", "list", "--email", "ann@example.com")
	for _, k := range []string{kept, revoked, rotated, laterRevoked, fresh} {
		if !strings.Contains(list, "svc_live_"+prefixOf(t, k)) {
			t.Fatalf("key list does not show %s:\n%s", "svc_live_"+prefixOf(t, k), list)
		}
	}
	if n := strings.Count(list, "revoked"); n != 2 {
		t.Fatalf("key list shows %d revoked keys, want 2 (revoked and rotated away):\n%s", n, list)
	}
	c.fails("key list of an unknown email", "email", "key", "list", "--email", "nobody@example.com")
	c.fails("unknown command", "unknown", "frobnicate")

	// serve, on the same database.
	wrongSecret := "svc_live_" + prefixOf(t, kept) + "_" + strings.Repeat("x", 24)
	secrets = append(secrets, wrongSecret) // a guessed secret must not be logged either
	// healthcheck (the image's HEALTHCHECK) fails while nothing listens, passes once serve is up.
	nobody := &cli{t: t, bin: bin, env: append(append([]string{}, env...), "FOLIO_HTTP_ADDR="+testenv.FreeAddr(t))}
	nobody.fails("healthcheck with no server", "connection refused", "healthcheck")
	srv := startServe(t, bin, env)
	served := &cli{t: t, bin: bin, env: append(append([]string{}, env...), "FOLIO_HTTP_ADDR="+strings.TrimPrefix(srv.url, "http://"))}
	if out := served.ok("healthcheck"); out != "" {
		t.Errorf("folio healthcheck printed %q on stdout, want nothing", out)
	}
	// backup while the server runs: on SQLite a copy that folio itself can open and that holds the
	// same keys; on PostgreSQL a refusal that names pg_dump.
	if strings.HasPrefix(env[0], "FOLIO_SQLITE_PATH=") {
		copyPath := filepath.Join(t.TempDir(), "backup.db")
		if got := c.line("backup", "--out", copyPath); got != copyPath {
			t.Errorf("folio backup printed %q, want %q", got, copyPath)
		}
		c.fails("backup over an existing file", "exists", "backup", "--out", copyPath)
		restored := &cli{t: t, bin: bin, env: []string{"FOLIO_SQLITE_PATH=" + copyPath}}
		if got := restored.ok("key", "list", "--email", "ann@example.com"); got != list {
			t.Errorf("key list on the backup:\n%s\nwant the original's:\n%s", got, list)
		}
	} else {
		c.fails("backup on PostgreSQL", "pg_dump", "backup", "--out", filepath.Join(t.TempDir(), "backup.db"))
	}
	c.fails("backup without --out", "--out", "backup")
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if v := c.line(args...); !strings.HasPrefix(v, "folio ") || !strings.Contains(v, "go1.") {
			t.Errorf("folio %s printed %q, want the version, commit and Go version", args[0], v)
		}
	}
	// The binary serves its OpenAPI document without authentication; the exchanges below are
	// checked against it like every suite's.
	docResp, err := http.Get(srv.url + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := io.ReadAll(docResp.Body)
	docResp.Body.Close()
	if docResp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v1/openapi.json: %d %s", docResp.StatusCode, doc)
	}
	contract := apitest.ContractFor(t, doc)
	get := func(key string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.url+"/api/v1/notebooks", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET /api/v1/notebooks: %v", err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		contract.Check(t, req, nil, apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: raw})
		return resp.StatusCode
	}
	for _, tc := range []struct {
		name string
		key  string
		want int
	}{
		{"created key", kept, 200},
		{"revoked key", revoked, 401},
		{"rotated-away key", rotated, 401},
		{"key from the rotation", fresh, 200},
		{"key about to be revoked", laterRevoked, 200},
		{"right prefix, wrong secret", wrongSecret, 401},
	} {
		if got := get(tc.key); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}

	// A revocation by another process (the CLI) reaches the running server within 5 seconds.
	c.ok("key", "revoke", "--prefix", prefixOf(t, laterRevoked))
	revokedAt := time.Now()
	for get(laterRevoked) != 401 {
		if time.Since(revokedAt) > 5*time.Second {
			t.Fatalf("the server still accepts a key revoked through the CLI %v ago", time.Since(revokedAt))
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("the server refused the key revoked by the CLI after %v", time.Since(revokedAt).Round(time.Millisecond))
	if got := get(kept); got != 200 {
		t.Fatalf("the kept key got %d after another key's revocation", got)
	}

	// folio export writes what GET /export gives the account: a notebook and a note made over
	// the API come out as <folder>/notebook.yaml and <folder>/notes/<id>.md, and the file appears
	// only when complete.
	post := func(path string, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.url+"/api/v1"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+kept)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out map[string]any
		if resp.StatusCode != http.StatusCreated || json.Unmarshal(raw, &out) != nil {
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, raw)
		}
		return out
	}
	nb := post("/notebooks", `{"name":"Exported"}`)["id"].(string)
	note := post("/notes", `{"notebookId":"`+nb+`","content":"exported by the operator #cli"}`)["id"].(string)
	zipPath := filepath.Join(t.TempDir(), "ann.zip")
	if got := c.line("export", "--email", "ann@example.com", "--out", zipPath); got != zipPath {
		t.Errorf("folio export printed %q, want %q", got, zipPath)
	}
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatalf("folio export wrote no ZIP: %v", err)
	}
	if len(zr.File) != 2 || zr.File[0].Name != "exported-"+nb+"/notebook.yaml" || zr.File[1].Name != "exported-"+nb+"/notes/"+note+".md" {
		t.Errorf("folio export: files %v", zr.File)
	} else if rc, err := zr.File[1].Open(); err == nil {
		b, _ := io.ReadAll(rc)
		rc.Close()
		if !strings.HasSuffix(string(b), "\n---\n\nexported by the operator #cli\n") || !strings.Contains(string(b), "id: "+note+"\n") {
			t.Errorf("folio export: the note's file is %q", b)
		}
	}
	zr.Close()
	if tmp, _ := filepath.Glob(filepath.Join(filepath.Dir(zipPath), ".folio-export-*")); len(tmp) != 0 {
		t.Errorf("folio export left %v", tmp)
	}
	c.fails("export for an unknown account", "no account", "export", "--email", "nobody@example.com", "--out", filepath.Join(t.TempDir(), "x.zip"))
	c.fails("export without --out", "--out", "export", "--email", "ann@example.com")

	// SIGTERM: graceful stop, exit status 0.
	code, took := srv.stop(t)
	if code != 0 {
		t.Fatalf("folio serve exited with %d after SIGTERM; stderr:\n%s", code, srv.stderr())
	}
	if took > 5*time.Second {
		t.Fatalf("folio serve took %v to stop after SIGTERM", took)
	}
	t.Logf("folio serve stopped %v after SIGTERM", took.Round(time.Millisecond))

	// No secret in any output but the one line that prints it.
	logs := srv.stderr() + srv.stdout() + c.allStderr.String() + list
	if !strings.Contains(logs, "request") {
		t.Fatalf("the server logged no request line; the leak check would be empty:\n%s", logs)
	}
	for _, k := range secrets {
		_, secret, _ := auth.ParseKey(k)
		if strings.Contains(logs, k) || strings.Contains(logs, secret) {
			t.Fatalf("a key's secret appears in the logs or the key list: %s", k)
		}
	}
}

// cli runs folio commands with one environment and checks their shape.
type cli struct {
	t         *testing.T
	bin       string
	env       []string
	allStderr bytes.Buffer
}

// ok runs a command that must succeed and returns its stdout.
func (c *cli) ok(args ...string) string {
	c.t.Helper()
	stdout, stderr, err := runFolio(c.bin, c.env, args...)
	c.allStderr.WriteString(stderr)
	if err != nil {
		c.t.Fatalf("folio %s: %v\nstderr: %s", strings.Join(args, " "), err, stderr)
	}
	return stdout
}

// line runs a command that must succeed and print exactly one line, and returns it.
func (c *cli) line(args ...string) string {
	c.t.Helper()
	out := c.ok(args...)
	if !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
		c.t.Fatalf("folio %s printed %q, want exactly one line", strings.Join(args, " "), out)
	}
	return strings.TrimSuffix(out, "\n")
}

// fails runs a command that must fail: non-zero exit, nothing on stdout, a message on stderr that
// mentions want.
func (c *cli) fails(name, want string, args ...string) {
	c.t.Helper()
	stdout, stderr, err := runFolio(c.bin, c.env, args...)
	c.allStderr.WriteString(stderr)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		c.t.Errorf("%s: folio %s: want a non-zero exit, got %v (stdout %q)", name, strings.Join(args, " "), err, stdout)
		return
	}
	if stdout != "" {
		c.t.Errorf("%s: printed %q on stdout", name, stdout)
	}
	if !strings.Contains(strings.ToLower(stderr), strings.ToLower(want)) {
		c.t.Errorf("%s: stderr %q does not mention %q", name, stderr, want)
	}
}

// runFolio runs the binary with env on top of a FOLIO_-free copy of the test's environment.
func runFolio(bin string, env []string, args ...string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = testenv.FolioEnv(env)
	cmd.Dir = os.TempDir()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

func prefixOf(t *testing.T, raw string) string {
	t.Helper()
	p, _, err := auth.ParseKey(raw)
	if err != nil {
		t.Fatalf("not a key: %q", raw)
	}
	return p
}

// served is a running `folio serve`.
type served struct {
	url            string
	cmd            *exec.Cmd
	done           chan struct{}
	waitErr        error
	errBuf, outBuf apitest.Logs // safe for the process's writer goroutines and the test
}

func (s *served) stderr() string { return s.errBuf.String() }
func (s *served) stdout() string { return s.outBuf.String() }

// startServe starts `folio serve` on a free loopback port and waits until /healthz answers.
func startServe(t *testing.T, bin string, env []string) *served {
	t.Helper()
	return startServePolling(t, bin, env, 50*time.Millisecond)
}

// startServePolling is startServe asking /healthz every pause (0: again at once).
func startServePolling(t *testing.T, bin string, env []string, pause time.Duration) *served {
	t.Helper()
	addr := testenv.FreeAddr(t)
	s := &served{url: "http://" + addr, done: make(chan struct{})}
	// The default log level (info) and format: the leak check reads everything a real server logs.
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Env = testenv.FolioEnv(append(env, "FOLIO_HTTP_ADDR="+addr))
	s.cmd.Dir = t.TempDir()
	s.cmd.Stdout, s.cmd.Stderr = &s.outBuf, &s.errBuf
	testenv.StartProcess(t, s.cmd, s.done, &s.waitErr)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(s.url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		select {
		case <-s.done:
			t.Fatalf("folio serve exited early (%v):\n%s", s.waitErr, s.stderr())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("folio serve did not answer /healthz within 60s:\n%s", s.stderr())
		}
		time.Sleep(pause)
	}
}

// stop sends SIGTERM and waits for the exit; it returns the exit code and how long it took.
func (s *served) stop(t *testing.T) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("folio serve still running 30s after SIGTERM:\n%s", s.stderr())
	}
	took := time.Since(start)
	if s.waitErr == nil {
		return 0, took
	}
	var exit *exec.ExitError
	if errors.As(s.waitErr, &exit) {
		return exit.ExitCode(), took
	}
	t.Fatalf("folio serve: %v", s.waitErr)
	return -1, took
}

// TestCLIKeyExpiry drives the binary: `folio key create --expires` in each accepted form, a bad
// value refused before anything is stored, `folio key list` showing the expiry in its EXPIRES
// column and as expiresAt (null when the key never expires) with --json, a rotation keeping the
// expiry, and the keys working on the server; and the binary's help for key create, through both
// `folio help key create` and `folio key create --help`, explaining --expires.
func TestCLIKeyExpiry(t *testing.T) {
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
		c := &cli{t: t, bin: bin, env: env}
		c.line("user", "create", "--email", "ann@example.com", "--name", "Ann")
		create := func(name string, expires ...string) string {
			t.Helper()
			return c.line(append([]string{"key", "create", "--email", "ann@example.com", "--name", name, "--scope", "3"}, expires...)...)
		}
		before := time.Now()
		month := create("month", "--expires", "30d")
		hours := create("hours", "--expires=12h")
		dated := create("dated", "--expires", "2099-01-01")
		never := create("never")
		explicit := create("explicit never", "--expires", "never")
		after := time.Now()
		for _, bad := range []string{"30", "1w", "yesterday", "2020-01-01", "0d"} {
			c.fails("--expires "+bad, "--expires", "key", "create", "--email", "ann@example.com", "--name", "bad", "--scope", "3", "--expires", bad)
		}

		type listed struct {
			Prefix    string  `json:"prefix"`
			Name      string  `json:"name"`
			Status    string  `json:"status"`
			ExpiresAt *string `json:"expiresAt"`
		}
		list := func() map[string]listed {
			t.Helper()
			var keys []listed
			if err := json.Unmarshal([]byte(c.ok("key", "list", "--email", "ann@example.com", "--json")), &keys); err != nil {
				t.Fatal(err)
			}
			byPrefix := map[string]listed{}
			for _, k := range keys {
				byPrefix[k.Prefix] = k
			}
			return byPrefix
		}
		keys := list()
		if len(keys) != 5 {
			t.Fatalf("key list --json shows %d keys, want 5 (no bad one): %v", len(keys), keys)
		}
		expiry := func(raw string) *time.Time {
			t.Helper()
			k, ok := keys["svc_live_"+prefixOf(t, raw)]
			if !ok || k.Status != "active" {
				t.Fatalf("key %s listed as %+v", prefixOf(t, raw), k)
			}
			if k.ExpiresAt == nil {
				return nil
			}
			at, err := time.Parse(time.RFC3339, *k.ExpiresAt)
			if err != nil {
				t.Fatal(err)
			}
			return &at
		}
		within := func(name string, got *time.Time, d time.Duration) {
			t.Helper()
			if got == nil || got.Before(before.Add(d).Add(-time.Second)) || got.After(after.Add(d).Add(time.Second)) {
				t.Errorf("%s expires %v, want %v from now", name, got, d)
			}
		}
		within("--expires 30d", expiry(month), 30*24*time.Hour)
		within("--expires 12h", expiry(hours), 12*time.Hour)
		if got := expiry(dated); got == nil || !got.Equal(time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("--expires 2099-01-01 expires %v, want 2099-01-01T00:00:00Z", got)
		}
		if expiry(never) != nil || expiry(explicit) != nil {
			t.Errorf("keys without an expiry list expiresAt %v and %v, want null", expiry(never), expiry(explicit))
		}

		table := c.ok("key", "list", "--email", "ann@example.com")
		lines := strings.Split(strings.TrimSpace(table), "\n")
		if !strings.HasSuffix(lines[0], "STATUS  EXPIRES") {
			t.Fatalf("key list header %q has no EXPIRES column", lines[0])
		}
		for _, l := range lines[1:] {
			switch {
			case strings.Contains(l, prefixOf(t, dated)) && !strings.HasSuffix(l, "active  2099-01-01T00:00:00.000Z"),
				strings.Contains(l, prefixOf(t, never)) && !strings.HasSuffix(l, "active  never"):
				t.Errorf("key list line %q", l)
			}
		}

		rotated := c.line("key", "rotate", "--prefix", prefixOf(t, month))
		monthAt := expiry(month)
		keys = list()
		if got := expiry(rotated); got == nil || !got.Equal(*monthAt) {
			t.Errorf("the rotated key expires %v, want %v like the key it replaced", got, monthAt)
		}

		srv := startServe(t, bin, env)
		for _, k := range []string{rotated, hours, dated, never} {
			if st := getNotebooks(t, srv.url, k); st != 200 {
				t.Errorf("GET /notebooks with a key that has not expired: %d", st)
			}
		}
		srv.stop(t)

		viaHelp, viaFlag := c.ok("help", "key", "create"), c.ok("key", "create", "--help")
		if viaHelp != viaFlag || !strings.Contains(viaHelp, "--expires=WHEN") || !strings.Contains(viaHelp, "YYYY-MM-DD") {
			t.Errorf("folio help key create:\n%s\nfolio key create --help:\n%s", viaHelp, viaFlag)
		}
	})
}

// getNotebooks sends GET /api/v1/notebooks with key to a folio at url and returns the status.
func getNotebooks(t *testing.T, url, key string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url+"/api/v1/notebooks", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET /api/v1/notebooks: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
