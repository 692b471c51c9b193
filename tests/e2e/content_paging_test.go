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

// TestNotePagingUnderChange walks GET /notes page by page while other requests create, archive
// and delete notes between the pages: no note is returned twice, and every note that nobody
// touched is returned (a cursor naming a note archived or deleted since keeps working).
func TestNotePagingUnderChange(t *testing.T) {
	apitest.ForEachDBWithClock(t, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		ann := s.NewUser(t, "Ann Pager")
		key := s.NewKey(t, ann, auth.ScopeReadWrite)
		nb := apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "paging"}), http.StatusCreated).Str(t, "id")
		var all []string
		for i := 0; i < 60; i++ {
			// Some notes share a createdAt: the id breaks the tie.
			if i%3 == 0 {
				fake.Advance(time.Millisecond)
			}
			all = append(all, createNote(t, s, key, nb, fmt.Sprintf("note %d #n%d", i, i))["id"].(string))
		}
		touched := map[string]bool{}
		seen := map[string]int{}
		cursor := ""
		for page := 0; ; page++ {
			path := "/notes?limit=7"
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			r := apitest.Must(t, s.Get(t, key, path), http.StatusOK)
			data := r.Data(t)
			for _, n := range data {
				seen[n["id"].(string)]++
			}
			// Between pages: delete the cursor note itself, archive an older one, create a new one.
			if len(data) > 0 {
				last := data[len(data)-1]["id"].(string)
				apitest.Must(t, s.Delete(t, key, "/notes/"+last), http.StatusOK)
				touched[last] = true
			}
			if older := all[max(0, 50-page*7)]; !touched[older] {
				apitest.Must(t, patch(t, s, key, "/notes/"+older, map[string]any{"archived": true}), http.StatusOK)
				touched[older] = true
			}
			fake.Advance(time.Millisecond)
			touched[createNote(t, s, key, nb, "new during paging")["id"].(string)] = true
			next, _ := r.JSON(t)["nextCursor"].(string)
			if next == "" {
				break
			}
			cursor = next
		}
		for id, n := range seen {
			if n > 1 {
				t.Errorf("note %s returned %d times", id, n)
			}
		}
		for _, id := range all {
			if !touched[id] && seen[id] != 1 {
				t.Errorf("untouched note %s skipped", id)
			}
		}
	})
}

// TestContentQueryBudget: once authentication is cached, GET /notes/:id and a list of 20 notes
// with their tags run a constant number of SQL reads (at most 3), whatever the page size and the
// number of tags.
func TestContentQueryBudget(t *testing.T) {
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
