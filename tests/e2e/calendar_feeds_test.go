package e2e

import (
	"bytes"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-ical"

	"folio/modules/accounts"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/httpx"
	"folio/tests/apitest"
)

// Calendar feeds (CONTRACT.md section 21, "Calendar"): a feed is a secret address that serves,
// without headers, an RFC 5545 calendar of the follow-ups, due dates and target dates of what the
// credential that created it can read now. It is a carrier that holds data for later (section
// 20): the feed holds its credential and asks the access rule at every fetch, so it dies with the
// key or session, follows a rotation and a member out of a workspace. Every feed here is parsed
// with github.com/emersion/go-ical, another library than the one that writes it
// (github.com/arran4/golang-ical).

// feedFields are the fields of a feed in GET /calendar-feeds; the create answer adds url.
var feedFields = []string{"id", "name", "notebookId", "createdAt", "status", "disabledReason", "apiKeyName", "apiKeyPrefix"}

// feedURLPrefix starts every feed's address: a path under the API, then the token and .ics.
const feedURLPrefix = httpx.APIBase + "/calendar/"

// createFeed creates a feed with key and returns the create answer.
func createFeed(t *testing.T, s *apitest.Server, key string, body map[string]any) map[string]any {
	t.Helper()
	return apitest.Must(t, s.Post(t, key, "/calendar-feeds", body), http.StatusCreated).JSON(t)
}

// fetchFeed GETs a feed's url as a calendar app does: no Authorization header, no cookie.
func fetchFeed(t *testing.T, s *apitest.Server, url string, header map[string]string) apitest.Response {
	t.Helper()
	path, ok := strings.CutPrefix(url, httpx.APIBase)
	if !ok {
		t.Fatalf("feed url %q is not a path under %s", url, httpx.APIBase)
	}
	return s.Do(t, apitest.Request{Method: http.MethodGet, Path: path, Header: header})
}

// feedGone asserts that a feed's url answers 404 CALENDAR_FEED_NOT_FOUND, as an unknown token does.
func feedGone(t *testing.T, s *apitest.Server, url, why string) {
	t.Helper()
	r := fetchFeed(t, s, url, nil)
	if r.Status != http.StatusNotFound || r.ErrorCode(t) != "CALENDAR_FEED_NOT_FOUND" {
		t.Fatalf("%s: the feed answered %d, want 404 CALENDAR_FEED_NOT_FOUND: %.300s", why, r.Status, r.Body)
	}
	apitest.CheckEnvelope(t, r, http.StatusNotFound, "CALENDAR_FEED_NOT_FOUND")
}

// calEvent is a VEVENT as go-ical reads it.
type calEvent struct {
	UID, Summary, URL, Description string
	Start, Stamp                   time.Time
}

// parseFeed checks a feed's response (200, text/calendar, private caching, an ETag) and its body as
// an independent parser reads it: CRLF line ends, no line longer than 75 octets, a VCALENDAR that
// go-ical decodes and encodes again (its encoder checks that each event has exactly one UID and
// DTSTAMP and at most one of the other properties), DTSTART and DTSTAMP in UTC. It returns the
// events by UID.
func parseFeed(t *testing.T, r apitest.Response) (*ical.Calendar, map[string]calEvent) {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("feed: status %d: %.300s", r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "text/calendar; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "private") {
		t.Errorf("Cache-Control %q, want private", cc)
	}
	if r.Header.Get("ETag") == "" {
		t.Error("no ETag")
	}
	body := r.Body
	if !bytes.HasSuffix(body, []byte("\r\n")) {
		t.Errorf("the feed does not end with CRLF")
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(body), "\r\n"), "\r\n") {
		if len(line) > 75 {
			t.Errorf("line %d is %d octets, longer than 75 (RFC 5545 section 3.1): %q", i+1, len(line), line)
		}
		if strings.ContainsAny(line, "\r\n") {
			t.Errorf("line %d has a bare CR or LF: %q", i+1, line)
		}
		if !utf8.ValidString(line) {
			t.Errorf("line %d is not UTF-8 (a fold split a character?): %q", i+1, line)
		}
	}
	cal, err := ical.NewDecoder(bytes.NewReader(body)).Decode()
	if err != nil {
		t.Fatalf("go-ical cannot read the feed: %v\n%s", err, body)
	}
	if v := cal.Props.Get(ical.PropVersion); v == nil || v.Value != "2.0" {
		t.Errorf("VERSION %v, want 2.0", v)
	}
	if cal.Props.Get(ical.PropProductID) == nil {
		t.Error("no PRODID")
	}
	events := map[string]calEvent{}
	for _, ev := range cal.Events() {
		var e calEvent
		e.UID, _ = ev.Props.Text(ical.PropUID)
		e.Summary, err = ev.Props.Text(ical.PropSummary)
		if err != nil {
			t.Errorf("SUMMARY of %s: %v", e.UID, err)
		}
		e.Description, _ = ev.Props.Text(ical.PropDescription)
		if u := ev.Props.Get(ical.PropURL); u != nil {
			e.URL = u.Value
		}
		for _, p := range []struct {
			name string
			into *time.Time
		}{{ical.PropDateTimeStart, &e.Start}, {ical.PropDateTimeStamp, &e.Stamp}} {
			prop := ev.Props.Get(p.name)
			if prop == nil || !strings.HasSuffix(prop.Value, "Z") {
				t.Errorf("%s of %s is %v, want a UTC date-time", p.name, e.UID, prop)
				continue
			}
			if *p.into, err = prop.DateTime(time.UTC); err != nil {
				t.Errorf("%s of %s: %v", p.name, e.UID, err)
			}
		}
		if _, dup := events[e.UID]; dup {
			t.Errorf("UID %s is used twice", e.UID)
		}
		events[e.UID] = e
	}
	if len(cal.Children) > 0 {
		if err := ical.NewEncoder(&bytes.Buffer{}).Encode(cal); err != nil {
			t.Errorf("go-ical finds the feed malformed: %v\n%s", err, body)
		}
	}
	return cal, events
}

