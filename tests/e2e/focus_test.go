package e2e

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"folio/platform/clock"
	"folio/platform/db"
	"folio/tests/apitest"
)

// The Focus view, GET /focus (CONTRACT.md section 21): the three lists of a day in a time zone,
// their order, what they leave out, the cap of 100 with its More flags, what each principal sees,
// the validation of date and tz, and the defaults (today by the server's clock, UTC).

// focusLists are the answer's lists, in the answer's order.
var focusLists = []string{"targeted", "followUps", "due"}

// focusItems makes notes and tasks for the Focus tests: each is recognised by its label (a note's
// content, a task's title).
type focusItems struct {
	t   *testing.T
	s   *apitest.Server
	key string
	nb  string
}

// note creates a note labelled label with the fields given (targetAt, followUpAt) and returns its id.
func (f focusItems) note(label string, fields map[string]any) string {
	f.t.Helper()
	return f.create("/notes", "content", label, fields)
}

// task creates a task titled label with the fields given (dates, status) and returns its id.
func (f focusItems) task(label string, fields map[string]any) string {
	f.t.Helper()
	return f.create("/tasks", "title", label, fields)
}

// create posts an item whose labelField is label, in the notebook, with the fields given.
func (f focusItems) create(path, labelField, label string, fields map[string]any) string {
	f.t.Helper()
	body := map[string]any{labelField: label, "notebookId": f.nb}
	for k, v := range fields {
		body[k] = v
	}
	return apitest.Must(f.t, f.s.Post(f.t, f.key, path, body), http.StatusCreated).Str(f.t, "id")
}

// focus is GET /focus with the query given ("" for none), which must succeed.
func focus(t *testing.T, s *apitest.Server, key, query string) map[string]any {
	t.Helper()
	return apitest.Must(t, s.Get(t, key, withQuery("/focus", query)), http.StatusOK).JSON(t)
}

// focusLabels is a list of a Focus answer as the labels of its items, in order.
func focusLabels(t *testing.T, answer map[string]any, list string) []string {
	t.Helper()
	raw, ok := answer[list].([]any)
	if !ok {
		t.Fatalf("%s is not a list: %v", list, answer[list])
	}
	out := make([]string, len(raw))
	for i, e := range raw {
		entry := e.(map[string]any)
		item := entry["item"].(map[string]any)
		switch entry["kind"] {
		case "note":
			out[i] = item["content"].(string)
		case "task":
			out[i] = item["title"].(string)
		default:
			t.Fatalf("%s[%d] has kind %v", list, i, entry["kind"])
		}
	}
	return out
}

// wantFocus checks the three lists of a Focus answer (labels in order) and that none was cut.
func wantFocus(t *testing.T, answer map[string]any, targeted, followUps, due []string) {
	t.Helper()
	for i, want := range [][]string{targeted, followUps, due} {
		list := focusLists[i]
		if got := focusLabels(t, answer, list); !slices.Equal(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Errorf("%s %s: %s %v, want %v", answer["date"], answer["tz"], list, got, want)
		}
		if answer[list+"More"] != false {
			t.Errorf("%s %s: %sMore is %v, want false", answer["date"], answer["tz"], list, answer[list+"More"])
		}
	}
}

