package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"folio/tests/testenv"
)

// TestConfigurationAtStart: what an operator sees of folio's configuration (CONTRACT.md section
// 19), from the real binary. A bad value ends any command with one line naming the variable, the
// value and what is allowed, and nothing of the dependency graph; a misspelt FOLIO_* variable is a
// warning naming the right one; the secrets can come from files; the server logs one start line
// (version, database, Redis, address) and one stop line, and nothing of fx at the default level.
func TestConfigurationAtStart(t *testing.T) {
	t.Parallel()
	bin := testenv.FolioBinary(t)
	dir := t.TempDir()
	sqlite := "FOLIO_SQLITE_PATH=" + filepath.Join(dir, "data", "folio.db")

	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{[]string{"FOLIO_RATE_LIMIT=abc"}, []string{"serve"}, `folio: FOLIO_RATE_LIMIT="abc": must be a whole number of at least 1`},
		{[]string{"FOLIO_LOG_LEVEL=loud"}, []string{}, `folio: FOLIO_LOG_LEVEL="loud": must be one of debug, info, warn, error`},
		{[]string{"FOLIO_HTTP_ADDR=8080"}, []string{"serve"}, `folio: FOLIO_HTTP_ADDR="8080": must be host:port`},
		{[]string{"FOLIO_DATABASE_URL=mysql://folio:hunter2@db/folio"}, []string{"migrate"}, `folio: FOLIO_DATABASE_URL="mysql://…": must start with postgres://`},
		{[]string{"FOLIO_KEY_PEPPER_FILE=" + filepath.Join(dir, "missing")}, []string{"key", "list", "--email", "a@example.com"}, `folio: FOLIO_KEY_PEPPER_FILE="` + filepath.Join(dir, "missing") + `": cannot read the file`},
		{[]string{"FOLIO_DB_CONNECT_TIMEOUT=1s", "FOLIO_DATABASE_URL=postgres://folio@" + testenv.FreeAddr(t) + "/folio"}, []string{"serve"}, "folio: the database did not answer within FOLIO_DB_CONNECT_TIMEOUT (1s)"},
	} {
		stdout, stderr, err := runFolio(bin, append([]string{sqlite}, tc.env...), tc.args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		last := lines[len(lines)-1]
		if err == nil || stdout != "" || !strings.HasPrefix(last, tc.want) {
			t.Errorf("%v folio %v: exit %v, stdout %q, stderr:\n%s\nwant a failure whose last line starts with %q", tc.env, tc.args, err, stdout, stderr, tc.want)
			continue
		}
		if strings.Contains(stderr, "hunter2") || strings.Contains(stderr, "[Fx]") || strings.Contains(stderr, `"logger":"fx"`) {
			t.Errorf("%v: stderr shows a secret or the dependency graph:\n%s", tc.env, stderr)
		}
		// Only the database wait logs before its line (one warning per retry).
		for _, l := range lines[:len(lines)-1] {
			if !strings.Contains(l, "database not reachable yet; retrying") {
				t.Errorf("%v: stderr has more than its one line:\n%s", tc.env, stderr)
				break
			}
		}
	}

	// The pepper from a file: a key made with FOLIO_KEY_PEPPER_FILE is accepted by a server given
	// the same pepper directly (and so the file's trailing newline was not part of it).
	pepperFile := filepath.Join(dir, "pepper")
	if err := os.WriteFile(pepperFile, []byte("correct horse battery staple\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &cli{t: t, bin: bin, env: []string{sqlite, "FOLIO_KEY_PEPPER_FILE=" + pepperFile}}
	c.line("user", "create", "--email", "ann@example.com", "--name", "Ann")
	key := c.line("key", "create", "--email", "ann@example.com", "--name", "k", "--scope", "1")

	srv := startServe(t, bin, []string{sqlite, "FOLIO_KEY_PEPPER=correct horse battery staple", "FOLIO_RATE_LIMT=5"})
	req, _ := http.NewRequest("GET", srv.url+"/api/v1/notebooks", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a key made with the pepper file: %d from a server with the same pepper", resp.StatusCode)
	}
	if code, _ := srv.stop(t); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, srv.stderr())
	}
	logs := srv.stderr()
	lines := strings.Split(strings.TrimSpace(logs), "\n")
	want := []string{
		`"msg":"FOLIO_RATE_LIMT is not a folio setting and is ignored; did you mean FOLIO_RATE_LIMIT?"`,
		`"msg":"folio started"`, `"database":"sqlite"`, `"redis":false`, `"addr":"` + strings.TrimPrefix(srv.url, "http://") + `"`,
	}
	for _, w := range want {
		if !strings.Contains(logs, w) {
			t.Errorf("the server's log lacks %s:\n%s", w, logs)
		}
	}
	if strings.Count(logs, `"msg":"folio started"`) != 1 || !strings.Contains(lines[len(lines)-1], `"msg":"folio stopped"`) {
		t.Errorf("want one start line and the stop line last:\n%s", logs)
	}
	if strings.Contains(logs, `"logger":"fx"`) || strings.Contains(logs, "[Fx]") {
		t.Errorf("fx's events are logged at the default level:\n%s", logs)
	}
}