// wantUIDs asserts that a feed has exactly these events.
func wantUIDs(t *testing.T, what string, events map[string]calEvent, want ...string) {
	t.Helper()
	var got []string
	for uid := range events {
		got = append(got, uid)
	}
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: the feed has the events %v, want exactly %v", what, got, want)
	}
}

// uid is the UID of an item's event of a kind of date (followup, due, target).
func uid(itemID, date string) string { return itemID + "-" + date + "@folio" }

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestCalendarFeeds: create answers 201 with the feed, its url (shown only there) and Location;
// the list shows the caller's feeds without the url; delete removes it (404 afterwards, for its
// url too); another user's feed, an unknown or malformed id is 404 CALENDAR_FEED_NOT_FOUND.
func TestCalendarFeeds(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		r := apitest.Must(t, s.Post(t, w.annRW, "/calendar-feeds", map[string]any{"name": "Work"}), http.StatusCreated)
		feed := r.JSON(t)
		wantFields(t, feed, append(feedFields, "url")...)
		id := feed["id"].(string)
		if loc := r.Header.Get("Location"); loc != httpx.APIBase+"/calendar-feeds/"+id {
			t.Errorf("Location %q", loc)
		}
		url := feed["url"].(string)
		if !strings.HasPrefix(url, feedURLPrefix) || !strings.HasSuffix(url, ".ics") || len(url) < len(feedURLPrefix)+26+4 {
			t.Fatalf("url %q is not %s<token>.ics", url, feedURLPrefix)
		}
		token := strings.TrimSuffix(strings.TrimPrefix(url, feedURLPrefix), ".ics")
		prefix := "svc_live_" + apitest.KeyPrefix(t, w.annRW)
		if feed["name"] != "Work" || feed["notebookId"] != nil || feed["status"] != "active" || feed["disabledReason"] != nil ||
			feed["apiKeyPrefix"] != prefix || feed["apiKeyName"] == nil || !wireTimeRE.MatchString(feed["createdAt"].(string)) {
			t.Fatalf("created feed %v", feed)
		}
		parseFeed(t, fetchFeed(t, s, url, nil))

		list := apitest.Must(t, s.Get(t, w.annRW, "/calendar-feeds"), http.StatusOK)
		if strings.Contains(string(list.Body), token) {
			t.Fatal("GET /calendar-feeds shows the token")
		}
		data := list.Data(t)
		if len(data) != 1 {
			t.Fatalf("listed %v", data)
		}
		wantFields(t, data[0], feedFields...)
		for _, f := range feedFields {
			if data[0][f] != feed[f] { // strings or null
				t.Errorf("listed %s = %v, created %v", f, data[0][f], feed[f])
			}
		}
		// Another user sees none of it and cannot delete it.
		if got := apitest.Must(t, s.Get(t, w.carlRW, "/calendar-feeds"), http.StatusOK).Data(t); len(got) != 0 {
			t.Fatalf("Carl lists %v", got)
		}
		for _, path := range []string{"/calendar-feeds/" + id, "/calendar-feeds/ckq9x2v0a0000pl8f3r2b7h1", "/calendar-feeds/not-an-id"} {
			key := w.carlRW
			if path != "/calendar-feeds/"+id {
				key = w.annRW
			}
			apitest.CheckEnvelope(t, s.Delete(t, key, path), http.StatusNotFound, "CALENDAR_FEED_NOT_FOUND")
		}
		parseFeed(t, fetchFeed(t, s, url, nil))

		apitest.Must(t, s.Delete(t, w.annRW, "/calendar-feeds/"+id), http.StatusOK)
		feedGone(t, s, url, "after its deletion")
		apitest.CheckEnvelope(t, s.Delete(t, w.annRW, "/calendar-feeds/"+id), http.StatusNotFound, "CALENDAR_FEED_NOT_FOUND")
		if got := apitest.Must(t, s.Get(t, w.annRW, "/calendar-feeds"), http.StatusOK).Data(t); len(got) != 0 {
			t.Fatalf("after the delete GET /calendar-feeds lists %v", got)
		}
		// Unknown and malformed addresses are the same 404.
		for _, path := range []string{feedURLPrefix + "AAAAAAAAAAAAAAAAAAAAAAAAAA.ics", feedURLPrefix + token, feedURLPrefix + token + ".ical", feedURLPrefix + "x.ics"} {
			feedGone(t, s, path, path)
		}
	})
}