// TestFocusLists: on a day in a time zone, targeted holds the items whose targetAt falls on that
// local day, by targetAt; followUps the items whose followUpAt is before the day's end, however
// old, oldest first; due the tasks whose dueAt is before the day's end, oldest first. Notes and
// tasks share the lists; archived, DONE and deleted items are in none; each item is the note or
// task as the API returns it (a note without pendingSuggestion).
func TestFocusLists(t *testing.T) {
	t.Parallel()
	apitest.ForEachDBWithClock(t, time.Date(2025, 3, 20, 12, 0, 0, 0, time.UTC), func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		key, nb := ownWorld(t, s)
		f := focusItems{t, s, key, nb}
		f.note("n-target-before", map[string]any{"targetAt": "2025-03-09T23:59:59.999Z"}) // 00:59 on the 10th in Berlin
		f.task("t-target-0800", map[string]any{"targetAt": "2025-03-10T08:00:00Z"})
		noteID := f.note("n-target-0900 #focus", map[string]any{"targetAt": "2025-03-10T09:00:00+00:00"})
		f.note("n-target-late", map[string]any{"targetAt": "2025-03-10T23:30:00Z"}) // 00:30 on the 11th in Berlin
		f.task("t-target-next", map[string]any{"targetAt": "2025-03-11"})
		f.note("n-follow-old", map[string]any{"followUpAt": "2024-12-01"})
		taskID := f.task("t-follow-0700", map[string]any{"followUpAt": "2025-03-10T07:00:00Z", "notes": "ask @dana", "priority": "HIGH"})
		f.note("n-follow-next", map[string]any{"followUpAt": "2025-03-11T00:00:00Z"})
		f.task("t-due-old", map[string]any{"dueAt": "2025-02-01", "status": "BLOCKED"})
		f.task("t-due-2359", map[string]any{"dueAt": "2025-03-10T23:59:00Z", "status": "IN_PROGRESS"})
		f.task("t-due-next", map[string]any{"dueAt": "2025-03-11T00:00:00Z"})
		// In no list: archived, DONE, deleted (each with every date on the day).
		every := map[string]any{"targetAt": "2025-03-10T10:00:00Z", "followUpAt": "2025-03-01", "dueAt": "2025-03-01"}
		archivedNote := f.note("n-archived", map[string]any{"targetAt": every["targetAt"], "followUpAt": every["followUpAt"]})
		apitest.Must(t, patch(t, s, key, "/notes/"+archivedNote, map[string]any{"archived": true}), http.StatusOK)
		archivedTask := f.task("t-archived", every)
		apitest.Must(t, patch(t, s, key, "/tasks/"+archivedTask, map[string]any{"archived": true}), http.StatusOK)
		f.task("t-done", map[string]any{"targetAt": every["targetAt"], "followUpAt": every["followUpAt"], "dueAt": every["dueAt"], "status": "DONE"})
		doneLater := f.task("t-done-later", every)
		apitest.Must(t, patch(t, s, key, "/tasks/"+doneLater, map[string]any{"status": "DONE"}), http.StatusOK)
		apitest.Must(t, s.Delete(t, key, "/notes/"+f.note("n-deleted", map[string]any{"targetAt": every["targetAt"], "followUpAt": every["followUpAt"]})), http.StatusOK)
		apitest.Must(t, s.Delete(t, key, "/tasks/"+f.task("t-deleted", every)), http.StatusOK)
		// A note with a pending suggestion: the Focus view shows it as GET /notes lists it.
		apitest.Must(t, suggest(t, s, key, "note", noteID, "n-target-0900 #focus, proposed"), http.StatusCreated)

		utc := focus(t, s, key, "date=2025-03-10&tz=UTC")
		wantFields(t, utc, "date", "due", "dueMore", "followUps", "followUpsMore", "targeted", "targetedMore", "tz")
		if utc["date"] != "2025-03-10" || utc["tz"] != "UTC" {
			t.Fatalf("date %v, tz %v", utc["date"], utc["tz"])
		}
		wantFocus(t, utc, []string{"t-target-0800", "n-target-0900 #focus", "n-target-late"},
			[]string{"n-follow-old", "t-follow-0700"}, []string{"t-due-old", "t-due-2359"})
		// The body keeps the answer's order: date, tz, then each list with its flag.
		if body := string(s.Get(t, key, "/focus?date=2025-03-10").Body); !strings.HasPrefix(body, `{"date":"2025-03-10","tz":"UTC","targeted":[{"kind":"task","item":{`) ||
			!strings.Contains(body, `],"targetedMore":false,"followUps":[`) || !strings.HasSuffix(body, `],"dueMore":false}`) {
			t.Errorf("body %s", body)
		}

		// Berlin is an hour ahead in March (CET): 2025-03-10 there is [09T23:00Z, 10T23:00Z).
		wantFocus(t, focus(t, s, key, "date=2025-03-10&tz=Europe/Berlin"), []string{"n-target-before", "t-target-0800", "n-target-0900 #focus"},
			[]string{"n-follow-old", "t-follow-0700"}, []string{"t-due-old"})
		wantFocus(t, focus(t, s, key, "date=2025-03-11&tz=Europe/Berlin"), []string{"n-target-late", "t-target-next"},
			[]string{"n-follow-old", "t-follow-0700", "n-follow-next"}, []string{"t-due-old", "t-due-2359", "t-due-next"})
		// New York is behind: its 2025-03-09 ends at 10T04:00Z (EDT began that day).
		wantFocus(t, focus(t, s, key, "date=2025-03-09&tz=America/New_York"), []string{"n-target-before"},
			[]string{"n-follow-old"}, []string{"t-due-old"})
		wantFocus(t, focus(t, s, key, "date=2024-11-30&tz=UTC"), nil, nil, nil)

		// Each item is the note or task as the API returns it: a note as GET /notes lists it
		// (no pendingSuggestion), a task as GET /tasks/:id.
		entries := func(list string) map[string]any {
			out := map[string]any{}
			for _, e := range utc[list].([]any) {
				item := e.(map[string]any)["item"].(map[string]any)
				out[item["id"].(string)] = item
			}
			return out
		}
		var listed map[string]any
		for _, n := range apitest.Must(t, s.Get(t, key, "/notes?targetFrom=2025-03-10&targetTo=2025-03-10"), http.StatusOK).Data(t) {
			if n["id"] == noteID {
				listed = n
			}
		}
		if got := entries("targeted")[noteID]; listed == nil || !reflect.DeepEqual(got, any(listed)) {
			t.Errorf("the note in targeted %v, GET /notes lists %v", got, listed)
		}
		if got, want := entries("followUps")[taskID], jsonOf(t, s.Get(t, key, "/tasks/"+taskID)); !reflect.DeepEqual(got, want) {
			t.Errorf("the task in followUps %v, GET /tasks/:id %v", got, want)
		}
	})
}

