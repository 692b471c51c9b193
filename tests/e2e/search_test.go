package e2e

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"folio/tests/apitest"
)

// searchIDs walks a list page by page (limit 2) and returns the ids in order.
func searchIDs(t *testing.T, s *apitest.Server, key, path string, query url.Values) []string {
	t.Helper()
	var out []string
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set("limit", "2")
	for range 100 {
		r := apitest.Must(t, s.Get(t, key, path+"?"+q.Encode()), http.StatusOK)
		for _, it := range r.Data(t) {
			out = append(out, it["id"].(string))
		}
		next, _ := r.JSON(t)["nextCursor"].(string)
		if next == "" {
			return out
		}
		q.Set("cursor", next)
	}
	t.Fatal("more than 100 pages")
	return nil
}

// TestSearchNotes: q finds words by their start, ignoring case and accents, AND-ed, phrases in
// quotes; tag, person, targetFrom/targetTo and hasDecision filter; everything combines, pages,
// and stays within the caller's reach; any q is valid and an over-long one is 400.
func TestSearchNotes(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		mk := func(key, nb, text string, fields map[string]any) string {
			id := createNote(t, s, key, nb, text)["id"].(string)
			if fields != nil {
				apitest.Must(t, patch(t, s, key, "/notes/"+id, fields), http.StatusOK)
			}
			return id
		}
		cafe := mk(w.annRW, w.teamNB, "Planning at the Café with @Bob #Q4", map[string]any{"targetAt": "2026-12-01"})
		plan := mk(w.annRW, w.annNB, "The Q4 plan: hiring and budget #q4 #budget\n\n> **Decision:** hire two", nil)
		quick := mk(w.annRW, w.teamNB, "quick brown fox jumps", map[string]any{"targetAt": "2026-12-03T10:00:00Z"})
		other := mk(w.annRW, w.teamNB, "brown quick fox", nil)
		carls := mk(w.carlRW, w.carlNB, "Carl's Q4 plan, café too", nil)
		// Changed and deleted notes: the index follows the content.
		changed := mk(w.annRW, w.teamNB, "obsolete words", map[string]any{"content": "renamed zebra"})
		deleted := mk(w.annRW, w.teamNB, "zebra doomed", nil)
		apitest.Must(t, s.Delete(t, w.annRW, "/notes/"+deleted), http.StatusOK)

		find := func(key string, q url.Values) []string { return searchIDs(t, s, key, "/notes", q) }
		for _, c := range []struct {
			name  string
			query url.Values
			want  []string
		}{
			{"accent-insensitive", url.Values{"q": {"cafe"}}, []string{cafe}},
			{"accented query", url.Values{"q": {"CAFÉ"}}, []string{cafe}},
			{"prefix", url.Values{"q": {"plan"}}, []string{plan, cafe}},
			{"words are AND-ed", url.Values{"q": {"q4 hiring"}}, []string{plan}},
			{"phrase", url.Values{"q": {`"quick brown"`}}, []string{quick}},
			{"words in any order", url.Values{"q": {"quick brown"}}, []string{other, quick}},
			{"the new content, not the old", url.Values{"q": {"zebra"}}, []string{changed}},
			{"old words are gone", url.Values{"q": {"obsolete"}}, nil},
			{"tag", url.Values{"tag": {"Q4"}}, []string{plan, cafe}},
			{"two tags", url.Values{"tag": {"q4", "budget"}}, []string{plan}},
			{"person", url.Values{"person": {"bob"}}, []string{cafe}},
			{"tag and q", url.Values{"tag": {"q4"}, "q": {"cafe"}}, []string{cafe}},
			{"hasDecision", url.Values{"hasDecision": {"true"}}, []string{plan}},
			{"target range, inclusive", url.Values{"targetFrom": {"2026-12-01"}, "targetTo": {"2026-12-03"}}, []string{quick, cafe}},
			{"target from", url.Values{"targetFrom": {"2026-12-02"}}, []string{quick}},
			{"q and notebook", url.Values{"q": {"plan"}, "notebookId": {w.annNB}}, []string{plan}},
		} {
			if got := find(w.annRW, c.query); !slices.Equal(got, c.want) {
				t.Errorf("%s (%s): %v, want %v", c.name, c.query.Encode(), got, c.want)
			}
		}
		// Restrictions: the Team notebook key and Carl see their own matches only.
		if got := find(w.annTeamNB, url.Values{"q": {"plan"}}); !slices.Equal(got, []string{cafe}) {
			t.Errorf("the Team notebook key's plan: %v", got)
		}
		// The tag filter (read tag by tag on PostgreSQL): with a notebook, a restricted key, Carl's
		// own #q4 in his space, archived notes, and deleted ones gone.
		archivedQ4 := mk(w.annRW, w.teamNB, "old #q4 notes", map[string]any{"archived": true})
		deletedQ4 := mk(w.annRW, w.teamNB, "doomed #q4", nil)
		apitest.Must(t, s.Delete(t, w.annRW, "/notes/"+deletedQ4), http.StatusOK)
		carlQ4 := mk(w.carlRW, w.carlNB, "Carl's own #q4", nil)
		for _, c := range []struct {
			name, key string
			query     url.Values
			want      []string
		}{
			{"tag and notebook", w.annRW, url.Values{"tag": {"q4"}, "notebookId": {w.teamNB}}, []string{cafe}},
			{"tag with a notebook key", w.annTeamNB, url.Values{"tag": {"q4"}}, []string{cafe}},
			{"tag, archived", w.annRW, url.Values{"tag": {"q4"}, "archived": {"true"}}, []string{archivedQ4}},
			{"tag in another space", w.carlRW, url.Values{"tag": {"Q4"}}, []string{carlQ4}},
			{"tag and person", w.annRW, url.Values{"tag": {"q4"}, "person": {"bob"}}, []string{cafe}},
		} {
			if got := find(c.key, c.query); !slices.Equal(got, c.want) {
				t.Errorf("%s (%s): %v, want %v", c.name, c.query.Encode(), got, c.want)
			}
		}
		if got := find(w.carlRW, url.Values{"q": {"cafe"}}); !slices.Equal(got, []string{carls}) {
			t.Errorf("Carl's cafe: %v", got)
		}
		// Any input is valid syntax; nothing is a 500.
		for _, q := range []string{`"`, `""`, `*`, `-`, `a*`, `NEAR(a b)`, `a OR b`, `(a`, `a AND`, `'`, `\`, `:*`, `&|!`, `<->`,
			"🙂", "日本語", `"unclosed phrase`, "null\x00byte", strings.Repeat("x", 200)} {
			r := s.Get(t, w.annRW, "/notes?q="+url.QueryEscape(q))
			if r.Status != http.StatusOK {
				t.Errorf("q=%q: %d %s", q, r.Status, r.Body)
			}
		}
		wantErr(t, s.Get(t, w.annRW, "/notes?q="+strings.Repeat("x", 201)), http.StatusBadRequest, "VALIDATION_ERROR")
		wantErr(t, s.Get(t, w.annRW, "/notes?hasDecision=yes"), http.StatusBadRequest, "VALIDATION_ERROR")
		wantErr(t, s.Get(t, w.annRW, "/notes?targetFrom=tomorrow"), http.StatusBadRequest, "VALIDATION_ERROR")
	})
}