// TestCalendarFeedValidation: the name is required, 1 to 80 characters and not blank; notebookId
// names a notebook the credential can read, with the access codes of the notes list; a feed reads,
// so creating one needs read and write scope; server-derived fields are refused. Nothing is made.
func TestCalendarFeedValidation(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for _, tc := range []struct {
			name, key string
			body      any
			status    int
			code      string
			mentions  string
		}{
			{"no name", w.annRW, map[string]any{}, 400, "MISSING_FIELD", "name"},
			{"null name", w.annRW, map[string]any{"name": nil}, 400, "MISSING_FIELD", "name"},
			{"blank name", w.annRW, map[string]any{"name": "  "}, 400, "VALIDATION_ERROR", "name"},
			{"long name", w.annRW, map[string]any{"name": strings.Repeat("é", 81)}, 400, "VALIDATION_ERROR", "name"},
			{"name not a string", w.annRW, map[string]any{"name": 3}, 400, "VALIDATION_ERROR", "name"},
			{"unknown field", w.annRW, map[string]any{"name": "x", "color": "red"}, 400, "VALIDATION_ERROR", "color"},
			{"url is the server's", w.annRW, map[string]any{"name": "x", "url": "/x.ics"}, 400, "VALIDATION_ERROR", "url"},
			{"notebookId not a string", w.annRW, map[string]any{"name": "x", "notebookId": 7}, 400, "VALIDATION_ERROR", "notebookId"},
			{"another user's notebook", w.annRW, map[string]any{"name": "x", "notebookId": w.carlNB}, 404, "NOTEBOOK_NOT_FOUND", ""},
			{"a malformed notebook id", w.annRW, map[string]any{"name": "x", "notebookId": "nope"}, 404, "NOTEBOOK_NOT_FOUND", ""},
			{"a member and the owner's personal notebook", w.bobRW, map[string]any{"name": "x", "notebookId": w.annNB}, 404, "NOTEBOOK_NOT_FOUND", ""},
			{"a notebook key and another notebook", w.annTeamNB, map[string]any{"name": "x", "notebookId": w.annNB}, 403, "KEY_NOTEBOOK_MISMATCH", ""},
			{"a workspace key and a personal notebook", w.annTeam, map[string]any{"name": "x", "notebookId": w.annNB}, 403, "KEY_WORKSPACE_MISMATCH", ""},
			{"a read-only key", w.annRead, map[string]any{"name": "x"}, 403, "INSUFFICIENT_SCOPE", ""},
			{"a write-only key", w.annWrite, map[string]any{"name": "x"}, 403, "INSUFFICIENT_SCOPE", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.Post(t, tc.key, "/calendar-feeds", tc.body)
				if tc.mentions != "" {
					wantErr(t, r, tc.status, tc.code, tc.mentions)
				} else {
					apitest.CheckEnvelope(t, r, tc.status, tc.code)
				}
			})
		}
		if got := apitest.Must(t, s.Get(t, w.annRW, "/calendar-feeds"), http.StatusOK).Data(t); len(got) != 0 {
			t.Fatalf("refused creates made feeds: %v", got)
		}
		// The bounds themselves are accepted.
		createFeed(t, s, w.annRW, map[string]any{"name": strings.Repeat("é", 80), "notebookId": nil})
		createFeed(t, s, w.annRW, map[string]any{"name": "a", "notebookId": w.teamNB})
		createFeed(t, s, w.bobRW, map[string]any{"name": "Team", "notebookId": w.teamNB})
	})
}

// TestCalendarFeedLimit: a user has at most 10 feeds, counted over all their credentials, also when
// many are created at once; the 11th is 403 CALENDAR_FEED_LIMIT_REACHED, and deleting one makes
// room again.
func TestCalendarFeedLimit(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		u := s.NewUser(t, "Lena Limit")
		k1, k2 := s.NewKey(t, u, auth.ScopeReadWrite), s.NewKey(t, u, auth.ScopeReadWrite)
		made := race(t, "feed creates", 14, func(i int) int {
			return s.Post(t, []string{k1, k2}[i%2], "/calendar-feeds", map[string]any{"name": "feed"}).Status
		}, http.StatusCreated, http.StatusForbidden)
		if made != 10 {
			t.Fatalf("14 concurrent creates made %d feeds, want 10 (and 4 refused)", made)
		}
		wantErr(t, s.Post(t, k1, "/calendar-feeds", map[string]any{"name": "eleventh"}), http.StatusForbidden, "CALENDAR_FEED_LIMIT_REACHED", "10")
		list := apitest.Must(t, s.Get(t, k1, "/calendar-feeds?limit=100"), http.StatusOK).Data(t)
		if len(list) != 10 {
			t.Fatalf("%d feeds listed, want 10", len(list))
		}
		apitest.Must(t, s.Delete(t, k2, "/calendar-feeds/"+list[0]["id"].(string)), http.StatusOK)
		createFeed(t, s, k1, map[string]any{"name": "room again"})
		// Another user's count is their own.
		other := s.NewUser(t, "Otto Other")
		createFeed(t, s, s.NewKey(t, other, auth.ScopeReadWrite), map[string]any{"name": "mine"})
	})
}