// TestFocusDaylightSaving: a local day is 23 or 25 hours long on the days the clocks change,
// including where midnight itself is skipped or repeated: a naive "midnight of the date" lands
// an hour early, in the day before, where Havana skips it, and on the second midnight where
// Jerusalem repeated it.
func TestFocusDaylightSaving(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key, nb := ownWorld(t, s)
		f := focusItems{t, s, key, nb}
		for _, at := range []string{
			// Berlin: 2025-03-30 is [29T23:00Z, 30T22:00Z), 23 hours; 2025-10-26 is [25T22:00Z, 26T23:00Z), 25 hours.
			"2025-03-29T22:59:59.999Z", "2025-03-29T23:00:00.000Z", "2025-03-30T21:59:59.999Z", "2025-03-30T22:00:00.000Z",
			"2025-10-25T21:59:59.999Z", "2025-10-25T22:00:00.000Z", "2025-10-26T22:59:59.999Z", "2025-10-26T23:00:00.000Z",
			// Havana: 2024-03-10 starts at 01:00 CDT (05:00Z), 23 hours; 2024-11-03 starts at the first 00:00 (04:00Z), 25 hours.
			"2024-03-10T04:30:00.000Z", "2024-03-10T05:00:00.000Z", "2024-03-11T03:59:59.999Z", "2024-03-11T04:00:00.000Z",
			"2024-11-03T03:59:59.999Z", "2024-11-03T04:30:00.000Z", "2024-11-04T04:59:59.999Z", "2024-11-04T05:00:00.000Z",
			// Jerusalem: 2004-09-22 starts at the first 00:00 (IDT, 21T21:00Z), where a naive
			// midnight is the second (IST, 21T22:00Z); 25 hours.
			"2004-09-21T20:59:59.999Z", "2004-09-21T21:30:00.000Z", "2004-09-22T21:59:59.999Z", "2004-09-22T22:00:00.000Z",
		} {
			f.note(at, map[string]any{"targetAt": at})
		}
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"date=2025-03-30&tz=Europe/Berlin", []string{"2025-03-29T23:00:00.000Z", "2025-03-30T21:59:59.999Z"}},
			{"date=2025-10-26&tz=Europe/Berlin", []string{"2025-10-25T22:00:00.000Z", "2025-10-26T22:59:59.999Z"}},
			{"date=2024-03-10&tz=America/Havana", []string{"2024-03-10T05:00:00.000Z", "2024-03-11T03:59:59.999Z"}},
			{"date=2024-03-09&tz=America/Havana", []string{"2024-03-10T04:30:00.000Z"}},
			{"date=2024-11-03&tz=America/Havana", []string{"2024-11-03T04:30:00.000Z", "2024-11-04T04:59:59.999Z"}},
			{"date=2004-09-22&tz=Asia/Jerusalem", []string{"2004-09-21T21:30:00.000Z", "2004-09-22T21:59:59.999Z"}},
		} {
			answer := focus(t, s, key, tc.query)
			if got := focusLabels(t, answer, "targeted"); !slices.Equal(got, tc.want) {
				t.Errorf("%s: targeted %v, want %v", tc.query, got, tc.want)
			}
		}
	})
}

