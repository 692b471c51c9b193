package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"folio/tests/testenv"
)

// TestCLIKeyExpiry drives the binary: `folio key create --expires` in each accepted form, a bad
// value refused before anything is stored, `folio key list` showing the expiry in its EXPIRES
// column and as expiresAt (null when the key never expires) with --json, a rotation keeping the
// expiry, and the keys working on the server; and the binary's help for key create, through both
// `folio help key create` and `folio key create --help`, explaining --expires.
func TestCLIKeyExpiry(t *testing.T) {
	bin := testenv.FolioBinary(t)
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
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