// datedWorld adds to the fixture world items with and without dates, in Ann's personal notebook,
// in the Team workspace (by Ann and by Bob) and in Carl's notebook. ids names them.
type datedWorld struct {
	*world
	ids map[string]string
}

func newDatedWorld(t *testing.T, s *apitest.Server) *datedWorld {
	t.Helper()
	w := &datedWorld{world: newWorld(t, s), ids: map[string]string{}}
	note := func(name, key string, body map[string]any) {
		w.ids[name] = apitest.Must(t, s.Post(t, key, "/notes", body), http.StatusCreated).Str(t, "id")
	}
	task := func(name, key string, body map[string]any) {
		w.ids[name] = apitest.Must(t, s.Post(t, key, "/tasks", body), http.StatusCreated).Str(t, "id")
	}
	note("annNote", w.annRW, map[string]any{"notebookId": w.annNB, "content": "\n## **Quarterly** review with [Bob](https://example.com) #q3\n\nThe second line",
		"followUpAt": "2031-03-01T09:00:00Z", "targetAt": "2031-03-05"})
	task("annTask", w.annRW, map[string]any{"notebookId": w.annNB, "title": "Send the deck", "dueAt": "2031-03-10T17:30:00+01:00",
		"targetAt": "2031-03-08", "followUpAt": "2031-03-02T08:00:00Z"})
	task("annDone", w.annRW, map[string]any{"notebookId": w.annNB, "title": "Done already", "status": "DONE", "dueAt": "2031-03-01",
		"followUpAt": "2031-03-01", "targetAt": "2031-03-01"})
	note("annArchived", w.annRW, map[string]any{"notebookId": w.annNB, "content": "archived", "followUpAt": "2031-03-01"})
	apitest.Must(t, patch(t, s, w.annRW, "/notes/"+w.ids["annArchived"], map[string]any{"archived": true}), http.StatusOK)
	task("annDeleted", w.annRW, map[string]any{"notebookId": w.annNB, "title": "deleted", "dueAt": "2031-03-01"})
	apitest.Must(t, s.Delete(t, w.annRW, "/tasks/"+w.ids["annDeleted"]), http.StatusOK)
	note("annPlain", w.annRW, map[string]any{"notebookId": w.annNB, "content": "no dates at all"})
	task("annPlainTask", w.annRW, map[string]any{"notebookId": w.annNB, "title": "no dates either"})
	note("teamNote", w.annRW, map[string]any{"notebookId": w.teamNB, "content": "Team offsite", "targetAt": "2031-04-01"})
	task("bobTask", w.bobRW, map[string]any{"notebookId": w.teamNB, "title": "Bob's report", "dueAt": "2031-04-02T12:00:00Z"})
	task("carlTask", w.carlRW, map[string]any{"notebookId": w.carlNB, "title": "Carl's secret", "dueAt": "2031-03-03", "followUpAt": "2031-03-03"})
	return w
}