// TestFocusOrderAndCap: each list is ordered by its own date, ties by id, notes and tasks merged;
// it holds at most 100 items, and its More flag says whether more were left out (exactly 100 is
// not cut).
func TestFocusOrderAndCap(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key, nb := ownWorld(t, s)
		f := focusItems{t, s, key, nb}
		day := time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC)
		// 105 items on the day, a note then a task, a minute apart; the due list's order is the
		// reverse (each task's dueAt counts down), to show that every list sorts by its own date.
		var want, wantDue []string
		var archive []string
		for i := range 105 {
			at := day.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
			label := fmt.Sprintf("item %03d", i)
			if i%2 == 0 {
				id := f.note(label, map[string]any{"targetAt": at, "followUpAt": at})
				if i < 10 {
					archive = append(archive, "/notes/"+id)
				}
			} else {
				due := day.Add(time.Duration(200-i) * time.Minute).Format(time.RFC3339)
				id := f.task(label, map[string]any{"targetAt": at, "followUpAt": at, "dueAt": due})
				if i < 10 {
					archive = append(archive, "/tasks/"+id)
				}
				wantDue = append([]string{label}, wantDue...)
			}
			want = append(want, label)
		}
		// Ties are ordered by id: three more at the first minute.
		for i := range 3 {
			label := fmt.Sprintf("tie %d", i)
			if i == 1 {
				f.task(label, map[string]any{"targetAt": day.Format(time.RFC3339)})
			} else {
				f.note(label, map[string]any{"targetAt": day.Format(time.RFC3339)})
			}
		}
		answer := focus(t, s, key, "date=2025-06-02")
		targeted := focusLabels(t, answer, "targeted")
		if len(targeted) != 100 || answer["targetedMore"] != true {
			t.Fatalf("targeted has %d items, targetedMore %v; want 100 and true", len(targeted), answer["targetedMore"])
		}
		// The four at 00:00 come first, ordered by id; then the others by their minute.
		ids := map[string]string{}
		for _, e := range answer["targeted"].([]any) {
			item := e.(map[string]any)["item"].(map[string]any)
			label, _ := item["content"].(string)
			if label == "" {
				label = item["title"].(string)
			}
			ids[label] = item["id"].(string)
		}
		head := targeted[:4]
		if !slices.IsSortedFunc(head, func(a, b string) int { return strings.Compare(ids[a], ids[b]) }) ||
			!slices.Equal(slices.Sorted(slices.Values(head)), []string{"item 000", "tie 0", "tie 1", "tie 2"}) {
			t.Errorf("the four items at 00:00 are %v, not in id order", head)
		}
		if got := targeted[4:]; !slices.Equal(got, want[1:97]) {
			t.Errorf("targeted after the ties %v, want %v", got, want[1:97])
		}
		followUps := focusLabels(t, answer, "followUps")
		if !slices.Equal(followUps, want[:100]) || answer["followUpsMore"] != true {
			t.Errorf("followUps %v (more %v), want the first 100 of %v and true", followUps, answer["followUpsMore"], want)
		}
		if due := focusLabels(t, answer, "due"); !slices.Equal(due, wantDue) || answer["dueMore"] != false {
			t.Errorf("due %v (more %v), want %v and false", due, answer["dueMore"], wantDue)
		}

		// Archive the first ten items: 95 follow-ups are left, none cut; 98 targeted, and two more
		// make exactly 100, not cut either.
		for _, path := range archive {
			apitest.Must(t, patch(t, s, key, path, map[string]any{"archived": true}), http.StatusOK)
		}
		answer = focus(t, s, key, "date=2025-06-02")
		if n := len(focusLabels(t, answer, "followUps")); n != 95 || answer["followUpsMore"] != false {
			t.Errorf("followUps has %d items, more %v; want 95 and false", n, answer["followUpsMore"])
		}
		for i, extra := range []string{"extra 1", "extra 2"} {
			f.note(extra, map[string]any{"targetAt": day.Add(23*time.Hour + time.Duration(i)*time.Minute).Format(time.RFC3339)})
		}
		answer = focus(t, s, key, "date=2025-06-02")
		if got := focusLabels(t, answer, "targeted"); len(got) != 100 || answer["targetedMore"] != false || got[99] != "extra 2" {
			t.Errorf("targeted has %d items (last %q), more %v; want exactly 100, the last extra 2, and false", len(got), got[len(got)-1], answer["targetedMore"])
		}
	})
}