// TestSearchTasks: q covers a task's title and notes; priority and due dates filter.
func TestSearchTasks(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		mk := func(body map[string]any) string {
			body["notebookId"] = w.teamNB
			return apitest.Must(t, s.Post(t, w.annRW, "/tasks", body), http.StatusCreated).Str(t, "id")
		}
		a := mk(map[string]any{"title": "Renew the Übersicht licence", "priority": "HIGH", "dueAt": "2026-12-10"})
		b := mk(map[string]any{"title": "Call", "notes": "about the uebersicht and licence", "priority": "LOW", "dueAt": "2026-12-20"})
		c := mk(map[string]any{"title": "Retitled later", "notes": "#ops"})
		apitest.Must(t, patch(t, s, w.annRW, "/tasks/"+c, map[string]any{"title": "Licence audit"}), http.StatusOK)
		find := func(q url.Values) []string { return searchIDs(t, s, w.annRW, "/tasks", q) }
		for _, tc := range []struct {
			name  string
			query url.Values
			want  []string
		}{
			{"title, accents", url.Values{"q": {"ubersicht"}}, []string{a}},
			{"title and notes", url.Values{"q": {"licence"}}, []string{c, b, a}},
			{"a renamed title", url.Values{"q": {"audit"}}, []string{c}},
			{"priority", url.Values{"priority": {"HIGH"}}, []string{a}},
			{"due range", url.Values{"dueFrom": {"2026-12-01"}, "dueTo": {"2026-12-10"}}, []string{a}},
			{"q, priority and due", url.Values{"q": {"licence"}, "priority": {"LOW"}, "dueTo": {"2026-12-31"}}, []string{b}},
			{"tag on a task", url.Values{"tag": {"ops"}}, []string{c}},
		} {
			if got := find(tc.query); !slices.Equal(got, tc.want) {
				t.Errorf("%s (%s): %v, want %v", tc.name, tc.query.Encode(), got, tc.want)
			}
		}
		wantErr(t, s.Get(t, w.annRW, "/tasks?priority=urgent"), http.StatusBadRequest, "VALIDATION_ERROR")
		wantErr(t, s.Get(t, w.annRW, "/tasks?dueTo=2026-13-01"), http.StatusBadRequest, "VALIDATION_ERROR")
	})
}
