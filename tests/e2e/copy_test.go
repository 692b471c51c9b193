package e2e

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"io"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/modules/webhooks"
	"folio/platform/auth"
	"folio/platform/config"
	"folio/platform/db"
	"folio/tests/testenv"
)

// TestCopy drives `folio copy` (CONTRACT.md section 24) on the real binary: an install on the
// embedded SQLite database, with a row in every table folio has (users with a password and a
// key, a session, workspaces, notebooks, notes with tags and versions, a suggestion, a task, a
// calendar feed, an idempotent request's record, a webhook whose first delivery failed and waits
// for its retry, the audit log and the change feed), copied to PostgreSQL and from there to a new
// SQLite file:
//   - every table's rows are equal at each step (count and checksum, read by this test with the
//     copy's own comparison, River's queue through River), and the copy says so;
//   - the source is left byte for byte as it was;
//   - a server started on the PostgreSQL copy takes the original key and password and the session
//     made before, its change feed goes on after the last event seen before the copy, and the
//     delivery that waited is delivered, with the new events, to the same webhook; a server on
//     the SQLite copy takes the key too;
//   - a copy into a database that holds data is refused and changes nothing.
func TestCopy(t *testing.T) {
	t.Parallel()
	bin := testenv.FolioBinary(t)
	hook := newReceiver(t, http.StatusInternalServerError) // the first delivery fails
	env, key := installFolio(t, bin, "sqlite", "FOLIO_WEBHOOK_RETRY_BASE=4s")
	pathA := envValue(env, "FOLIO_SQLITE_PATH")
	c := &cli{t: t, bin: bin, env: env}
	c.line("user", "create", "--email", "pat@example.com", "--name", "Pat", "--password", "correct horse battery")
	c.line("user", "create", "--email", "bob@example.com", "--name", "Bob")

	srv := startServe(t, bin, env)
	api := rawClient{url: srv.url, key: key}
	ws := api.must(t, "POST", "/workspaces", map[string]any{"name": "Team"}, http.StatusCreated)["id"].(string)
	api.must(t, "POST", "/workspaces/"+ws+"/members", map[string]any{"email": "bob@example.com"}, http.StatusCreated)
	nb := api.must(t, "POST", "/notebooks", map[string]any{"name": "Team notes", "workspaceId": ws, "color": "teal"}, http.StatusCreated)["id"].(string)
	api.must(t, "POST", "/webhooks", map[string]any{"url": hook.URL + "/hook", "events": []string{"note.created"}}, http.StatusCreated)
	note := api.must(t, "POST", "/notes", map[string]any{"content": "Plan with @bob #launch", "notebookId": nb, "followUpAt": "2030-01-01"}, http.StatusCreated)["id"].(string)
	api.must(t, "PATCH", "/notes/"+note, map[string]any{"content": "Plan with @bob #launch #q3"}, http.StatusOK)
	api.must(t, "POST", "/notes/"+note+"/suggest", map[string]any{"content": "Plan with @bob and @carl #launch", "rationale": "Carl joins"}, http.StatusCreated)
	api.must(t, "POST", "/tasks", map[string]any{"title": "Ship", "notebookId": nb, "dueAt": "2031-02-03", "priority": "HIGH"}, http.StatusCreated)
	api.must(t, "POST", "/calendar-feeds", map[string]any{"name": "Work"}, http.StatusCreated)
	once, _ := http.NewRequest("POST", srv.url+"/api/v1/notebooks", strings.NewReader(`{"name":"Once"}`))
	once.Header.Set("Authorization", "Bearer "+key)
	once.Header.Set("Content-Type", "application/json")
	once.Header.Set("Idempotency-Key", "copy-test-once")
	if resp, err := http.DefaultClient.Do(once); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("an idempotent create: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	session := signIn(t, srv.url, "pat@example.com", "correct horse battery")
	// The first delivery fails; its retry waits in River's queue.
	select {
	case <-hook.ready:
	case <-time.After(60 * time.Second):
		t.Fatalf("no delivery attempt:\n%s", srv.stderr())
	}
	feed := api.must(t, "GET", "/events?limit=100", nil, http.StatusOK)
	lastSeen := feed["nextCursor"].(string)
	if code, _ := srv.stop(t); code != 0 {
		t.Fatalf("serve exited %d", code)
	}
	fileA := fileSum(t, pathA)

	// SQLite → PostgreSQL → SQLite.
	urlA, urlB := "sqlite://"+pathA, testenv.EmptyPostgresDB(t)
	pathC := filepath.Join(t.TempDir(), "copy.db")
	urlC := "sqlite://" + pathC
	for _, step := range [][2]string{{urlA, urlB}, {urlB, urlC}} {
		out := c.ok("copy", "--from", step[0], "--to", step[1])
		if strings.Contains(out, "DIFFERENT") || !regexp.MustCompile(`(?m)^notes\s+1\s+1\s+same `).MatchString(out) ||
			!regexp.MustCompile(`(?m)^river_job\s+[1-9]\d*\s+[1-9]\d*\s+same `).MatchString(out) {
			t.Fatalf("folio copy %s → %s printed:\n%s", step[0][:8], step[1][:8], out)
		}
	}
	if fileSum(t, pathA) != fileA {
		t.Fatal("the copy changed the source's file")
	}
	sumsA, sumsB, sumsC := tableSums(t, urlA), tableSums(t, urlB), tableSums(t, urlC)
	for name, a := range sumsA {
		if sumsB[name] != a || sumsC[name] != a {
			t.Errorf("table %s: %s on the source, %s on PostgreSQL, %s on the SQLite copy", name, a, sumsB[name], sumsC[name])
		}
	}
	for _, table := range []string{"users", "api_keys", "sessions", "workspaces", "memberships", "notebooks", "notes", "tasks", "snapshots",
		"suggestions", "tags", "item_tags", "search_index", "calendar_feeds", "idempotency_keys", "webhooks", "webhook_attempts",
		"audit_entries", "events", "river_job"} {
		if a, ok := sumsA[table]; !ok || strings.HasPrefix(a, "0 ") {
			t.Errorf("the source's %s has no row (%q): the test would not see it copied", table, a)
		}
	}
	if len(sumsA) != len(sumsB) || len(sumsA) != len(sumsC) {
		t.Errorf("%d tables on the source, %d and %d on the copies", len(sumsA), len(sumsB), len(sumsC))
	}

	// Into a database that holds data: refused, nothing changes.
	c.fails("a copy into a database with data", "not empty", "copy", "--from", urlA, "--to", urlB)
	if after := tableSums(t, urlB); !maps.Equal(after, sumsB) {
		t.Error("a refused copy changed the target")
	}

	// The PostgreSQL copy carries on.
	envB := append(withoutVar(env, "FOLIO_SQLITE_PATH"), "FOLIO_DATABASE_URL="+urlB)
	srvB := startServe(t, bin, envB)
	apiB := rawClient{url: srvB.url, key: key}
	if got := apiB.must(t, "GET", "/notebooks/"+nb, nil, http.StatusOK); got["name"] != "Team notes" {
		t.Errorf("the copied notebook: %v", got)
	}
	if signIn(t, srvB.url, "pat@example.com", "correct horse battery") == "" || !sessionWorks(t, srvB.url, session) {
		t.Error("the password or the session made before the copy does not work on the copy")
	}
	if got := apiB.must(t, "GET", "/events?after="+lastSeen, nil, http.StatusOK)["data"].([]any); len(got) != 0 {
		t.Errorf("the feed after the last event seen holds %d events before any write", len(got))
	}
	second := apiB.must(t, "POST", "/notes", map[string]any{"content": "written on the copy", "notebookId": nb}, http.StatusCreated)["id"].(string)
	after := apiB.must(t, "GET", "/events?after="+lastSeen, nil, http.StatusOK)["data"].([]any)
	if len(after) != 1 || after[0].(map[string]any)["resourceId"] != second || after[0].(map[string]any)["id"].(string) <= lastSeen {
		t.Errorf("the feed after %s: %v", lastSeen, after)
	}
	// The delivery that failed before the copy is retried, and the new event delivered, by the copy.
	deadline := time.Now().Add(90 * time.Second)
	for {
		hook.mu.Lock()
		got := append([]delivery(nil), hook.got...)
		hook.mu.Unlock()
		ok := map[string]int{}
		for _, d := range got {
			if d.status == http.StatusOK {
				ok[d.headers["webhook-id"]]++
			}
		}
		if len(got) >= 3 && len(ok) == 2 && ok[got[0].headers["webhook-id"]] == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries after the copy: %d attempts, delivered %v:\n%s", len(got), ok, srvB.stderr())
		}
		time.Sleep(200 * time.Millisecond)
	}
	srvB.stop(t)

	// The SQLite copy takes the key too.
	srvC := startServe(t, bin, append(withoutVar(env, "FOLIO_SQLITE_PATH"), "FOLIO_SQLITE_PATH="+pathC))
	rawClient{url: srvC.url, key: key}.must(t, "GET", "/notebooks/"+nb, nil, http.StatusOK)
	srvC.stop(t)
}