// TestFocusRestriction: a principal's Focus view holds exactly the items it can list with GET
// /notes and GET /tasks: a notebook-scoped key its notebook's, a workspace-scoped key its
// workspace's, a member the workspace's items (whoever made them), and nobody another user's.
func TestFocusRestriction(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		const day = "2025-05-05T10:00:00Z"
		for _, it := range []struct{ key, nb, label string }{
			{w.annRW, w.annNB, "ann personal"}, {w.annRW, w.teamNB, "ann in team"}, {w.bobRW, w.teamNB, "bob in team"}, {w.carlRW, w.carlNB, "carl personal"},
		} {
			f := focusItems{t, s, it.key, it.nb}
			f.note(it.label+" note", map[string]any{"targetAt": day, "followUpAt": day})
			f.task(it.label+" task", map[string]any{"targetAt": day, "followUpAt": day, "dueAt": day})
		}
		want := map[string][]string{
			"rw": {"ann personal", "ann in team", "bob in team"}, "read": {"ann personal", "ann in team", "bob in team"},
			"ws": {"ann in team", "bob in team"}, "wsRead": {"ann in team", "bob in team"}, "nbTeam": {"ann in team", "bob in team"},
			"nbPersonal": {"ann personal"}, "bob": {"ann in team", "bob in team"}, "carl": {"carl personal"},
		}
		keys := matrixKeys(w)
		for col, owners := range want {
			t.Run(col, func(t *testing.T) {
				answer := focus(t, s, keys[col], "date=2025-05-05")
				for _, list := range focusLists {
					got := slices.Sorted(slices.Values(focusLabels(t, answer, list)))
					var expect []string
					for _, o := range owners {
						if list != "due" {
							expect = append(expect, o+" note")
						}
						expect = append(expect, o+" task")
					}
					slices.Sort(expect)
					if !slices.Equal(got, expect) {
						t.Errorf("%s: %v, want %v", list, got, expect)
					}
				}
				// The same items as the lists of the API show it.
				var listed []string
				for _, kind := range []string{"notes", "tasks"} {
					for _, item := range apitest.Must(t, s.Get(t, keys[col], "/"+kind+"?targetFrom=2025-05-05&targetTo=2025-05-05"), http.StatusOK).Data(t) {
						listed = append(listed, item["id"].(string))
					}
				}
				var shown []string
				for _, e := range answer["targeted"].([]any) {
					shown = append(shown, e.(map[string]any)["item"].(map[string]any)["id"].(string))
				}
				if slices.Sort(listed); !slices.Equal(slices.Sorted(slices.Values(shown)), listed) {
					t.Errorf("targeted %v, the lists %v", shown, listed)
				}
			})
		}
	})
}

