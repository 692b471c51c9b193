package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"folio/platform/auth"
	"folio/platform/clock"
	"folio/tests/apitest"
)

// TestQueryBudget counts the SQL reads of every GET of the foundation once authentication is
// cached: at most 2 each, and the same number whatever the page size or the number of members.
// The clock is a fake one that stands still, so the key cache cannot expire between the warm-up
// request and the counted one however slow the machine is.
func TestQueryBudget(t *testing.T) {
	t.Parallel()
	apitest.ForEachDBWithClock(t, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		ann := s.NewUser(t, "Ann Budget")
		rw := s.NewKey(t, ann, auth.ScopeReadWrite)
		read := s.NewKey(t, ann, auth.ScopeRead)
		sess := s.OpenSession(t, ann)

		// 110 workspaces (each with a notebook), 110 personal notebooks, so 220 audit entries.
		var workspaces, wsNotebooks, personal []string
		for i := range 110 {
			fake.Advance(time.Millisecond)
			ws := apitest.Must(t, s.Post(t, rw, "/workspaces", map[string]any{"name": fmt.Sprintf("W%03d", i)}), http.StatusCreated).Str(t, "id")
			workspaces = append(workspaces, ws)
			nb := apitest.Must(t, s.Post(t, rw, "/notebooks", map[string]any{"name": fmt.Sprintf("WN%03d", i), "workspaceId": ws}), http.StatusCreated).Str(t, "id")
			wsNotebooks = append(wsNotebooks, nb)
			nb = apitest.Must(t, s.Post(t, rw, "/notebooks", map[string]any{"name": fmt.Sprintf("PN%03d", i)}), http.StatusCreated).Str(t, "id")
			personal = append(personal, nb)
		}
		newest := workspaces[len(workspaces)-1]
		wsKey := s.NewKey(t, ann, auth.ScopeRead, apitest.KeyOpts{Workspace: newest})
		nbKey := s.NewKey(t, ann, auth.ScopeRead, apitest.KeyOpts{Notebook: wsNotebooks[len(wsNotebooks)-1]})
		rwID := keyID(t, s, ann, rw)

		// want is the number of statements sent to the database (testenv.SQLCost.Reads); gorm is
		// the number of GORM query callbacks (SQLCost.Callbacks), which also counts each subquery
		// that GORM renders into a statement through a DryRun pass: a subquery is part of its
		// statement's one round trip, not a read of its own.
		type probe struct {
			name  string
			req   apitest.Request
			items int // expected len(data), -1 for a single object
			want  int64
			gorm  int64
		}
		get := func(key, path string) apitest.Request { return apitest.Request{Method: "GET", Path: path, Key: key} }
		probes := func() []probe {
			return []probe{
				{"GET /notebooks (default page)", get(rw, "/notebooks"), 20, 1, 1},
				{"GET /notebooks?limit=100", get(rw, "/notebooks?limit=100"), 100, 1, 1},
				{"GET /notebooks?limit=20 with a cursor", get(rw, "/notebooks?limit=20&cursor="+personal[60]), 20, 1, 2},
				{"GET /notebooks by the session", apitest.Request{Method: "GET", Path: "/notebooks?limit=100", Header: apitest.SessionHeader(sess.Token, "")}, 100, 1, 1},
				{"GET /notebooks by a read-only key", get(read, "/notebooks?limit=100"), 100, 1, 1},
				{"GET /notebooks by a workspace key", get(wsKey, "/notebooks"), 1, 1, 1},
				{"GET /notebooks by a notebook key", get(nbKey, "/notebooks"), 1, 1, 1},
				{"GET /notebooks/:id (personal)", get(rw, "/notebooks/"+personal[3]), -1, 1, 1},
				{"GET /notebooks/:id (workspace)", get(rw, "/notebooks/"+wsNotebooks[3]), -1, 1, 1},
				{"GET /notebooks/:id by a workspace key", get(wsKey, "/notebooks/"+wsNotebooks[len(wsNotebooks)-1]), -1, 1, 1},
				{"GET /workspaces (default page)", get(rw, "/workspaces"), 20, 2, 2},
				{"GET /workspaces?limit=100", get(rw, "/workspaces?limit=100"), 100, 2, 2},
				{"GET /workspaces?limit=20 with a cursor", get(rw, "/workspaces?limit=20&cursor="+workspaces[50]), 20, 2, 3},
				{"GET /workspaces by a workspace key", get(wsKey, "/workspaces"), 1, 2, 2},
				{"GET /workspaces by a notebook key", get(nbKey, "/workspaces"), 0, 0, 0},
				{"GET /audit-log (default page)", get(rw, "/audit-log"), 20, 1, 1},
				{"GET /audit-log?limit=100", get(rw, "/audit-log?limit=100"), 100, 1, 1},
				{"GET /audit-log?limit=100&resourceType=notebook", get(rw, "/audit-log?limit=100&resourceType=notebook"), 100, 1, 1},
				{"GET /audit-log?apiKeyId=... with a cursor", get(rw, "/audit-log?limit=20&apiKeyId="+rwID+"&cursor=150"), 20, 1, 2},
				{"GET /audit-log by a workspace key", get(wsKey, "/audit-log"), 1, 1, 1},
			}
		}
		type cost struct{ reads, gorm int64 }
		measure := func(p probe) cost {
			t.Helper()
			apitest.Must(t, s.Do(t, p.req), http.StatusOK) // warm-up: authentication is now cached
			var r apitest.Response
			sql := s.SQL(func() { r = s.Do(t, p.req) })
			c := cost{reads: sql.Reads, gorm: sql.Callbacks}
			apitest.Must(t, r, http.StatusOK)
			if p.items >= 0 {
				if got := len(r.Data(t)); got != p.items {
					t.Fatalf("%s: %d items, want %d", p.name, got, p.items)
				}
			}
			return c
		}
		seen := map[string]cost{}
		for _, p := range probes() {
			t.Run(p.name, func(t *testing.T) {
				c := measure(p)
				seen[p.name] = c
				if c.reads > 2 || c.reads != p.want {
					t.Fatalf("%d SQL reads, want %d (budget: 2)", c.reads, p.want)
				}
				if c.gorm != p.gorm {
					t.Fatalf("%d GORM query callbacks, want %d", c.gorm, p.gorm)
				}
			})
		}

		// Page size: 100 items cost what 20 cost.
		for _, pair := range [][2]string{
			{"GET /notebooks (default page)", "GET /notebooks?limit=100"},
			{"GET /workspaces (default page)", "GET /workspaces?limit=100"},
			{"GET /audit-log (default page)", "GET /audit-log?limit=100"},
		} {
			if seen[pair[0]] != seen[pair[1]] {
				t.Errorf("%q costs %+v but %q costs %+v", pair[0], seen[pair[0]], pair[1], seen[pair[1]])
			}
		}

		// Member count: give every workspace of the first page 10 more members; the cost stays.
		for i := range 10 {
			m := s.NewUser(t, fmt.Sprintf("Member %d", i))
			for _, ws := range workspaces[len(workspaces)-20:] {
				apitest.Must(t, s.Post(t, rw, "/workspaces/"+ws+"/members", map[string]any{"email": m.Email}), http.StatusCreated)
			}
		}
		for _, p := range probes() {
			switch p.name {
			case "GET /workspaces (default page)", "GET /workspaces?limit=100", "GET /workspaces by a workspace key":
			default:
				continue
			}
			t.Run(p.name+" with 11 members per workspace", func(t *testing.T) {
				r := s.Do(t, p.req)
				if members := r.Data(t)[0]["members"].([]any); len(members) != 11 {
					t.Fatalf("newest workspace has %d members, want 11", len(members))
				}
				if c := measure(p); c != seen[p.name] {
					t.Fatalf("costs %+v with 11 members per workspace, %+v with 1", c, seen[p.name])
				}
			})
		}

		// The counter is live: an uncached key costs its lookup on top of the list.
		t.Run("a cold key costs more (the counter counts)", func(t *testing.T) {
			cold := s.NewKey(t, ann, auth.ScopeRead)
			var r apitest.Response
			n := s.SQLReads(func() { r = s.Get(t, cold, "/notebooks") })
			apitest.Must(t, r, http.StatusOK)
			if n <= seen["GET /notebooks (default page)"].reads {
				t.Fatalf("a request with an uncached key made %d reads, no more than a cached one", n)
			}
			t.Logf("uncached key: %d reads", n)
		})
	})
}