// tableSums reads every table of the database at u as the copy compares it ("rows checksum"),
// River's jobs through River, and the migrations applied: the columns both databases have (the
// SQLite search index's rowid is its own). Each side reads its columns as it declares them: the
// checksum's canonical forms (db.Canonical) agree across the two.
func tableSums(t *testing.T, u string) map[string]string {
	t.Helper()
	ctx := context.Background()
	pg, path, err := config.DatabaseAt(u)
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, d, err := db.OpenReadOnly(db.Options{URL: pg, SQLitePath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer sqlDB.Close()
	tx, err := sqlDB.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	tables, err := db.Tables(ctx, tx, d)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for name, tb := range tables {
		if webhooks.QueueTables(name) {
			continue
		}
		var cols []db.Column
		for _, c := range tb.Columns {
			if name == "search_index" && c.Name == "rowid" {
				continue // SQLite's own
			}
			cols = append(cols, c)
		}
		sum, err := db.SumRows(ctx, tx, d, name, cols)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = formatSum(sum)
	}
	jobs, err := webhooks.SumQueue(ctx, tx, d)
	if err != nil {
		t.Fatal(err)
	}
	out["river_job"] = formatSum(jobs)
	return out
}

func formatSum(c db.Checksum) string { return strconv.FormatInt(c.Rows, 10) + " " + c.String() }

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func envValue(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

func withoutVar(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// signIn signs in through the settings UI's form and returns the session cookie ("" when refused).
func signIn(t *testing.T, base, email, password string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(base + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfField.FindStringSubmatch(string(page))
	if m == nil {
		t.Fatalf("no CSRF token on the sign-in page: %d", resp.StatusCode)
	}
	resp, err = client.PostForm(base+"/signin", url.Values{"email": {email}, "password": {password}, "csrf_token": {m[1]}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	u, _ := url.Parse(base)
	for _, ck := range jar.Cookies(u) {
		if ck.Name == auth.SessionCookie && resp.StatusCode == http.StatusSeeOther {
			return ck.Value
		}
	}
	return ""
}

// sessionWorks reports whether the session cookie reads the API.
func sessionWorks(t *testing.T, base, cookie string) bool {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/v1/notebooks", nil)
	req.AddCookie(&http.Cookie{Name: auth.SessionCookie, Value: cookie})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