// TestFocusValidation: a date that is not YYYY-MM-DD (a real day) and a tz that is not an IANA
// zone name are 400 VALIDATION_ERROR naming the parameter; given empty, each is an error too.
func TestFocusValidation(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key, nb := ownWorld(t, s)
		for _, tc := range []struct{ query, param string }{
			{"date=2025-02-29", "date"},
			{"date=2025-13-01", "date"},
			{"date=2025-1-05", "date"},
			{"date=20250105", "date"},
			{"date=2025-01-05T00:00:00Z", "date"},
			{"date=tomorrow", "date"},
			{"date=", "date"},
			{"tz=Mars/Olympus_Mons", "tz"},
			{"tz=europe/berlin", "tz"},
			{"tz=Local", "tz"},
			{"tz=", "tz"},
			{"tz=../../etc/passwd", "tz"},
			{"tz=Europe", "tz"},
			{"tz=%2B01:00", "tz"},
			{"date=2025-01-05&tz=Nowhere", "tz"},
		} {
			r := s.Get(t, key, "/focus?"+tc.query)
			wantErr(t, r, http.StatusBadRequest, "VALIDATION_ERROR", `"`+tc.param+`"`)
		}
		// Valid zones: canonical names, links and the fixed ones.
		for _, tz := range []string{"UTC", "Etc/GMT%2B5", "Asia/Kolkata", "US/Pacific", "Australia/Lord_Howe"} {
			apitest.Must(t, s.Get(t, key, "/focus?date=2025-01-05&tz="+tz), http.StatusOK)
		}
		// The last and first days, whose local day reaches past the years 0000 to 9999 in UTC
		// (where every stored date lies): cut there, and an item on the edge is still listed.
		f := focusItems{t, s, key, nb}
		f.note("last instant", map[string]any{"targetAt": "9999-12-31T23:59:59.999Z"})
		for _, q := range []string{"date=9999-12-31&tz=America/New_York", "date=9999-12-31&tz=UTC", "date=0000-01-01&tz=Asia/Tokyo"} {
			got := focus(t, s, key, q)
			if want := q != "date=0000-01-01&tz=Asia/Tokyo"; want != slices.Contains(focusLabels(t, got, "targeted"), "last instant") {
				t.Errorf("%s: targeted %v", q, focusLabels(t, got, "targeted"))
			}
		}
	})
}

// TestFocusDefaults: without date, the day is today in tz by the server's clock; without tz, UTC.
func TestFocusDefaults(t *testing.T) {
	t.Parallel()
	apitest.ForEachDBWithClock(t, time.Date(2025, 3, 10, 23, 30, 0, 0, time.UTC), func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		key, nb := ownWorld(t, s)
		f := focusItems{t, s, key, nb}
		f.note("today in UTC", map[string]any{"targetAt": "2025-03-10T12:00:00Z"})
		f.note("today in Berlin", map[string]any{"targetAt": "2025-03-11T12:00:00Z"})
		got := focus(t, s, key, "")
		if got["date"] != "2025-03-10" || got["tz"] != "UTC" || !slices.Equal(focusLabels(t, got, "targeted"), []string{"today in UTC"}) {
			t.Errorf("no parameters: %v", got)
		}
		got = focus(t, s, key, "tz=Europe/Berlin")
		if got["date"] != "2025-03-11" || got["tz"] != "Europe/Berlin" || !slices.Equal(focusLabels(t, got, "targeted"), []string{"today in Berlin"}) {
			t.Errorf("tz=Europe/Berlin: %v", got)
		}
		fake.Advance(time.Hour)
		if got := focus(t, s, key, ""); got["date"] != "2025-03-11" {
			t.Errorf("an hour later in UTC: date %v", got["date"])
		}
		if got := focus(t, s, key, "date=2025-03-10"); got["date"] != "2025-03-10" || got["tz"] != "UTC" {
			t.Errorf("date alone: date %v, tz %v", got["date"], got["tz"])
		}
	})
}