// TestCalendarFeedContent: a feed has exactly one event per follow-up, due date and target date
// of the items its credential can read (a workspace notebook's items for a member too, never
// another user's), none for archived or deleted items or DONE tasks; each with a UID made of the
// item's id and the kind of date, DTSTART in UTC, the task's title or the note's first line
// without its Markdown as SUMMARY, and the item's page as URL. UIDs stay the same across fetches
// and when a date moves; the ETag answers 304 until something in the feed changes.
func TestCalendarFeedContent(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newDatedWorld(t, s)
		id := w.ids
		ann := createFeed(t, s, w.annRW, map[string]any{"name": "Ann's dates"})
		cal, events := parseFeed(t, fetchFeed(t, s, ann["url"].(string), nil))
		if name, _ := cal.Props.Text("X-WR-CALNAME"); name != "Ann's dates" {
			t.Errorf("X-WR-CALNAME %q, want the feed's name", name)
		}
		wantUIDs(t, "Ann's feed", events,
			uid(id["annNote"], "followup"), uid(id["annNote"], "target"),
			uid(id["annTask"], "followup"), uid(id["annTask"], "due"), uid(id["annTask"], "target"),
			uid(id["teamNote"], "target"), uid(id["bobTask"], "due"))
		page := func(kind, name string) string { return s.URL + "/app/" + kind + "/" + id[name] }
		for u, want := range map[string]calEvent{
			uid(id["annNote"], "followup"): {Summary: "Quarterly review with Bob #q3", Start: utc("2031-03-01T09:00:00Z"), URL: page("notes", "annNote")},
			uid(id["annNote"], "target"):   {Summary: "Quarterly review with Bob #q3", Start: utc("2031-03-05T00:00:00Z"), URL: page("notes", "annNote")},
			uid(id["annTask"], "followup"): {Summary: "Send the deck", Start: utc("2031-03-02T08:00:00Z"), URL: page("tasks", "annTask")},
			uid(id["annTask"], "due"):      {Summary: "Send the deck", Start: utc("2031-03-10T16:30:00Z"), URL: page("tasks", "annTask")},
			uid(id["annTask"], "target"):   {Summary: "Send the deck", Start: utc("2031-03-08T00:00:00Z"), URL: page("tasks", "annTask")},
			uid(id["teamNote"], "target"):  {Summary: "Team offsite", Start: utc("2031-04-01T00:00:00Z"), URL: page("notes", "teamNote")},
			uid(id["bobTask"], "due"):      {Summary: "Bob's report", Start: utc("2031-04-02T12:00:00Z"), URL: page("tasks", "bobTask")},
		} {
			got := events[u]
			if got.Summary != want.Summary || !got.Start.Equal(want.Start) || got.URL != want.URL {
				t.Errorf("%s: SUMMARY %q, DTSTART %v, URL %q; want %q, %v, %q", u, got.Summary, got.Start, got.URL, want.Summary, want.Start, want.URL)
			}
			if got.Stamp.IsZero() {
				t.Errorf("%s: no DTSTAMP", u)
			}
		}
		// Bob, a member of Team, sees its items, Ann's included; none of Ann's personal ones.
		bob := createFeed(t, s, w.bobRW, map[string]any{"name": "Bob"})
		_, bobEvents := parseFeed(t, fetchFeed(t, s, bob["url"].(string), nil))
		wantUIDs(t, "Bob's feed", bobEvents, uid(id["teamNote"], "target"), uid(id["bobTask"], "due"))
		// Carl sees his own only.
		carl := createFeed(t, s, w.carlRW, map[string]any{"name": "Carl"})
		_, carlEvents := parseFeed(t, fetchFeed(t, s, carl["url"].(string), nil))
		wantUIDs(t, "Carl's feed", carlEvents, uid(id["carlTask"], "due"), uid(id["carlTask"], "followup"))

		t.Run("stable UIDs, ETag and 304", func(t *testing.T) {
			url := ann["url"].(string)
			first := fetchFeed(t, s, url, nil)
			second := fetchFeed(t, s, url, nil)
			if !bytes.Equal(first.Body, second.Body) || first.Header.Get("ETag") != second.Header.Get("ETag") {
				t.Fatalf("two fetches without a change differ:\n%s\n%s", first.Body, second.Body)
			}
			tag := first.Header.Get("ETag")
			nm := fetchFeed(t, s, url, map[string]string{"If-None-Match": tag})
			if nm.Status != http.StatusNotModified || len(nm.Body) != 0 || nm.Header.Get("ETag") != tag {
				t.Fatalf("If-None-Match with the current ETag: %d %q (ETag %q)", nm.Status, nm.Body, nm.Header.Get("ETag"))
			}
			head := s.Do(t, apitest.Request{Method: http.MethodHead, Path: strings.TrimPrefix(url, httpx.APIBase)})
			if head.Status != http.StatusOK || head.Header.Get("ETag") != tag {
				t.Fatalf("HEAD: %d, ETag %q", head.Status, head.Header.Get("ETag"))
			}
			// A re-armed follow-up keeps its UID and moves; the ETag changes.
			apitest.Must(t, patch(t, s, w.annRW, "/tasks/"+id["annTask"], map[string]any{"followUpAt": "2031-05-01T10:00:00Z"}), http.StatusOK)
			moved := fetchFeed(t, s, url, map[string]string{"If-None-Match": tag})
			_, after := parseFeed(t, moved)
			if moved.Header.Get("ETag") == tag {
				t.Fatal("the ETag did not change with the follow-up")
			}
			wantUIDs(t, "after the follow-up moved", after, slices.Collect(maps.Keys(events))...)
			if got := after[uid(id["annTask"], "followup")].Start; !got.Equal(utc("2031-05-01T10:00:00Z")) {
				t.Fatalf("the moved follow-up starts at %v", got)
			}
			// Done, archived or cleared, an item's events leave the feed.
			apitest.Must(t, patch(t, s, w.annRW, "/tasks/"+id["annTask"], map[string]any{"status": "DONE"}), http.StatusOK)
			apitest.Must(t, patch(t, s, w.annRW, "/notes/"+id["annNote"], map[string]any{"followUpAt": nil}), http.StatusOK)
			apitest.Must(t, patch(t, s, w.bobRW, "/tasks/"+id["bobTask"], map[string]any{"archived": true}), http.StatusOK)
			_, now := parseFeed(t, fetchFeed(t, s, url, nil))
			wantUIDs(t, "after done, cleared and archived", now, uid(id["annNote"], "target"), uid(id["teamNote"], "target"))
		})
	})
}

