package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/modules/accounts"
	"folio/platform/config"
	"folio/tests/apitest"
)

// TestEveryRequestIsLogged sends 600 requests as fast as 8 clients can, then 200 more while the
// database is gone (503 from /readyz), through the real server and the application's own logger:
// every request id has its access line, and every 5xx its error line. zap's production preset
// sampled them (100 lines of one message a second, then every 100th), so most were lost.
func TestEveryRequestIsLogged(t *testing.T) {
	t.Parallel()
	apitest.EachDB(t, func(t *testing.T, kind string) {
		s, logs := apitest.StartLogged(t, kind)
		key := s.NewKey(t, s.NewUser(t, "Logged"), 3)

		burst := func(n int, req func(i int) apitest.Response) []string {
			ids := make([]string, n)
			var wg sync.WaitGroup
			next := make(chan int)
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range next {
						ids[i] = req(i).Header.Get("X-Request-Id")
					}
				}()
			}
			for i := range n {
				next <- i
			}
			close(next)
			wg.Wait()
			return ids
		}
		served := burst(600, func(i int) apitest.Response {
			if i%2 == 0 {
				return s.Get(t, key, "/notebooks")
			}
			return s.Get(t, key, "/notes/nosuchnote") // 4xx lines count too
		})

		sqlDB, err := s.DB.DB()
		if err != nil {
			t.Fatal(err)
		}
		_ = sqlDB.Close()
		failed := burst(200, func(int) apitest.Response {
			r := s.Get(t, "", "//readyz")
			if r.Status != http.StatusServiceUnavailable {
				t.Errorf("readyz without a database: %d %s", r.Status, r.Body)
			}
			return r
		})

		access, errorLines := map[string]int{}, map[string]int{}
		for _, l := range logs.Lines(t) {
			id, _ := l["requestId"].(string)
			switch l["msg"] {
			case "request":
				access[id]++
			case "request failed":
				errorLines[id]++
			}
		}
		lost := 0
		for _, id := range append(served, failed...) {
			if id == "" || access[id] != 1 {
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("%d of %d requests have no access line (or more than one)", lost, len(served)+len(failed))
		}
		lost = 0
		for _, id := range failed {
			if errorLines[id] != 1 {
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("%d of %d 503 answers have no error line (or more than one)", lost, len(failed))
		}
	})
}

// TestLogsHoldNoSecrets runs the real server with every query logged as slow
// (FOLIO_DB_SLOW_QUERY=1ns) and the access log on, signs a user up with a password, uses a key,
// a web session and its CSRF token, writes a note, and puts a raw key into a URL path: the log
// holds the SQL of those queries but none of the values (email, password hash, CSRF token, note
// text, key), and the access line shows the key's prefix with the rest redacted. SQLite quotes
// values with ", which the old cut at the first ' did not catch.
func TestLogsHoldNoSecrets(t *testing.T) {
	t.Parallel()
	apitest.EachDB(t, func(t *testing.T, kind string) {
		s, logs := apitest.StartLogged(t, kind, func(c *config.Config) { c.DBSlowQuery = time.Nanosecond })
		tag := randomHex(t)
		email := "mail" + tag + "@example.com"
		u, err := s.Accounts.CreateUser(context.Background(), email, "Secret Holder", "pw-"+tag+"-long")
		if err != nil {
			t.Fatal(err)
		}
		user := apitest.User{ID: u.ID, Email: u.Email, Name: u.Name}
		key := s.NewKey(t, user, 3)
		si := s.OpenSession(t, user)
		var stored accounts.User
		if err := s.DB.First(&stored, "id = ?", u.ID).Error; err != nil {
			t.Fatal(err)
		}

		nb := apitest.Must(t, s.Do(t, apitest.Request{Method: http.MethodPost, Path: "/notebooks",
			Body: map[string]any{"name": "nb " + tag, "color": "blue"}, Header: apitest.SessionHeader(si.Token, si.CSRFToken)}), http.StatusCreated).Str(t, "id")
		noteText := "note text " + tag
		createNote(t, s, key, nb, noteText)
		apitest.Must(t, s.Get(t, key, "/notes?limit=5"), http.StatusOK)
		// A client that put its key into the URL.
		prefix := apitest.KeyPrefix(t, key)
		s.Get(t, key, "/notes/"+key)
		s.Get(t, "", "//api/v1/notes/"+strings.ToUpper(key)+"x")
		// A calendar feed's address is its secret: fetched, it must not reach the log either.
		feedURL := apitest.Must(t, s.Post(t, key, "/calendar-feeds", map[string]any{"name": "cal " + tag}), http.StatusCreated).Str(t, "url")
		apitest.Must(t, s.Do(t, apitest.Request{Method: http.MethodGet, Path: "/" + feedURL}), http.StatusOK)
		feedToken := strings.TrimSuffix(feedURL[strings.LastIndex(feedURL, "/")+1:], ".ics")

		log := logs.String()
		if !strings.Contains(log, `"slow query"`) || !strings.Contains(log, "api_keys") {
			t.Fatalf("the log shows no slow queries; the test cannot see what it checks:\n%.2000s", log)
		}
		secrets := map[string]string{
			"email": email, "password hash": stored.PasswordHash, "password": "pw-" + tag,
			"CSRF token": si.CSRFToken, "session token": si.Token, "note text": noteText,
			"notebook name": "nb " + tag, "key": key, "key secret": key[len(key)-24:], "calendar feed token": feedToken,
		}
		for what, v := range secrets {
			if v == "" {
				t.Fatalf("%s is empty", what)
			}
			if i := strings.Index(strings.ToLower(log), strings.ToLower(v)); i >= 0 {
				t.Errorf("the log holds the %s: …%s…", what, log[max(0, i-300):min(len(log), i+len(v)+50)])
			}
		}
		redacted := 0
		for _, l := range logs.Lines(t) {
			if p, _ := l["path"].(string); l["msg"] == "request" && strings.HasPrefix(p, "/api/v1/notes/svc_live_") {
				redacted++
				if p != "/api/v1/notes/svc_live_"+prefix+"_[REDACTED]" && p != "/api/v1/notes/svc_live_"+strings.ToUpper(prefix)+"_[REDACTED]" {
					t.Errorf("access line path %q", p)
				}
			}
			if sql, ok := l["sql"].(string); ok && len(sql) > 2<<10+64 {
				t.Errorf("a logged SQL text is %d bytes long", len(sql))
			}
		}
		if redacted != 2 {
			t.Errorf("%d access lines for the paths with a key, want 2", redacted)
		}
	})
}

func randomHex(t *testing.T) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