// TestFocusUsesItsIndexes: the Focus read's statements, the notes' and the tasks', read each list
// from its own index (the partial indexes of items.FocusIndexes) and scan neither table, on both
// databases: EXPLAIN on PostgreSQL, with sequential scans priced out so that a tiny table cannot
// hide an index the planner could not use (a partial index whose predicate the statement does
// not state, or a generic plan cannot prove), and EXPLAIN QUERY PLAN on SQLite.
func TestFocusUsesItsIndexes(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for _, nb := range []string{w.annNB, w.teamNB} {
			f := focusItems{t, s, w.annRW, nb}
			f.note("planned note", map[string]any{"targetAt": "2025-05-05", "followUpAt": "2025-05-01"})
			f.task("planned task", map[string]any{"targetAt": "2025-05-05", "followUpAt": "2025-05-01", "dueAt": "2025-05-01"})
		}
		type statement struct {
			sql  string
			vars []any
		}
		var (
			mu  sync.Mutex
			got []statement
		)
		err := s.DB.Callback().Query().After("gorm:query").Register("e2e:focus_plans", func(g *gorm.DB) {
			if sql := g.Statement.SQL.String(); !g.DryRun && strings.Contains(sql, "follow_up_at <") {
				mu.Lock()
				got = append(got, statement{sql, slices.Clone(g.Statement.Vars)})
				mu.Unlock()
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		// The notes' read is sent natively on PostgreSQL (db.Query), beside GORM.
		err = db.ObserveNative(s.DB, func(_ context.Context, sql string, vars []any) func(error) {
			if strings.Contains(sql, "follow_up_at <") {
				mu.Lock()
				got = append(got, statement{sql, slices.Clone(vars)})
				mu.Unlock()
			}
			return func(error) {}
		})
		if err != nil {
			t.Fatal(err)
		}
		if answer := focus(t, s, w.annRW, "date=2025-05-05"); len(focusLabels(t, answer, "targeted")) != 4 {
			t.Fatalf("targeted %v", focusLabels(t, answer, "targeted"))
		}
		if len(got) != 2 {
			t.Fatalf("%d Focus statements, want 2 (notes, tasks): %v", len(got), got)
		}
		for _, st := range got {
			table, indexes := "notes", []string{"idx_notes_focus_target_at", "idx_notes_focus_follow_up_at"}
			if strings.Contains(st.sql, "tasks") {
				table, indexes = "tasks", []string{"idx_tasks_focus_target_at", "idx_tasks_focus_follow_up_at", "idx_tasks_focus_due_at"}
			}
			plan := explain(t, s, st.sql, st.vars)
			for _, index := range indexes {
				if !strings.Contains(plan, index) {
					t.Errorf("the %s statement does not read %s:\n%s\n%s", table, index, st.sql, plan)
				}
			}
			for _, scan := range []string{"Seq Scan on " + table, "SCAN " + table + "\n"} {
				if strings.Contains(plan+"\n", scan) {
					t.Errorf("the %s statement scans the table:\n%s\n%s", table, st.sql, plan)
				}
			}
		}
	})
}

// explain is the plan of a statement, one line per node: on PostgreSQL the generic plan (the
// server's connections force generic plans, so a partial index must be usable without the
// values), with no sequential scan unless there is no other way; on SQLite EXPLAIN QUERY PLAN.
func explain(t *testing.T, s *apitest.Server, sql string, vars []any) string {
	t.Helper()
	sqlDB, err := s.DB.DB()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sqlDB.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exec := func(stmt string) {
		if _, err := conn.ExecContext(t.Context(), stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	query, column := "EXPLAIN QUERY PLAN "+sql, 3
	if s.IsPostgres() {
		exec("SET enable_seqscan = off")
		exec("SET plan_cache_mode = force_generic_plan")
		exec("PREPARE focus_plan AS " + sql)
		defer exec("RESET ALL")
		defer exec("DEALLOCATE focus_plan")
		// EXECUTE takes its values as literals (a utility statement has no parameters).
		values := make([]string, len(vars))
		for i, v := range vars {
			if at, ok := v.(time.Time); ok {
				v = at.UTC().Format(time.RFC3339Nano)
			}
			values[i] = "'" + strings.ReplaceAll(fmt.Sprint(v), "'", "''") + "'"
		}
		query, column, vars = "EXPLAIN EXECUTE focus_plan("+strings.Join(values, ", ")+")", 0, nil
	}
	rows, err := conn.QueryContext(t.Context(), query, vars...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var lines []string
	for rows.Next() {
		values := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range values {
			ptrs[i] = &values[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprint(values[column]))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