// TestCalendarFeedNotebook: a feed restricted to a notebook shows that notebook's items only, and
// dies (404) when its credential can no longer read the notebook: a member's feed of a workspace
// notebook after the member leaves the workspace.
func TestCalendarFeedNotebook(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newDatedWorld(t, s)
		id := w.ids
		team := createFeed(t, s, w.annRW, map[string]any{"name": "Team only", "notebookId": w.teamNB})
		if team["notebookId"] != w.teamNB {
			t.Fatalf("notebookId %v", team["notebookId"])
		}
		_, events := parseFeed(t, fetchFeed(t, s, team["url"].(string), nil))
		wantUIDs(t, "Ann's Team feed", events, uid(id["teamNote"], "target"), uid(id["bobTask"], "due"))
		personal := createFeed(t, s, w.annPersonalNB, map[string]any{"name": "Mine", "notebookId": w.annNB})
		_, events = parseFeed(t, fetchFeed(t, s, personal["url"].(string), nil))
		wantUIDs(t, "Ann's personal feed", events, uid(id["annNote"], "followup"), uid(id["annNote"], "target"),
			uid(id["annTask"], "followup"), uid(id["annTask"], "due"), uid(id["annTask"], "target"))

		bobs := createFeed(t, s, w.bobRW, map[string]any{"name": "Team", "notebookId": w.teamNB})
		bobsAll := createFeed(t, s, w.bobRW, map[string]any{"name": "All"})
		parseFeed(t, fetchFeed(t, s, bobs["url"].(string), nil))
		apitest.Must(t, s.Delete(t, w.annRW, "/workspaces/"+w.team+"/members/"+w.bob.ID), http.StatusOK)
		feedGone(t, s, bobs["url"].(string), "a member's feed of a workspace notebook after the member left")
		// His unrestricted key still reads his own (now nothing), so that feed lives, empty.
		_, events = parseFeed(t, fetchFeed(t, s, bobsAll["url"].(string), nil))
		wantUIDs(t, "Bob's feed after he left", events)
		listed := apitest.Must(t, s.Get(t, w.bobRW, "/calendar-feeds"), http.StatusOK).Data(t)
		for _, f := range listed {
			want := "active"
			if f["id"] == bobs["id"] {
				want = "disabled"
				if f["disabledReason"] != "ACCESS_LOST" {
					t.Errorf("the dead feed's disabledReason %v, want ACCESS_LOST", f["disabledReason"])
				}
			}
			if f["status"] != want {
				t.Errorf("feed %v: status %v, want %s", f["name"], f["status"], want)
			}
		}
	})
}