// keyID returns the id of a user's key.
func keyID(t *testing.T, s *apitest.Server, u apitest.User, raw string) string {
	t.Helper()
	keys, err := s.Accounts.Keys(t.Context(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.Prefix == apitest.KeyPrefix(t, raw) {
			return k.ID
		}
	}
	t.Fatal("key not found")
	return ""
}

// TestContentQueryBudget: once authentication is cached, GET /notes/:id and a list of 20 notes
// with their tags run a constant number of SQL reads (at most 3), whatever the page size and the
// number of tags.
func TestContentQueryBudget(t *testing.T) {
	t.Parallel()
	apitest.ForEachDBWithClock(t, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		ann := s.NewUser(t, "Ann Budget")
		key := s.NewKey(t, ann, auth.ScopeReadWrite)
		nb := apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "budget"}), http.StatusCreated).Str(t, "id")
		var few, many string
		for i := 0; i < 40; i++ {
			fake.Advance(time.Millisecond)
			few = createNote(t, s, key, nb, fmt.Sprintf("note %d #a%d #b%d @c%d", i, i, i, i))["id"].(string)
		}
		body := ""
		for i := 0; i < 30; i++ {
			body += fmt.Sprintf(" #tag%d @person%d", i, i)
		}
		many = createNote(t, s, key, nb, body)["id"].(string)
		apitest.Must(t, s.Get(t, key, "/notes"), http.StatusOK) // warm the key cache
		apitest.Must(t, suggest(t, s, key, "note", few, "pending one"), http.StatusCreated)
		for _, tc := range []struct {
			name, path string
			max        int64
		}{
			{"one note, 3 tags, with a pending suggestion", "/notes/" + few, 3},
			{"one note, 60 tags", "/notes/" + many, 3},
			{"list of 20", "/notes?limit=20", 2},
			{"list of 40", "/notes?limit=40", 2},
			{"list of 20 in one notebook", "/notes?limit=20&notebookId=" + nb, 3},
		} {
			n := s.SQLReads(func() { apitest.Must(t, s.Get(t, key, tc.path), http.StatusOK) })
			if n > tc.max {
				t.Errorf("%s: %d SQL reads, want at most %d", tc.name, n, tc.max)
			}
			t.Logf("%s: %d SQL reads", tc.name, n)
		}
	})
}