// TestCalendarFeedFollowsItsCredential (CONTRACT.md section 20): a feed belongs to the credential
// that created it and is resolved at every fetch: a revoked or expired key's feed, a session's feed
// after sign-out, a workspace key's feed after its user left the workspace answer 404 like an
// unknown token (and the list says why); a rotation moves the feed to the new key, where it keeps
// working until that key is revoked in turn.
func TestCalendarFeedFollowsItsCredential(t *testing.T) {
	t.Parallel()
	start := time.Date(2031, 2, 1, 9, 0, 0, 0, time.UTC)
	apitest.ForEachDBWithClock(t, start, func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		w := newDatedWorld(t, s)
		pastCache := func() { pastKeyCache(s, fake) }
		revoke := func(t *testing.T, raw string) { revokeKey(t, s, fake, raw) }
		status := func(t *testing.T, key, feedID, want, reason string) {
			t.Helper()
			for _, f := range apitest.Must(t, s.Get(t, key, "/calendar-feeds"), http.StatusOK).Data(t) {
				if f["id"] == feedID {
					got, _ := f["disabledReason"].(string)
					if f["status"] != want || got != reason {
						t.Fatalf("feed %s listed %v / %v, want %s / %q", feedID, f["status"], f["disabledReason"], want, reason)
					}
					return
				}
			}
			t.Fatalf("feed %s is not listed", feedID)
		}

		t.Run("revoked", func(t *testing.T) {
			k := s.NewKey(t, w.ann, auth.ScopeReadWrite)
			f := createFeed(t, s, k, map[string]any{"name": "doomed"})
			parseFeed(t, fetchFeed(t, s, f["url"].(string), nil))
			revoke(t, k)
			feedGone(t, s, f["url"].(string), "a revoked key's feed")
			status(t, w.annRW, f["id"].(string), "disabled", "KEY_REVOKED")
		})

		t.Run("expired", func(t *testing.T) {
			expires := fake.Now().Add(time.Hour)
			raw, _, err := s.Accounts.CreateKey(t.Context(), accounts.NewKey{UserID: w.ann.ID, Name: "expiring", Scope: auth.ScopeReadWrite, ExpiresAt: &expires})
			if err != nil {
				t.Fatal(err)
			}
			f := createFeed(t, s, raw, map[string]any{"name": "expiring"})
			parseFeed(t, fetchFeed(t, s, f["url"].(string), nil))
			fake.Set(expires)
			pastCache()
			feedGone(t, s, f["url"].(string), "an expired key's feed")
			status(t, w.annRW, f["id"].(string), "disabled", "KEY_EXPIRED")
		})

		t.Run("rotated", func(t *testing.T) {
			k := s.NewKey(t, w.ann, auth.ScopeReadWrite, apitest.KeyOpts{Workspace: w.team})
			f := createFeed(t, s, k, map[string]any{"name": "rotating"})
			_, before := parseFeed(t, fetchFeed(t, s, f["url"].(string), nil))
			next, key, err := s.Accounts.RotateKey(t.Context(), apitest.KeyPrefix(t, k))
			if err != nil {
				t.Fatal(err)
			}
			pastCache()
			apitest.CheckEnvelope(t, s.Get(t, k, "/notebooks"), http.StatusUnauthorized, "UNAUTHENTICATED")
			_, after := parseFeed(t, fetchFeed(t, s, f["url"].(string), nil))
			wantUIDs(t, "after the rotation", after, slices.Collect(maps.Keys(before))...)
			status(t, w.annRW, f["id"].(string), "active", "")
			// The new key manages it (its restriction is the old key's), and the list names it.
			listed := apitest.Must(t, s.Get(t, next, "/calendar-feeds"), http.StatusOK).Data(t)
			if len(listed) != 1 || listed[0]["id"] != f["id"] || listed[0]["apiKeyPrefix"] != "svc_live_"+key.Prefix {
				t.Fatalf("the new key lists %v", listed)
			}
			revoke(t, next)
			feedGone(t, s, f["url"].(string), "a rotated key's feed after the new key was revoked")
		})

		t.Run("signed out", func(t *testing.T) {
			si := s.OpenSession(t, w.ann)
			r := s.Do(t, apitest.Request{Method: http.MethodPost, Path: "/calendar-feeds", Body: map[string]any{"name": "web"},
				Header: apitest.SessionHeader(si.Token, si.CSRFToken)})
			f := apitest.Must(t, r, http.StatusCreated).JSON(t)
			if f["apiKeyName"] != nil || f["apiKeyPrefix"] != nil {
				t.Fatalf("a session's feed names a key: %v", f)
			}
			parseFeed(t, fetchFeed(t, s, f["url"].(string), nil))
			if err := s.Accounts.SignOut(t.Context(), si.Token); err != nil {
				t.Fatal(err)
			}
			pastCache()
			feedGone(t, s, f["url"].(string), "a session's feed after sign-out")
			status(t, w.annRW, f["id"].(string), "disabled", "KEY_REVOKED")
		})

		t.Run("member left", func(t *testing.T) {
			dora := s.NewUser(t, "Dora Member")
			apitest.Must(t, s.Post(t, w.annRW, "/workspaces/"+w.team+"/members", map[string]any{"email": dora.Email}), http.StatusCreated)
			k := s.NewKey(t, dora, auth.ScopeReadWrite, apitest.KeyOpts{Workspace: w.team})
			f := createFeed(t, s, k, map[string]any{"name": "team"})
			_, events := parseFeed(t, fetchFeed(t, s, f["url"].(string), nil))
			if _, ok := events[uid(w.ids["teamNote"], "target")]; !ok {
				t.Fatalf("a member's workspace key's feed lacks the Team note: %v", events)
			}
			apitest.Must(t, s.Delete(t, w.annRW, "/workspaces/"+w.team+"/members/"+dora.ID), http.StatusOK)
			pastCache()
			feedGone(t, s, f["url"].(string), "a workspace key's feed after its user left the workspace")
			status(t, s.NewKey(t, dora, auth.ScopeReadWrite), f["id"].(string), "disabled", "ACCESS_LOST")
		})
	})
}

// TestCalendarFeedEscaping: a task title with commas, semicolons, backslashes, a newline and
// non-ASCII text, long enough to be folded several times, comes back through go-ical as it was
// sent; no folded line splits a character (parseFeed checks the lines).
func TestCalendarFeedEscaping(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key, nb := ownWorld(t, s)
		title := "Plan: budget, hiring; review \\ sign-off\nsecond line — " + strings.Repeat("çé日本語 ", 40)
		task := apitest.Must(t, s.Post(t, key, "/tasks", map[string]any{"notebookId": nb, "title": title, "dueAt": "2031-01-01"}), http.StatusCreated).Str(t, "id")
		f := createFeed(t, s, key, map[string]any{"name": "Escapes, ; \\ and all"})
		r := fetchFeed(t, s, f["url"].(string), nil)
		cal, events := parseFeed(t, r)
		if got := events[uid(task, "due")].Summary; got != title {
			t.Fatalf("SUMMARY came back as\n%q\nwant\n%q", got, title)
		}
		if name, _ := cal.Props.Text("X-WR-CALNAME"); name != "Escapes, ; \\ and all" {
			t.Fatalf("X-WR-CALNAME came back as %q", name)
		}
		if !bytes.Contains(r.Body, []byte("\r\n ")) {
			t.Fatal("a 500-character title was not folded")
		}
	})
}