// TestFocusQueryBudget: once authentication is cached, GET /focus runs 4 SQL reads (per kind of
// item, the rows of its three lists at once, then their tags), whatever the number of items, of
// notebooks and of tags, lists cut at 100 or not.
func TestFocusQueryBudget(t *testing.T) {
	t.Parallel()
	apitest.ForEachDBWithClock(t, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		key, nb := ownWorld(t, s)
		dates := map[string]any{"targetAt": "2030-01-01T09:00:00Z", "followUpAt": "2029-12-01", "dueAt": "2029-12-24"}
		f := focusItems{t, s, key, nb}
		f.note("one note #budget @ann", map[string]any{"targetAt": dates["targetAt"], "followUpAt": dates["followUpAt"]})
		f.task("one task", dates)
		measure := func(name string) int64 {
			t.Helper()
			apitest.Must(t, s.Get(t, key, "/focus?tz=Europe/Berlin"), http.StatusOK) // warm-up: authentication is now cached
			var r apitest.Response
			n := s.SQLReads(func() { r = s.Get(t, key, "/focus?tz=Europe/Berlin") })
			apitest.Must(t, r, http.StatusOK)
			t.Logf("%s: %d SQL reads", name, n)
			return n
		}
		if n := measure("one note and one task"); n != 4 {
			t.Fatalf("%d SQL reads, want 4", n)
		}
		for i := range 6 {
			f.nb = apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": fmt.Sprintf("budget %d", i)}), http.StatusCreated).Str(t, "id")
			for j := range 10 {
				f.note(fmt.Sprintf("note %d.%d #t%d @p%d", i, j, j, i), map[string]any{"targetAt": dates["targetAt"], "followUpAt": dates["followUpAt"]})
				f.task(fmt.Sprintf("task %d.%d", i, j), map[string]any{"targetAt": dates["targetAt"], "followUpAt": dates["followUpAt"], "dueAt": dates["dueAt"], "notes": "#t"})
			}
		}
		if n := measure("122 items in 7 notebooks, two lists cut"); n != 4 {
			t.Fatalf("%d SQL reads, want 4", n)
		}
	})
}