// TestCalendarFeedMatrix is the access matrix of calendar feeds: every principal of the fixture
// world makes a feed, and each feed must show exactly the dated items that principal can read
// (Ann's unrestricted key her personal items and Team's, the Team key and the Team notebook key
// Team's, the personal notebook key Ann's personal ones, Bob Team's, Carl his own); principals that
// may not make one get the same refusals as any write. The feed's address then answers every
// principal alike: the token is the credential, and an Authorization header is ignored.
func TestCalendarFeedMatrix(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newDatedWorld(t, s)
		id := w.ids
		keys := matrixKeys(w.world)
		personal := []string{uid(id["annNote"], "followup"), uid(id["annNote"], "target"),
			uid(id["annTask"], "followup"), uid(id["annTask"], "due"), uid(id["annTask"], "target")}
		team := []string{uid(id["teamNote"], "target"), uid(id["bobTask"], "due")}
		shows := map[string][]string{
			"rw": append(slices.Clone(personal), team...), "ws": team, "nbTeam": team, "nbPersonal": personal,
			"bob": team, "carl": {uid(id["carlTask"], "due"), uid(id["carlTask"], "followup")},
		}
		annFeed := createFeed(t, s, w.annRW, map[string]any{"name": "Ann"})
		everyone := map[string]string{}
		for _, col := range matrixPrincipals {
			everyone[col] = ok
		}
		runMatrix(t, s, w.world, []matrixRow{
			{name: "create a feed and read it", method: "POST", req: func(t *testing.T) matrixReq {
				return matrixReq{path: "/calendar-feeds", body: map[string]any{"name": "matrix"}, afterCol: func(t *testing.T, col string, r apitest.Response) {
					_, events := parseFeed(t, fetchFeed(t, s, r.Str(t, "url"), nil))
					got := slices.Sorted(maps.Keys(events))
					want := slices.Sorted(slices.Values(shows[col]))
					if !slices.Equal(got, want) {
						t.Errorf("%s: the feed shows %v, want %v", col, got, want)
					}
					apitest.Must(t, s.Delete(t, keys[col], "/calendar-feeds/"+r.Str(t, "id")), http.StatusOK)
				}}
			}, want: map[string]string{"read": scope, "write": scope, "rw": created, "ws": created, "wsRead": scope, "nbTeam": created, "nbPersonal": created, "carl": created, "bob": created}},
			{name: "Ann's feed, whoever asks", method: "GET", req: func(t *testing.T) matrixReq {
				return matrixReq{path: strings.TrimPrefix(annFeed["url"].(string), httpx.APIBase), afterCol: func(t *testing.T, col string, r apitest.Response) {
					_, events := parseFeed(t, r)
					got := slices.Sorted(maps.Keys(events))
					if want := slices.Sorted(slices.Values(shows["rw"])); !slices.Equal(got, want) {
						t.Errorf("%s: Ann's feed shows %v, want %v", col, got, want)
					}
				}}
			}, want: everyone},
		})
	})
}

// TestCalendarFeedRateLimits: an address that names no live feed counts as a failed
// authentication of the client's address (429 over FOLIO_AUTH_FAILURE_LIMIT, as for wrong keys),
// while a live feed still answers that address; a served feed counts against its user's rate
// limit, shared with the user's keys, and says so in the rate-limit headers.
func TestCalendarFeedRateLimits(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key, _ := ownWorld(t, s) // 1 request of the user's 6
		url := createFeed(t, s, key, map[string]any{"name": "limited"})["url"].(string)
		unknown := feedURLPrefix + "AAAAAAAAAAAAAAAAAAAAAAAAAA.ics"
		for range 3 {
			feedGone(t, s, unknown, "an unknown token within the address's budget")
		}
		over := fetchFeed(t, s, unknown, nil)
		apitest.CheckEnvelope(t, over, http.StatusTooManyRequests, "RATE_LIMIT_EXCEEDED")
		if over.Header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
		r := fetchFeed(t, s, url, nil) // the user's 3rd
		parseFeed(t, r)
		if got := r.Header.Get("X-RateLimit-Remaining"); got != "3" {
			t.Fatalf("X-RateLimit-Remaining %q after 3 of the user's 6 requests", got)
		}
		apitest.Must(t, s.Get(t, key, "/calendar-feeds"), http.StatusOK) // 4th, with the key
		parseFeed(t, fetchFeed(t, s, url, nil))                          // 5th
		parseFeed(t, fetchFeed(t, s, url, nil))                          // 6th
		apitest.CheckEnvelope(t, fetchFeed(t, s, url, nil), http.StatusTooManyRequests, "RATE_LIMIT_EXCEEDED")
		apitest.CheckEnvelope(t, s.Get(t, key, "/calendar-feeds"), http.StatusTooManyRequests, "RATE_LIMIT_EXCEEDED")
	}, apitest.RateLimit(6), apitest.AuthFailureLimit(3))
}
