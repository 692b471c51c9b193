package e2e

import (
	"encoding/json"
	"net/http"
	"reflect"
	"sync"
	"testing"
	"time"

	"folio/platform/clock"
	"folio/platform/config"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

// remindersOf is the reminder events of key's feed, oldest first.
func remindersOf(t *testing.T, s *apitest.Server, key string) []map[string]any {
	t.Helper()
	got, _ := feed(t, s, key, "", "&types=note.follow_up_due,task.follow_up_due,task.due")
	return got
}

// TestRemindersOverHTTP: items written over the API with follow-up and due dates; when the
// (fake) clock passes them, the feed carries note.follow_up_due, task.follow_up_due and task.due
// once each, with no actor and the item as GET returns it as data, for the owner and the
// workspace's member alike, never for an outsider; a webhook delivers them; a PATCH that moves
// the time re-arms, one that clears it or marks the task DONE disarms (CONTRACT.md section 21).
func TestRemindersOverHTTP(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 3, 1, 9, 0, 0, 0, time.UTC)
	apitest.ForEachDBWithClock(t, start, func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		w := newWorld(t, s)
		rcv := newReceiver(t)
		apitest.Must(t, s.Post(t, w.bobRW, "/webhooks", map[string]any{"url": rcv.URL, "events": []string{"task.due", "note.follow_up_due", "task.follow_up_due"}}), http.StatusCreated)
		in := func(d time.Duration) string { return start.Add(d).Format(time.RFC3339) }
		note := apitest.Must(t, s.Post(t, w.annRW, "/notes", map[string]any{"notebookId": w.teamNB, "content": "ask @bob", "followUpAt": in(time.Hour)}), http.StatusCreated).Str(t, "id")
		task := apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"notebookId": w.teamNB, "title": "ship", "dueAt": in(time.Hour), "followUpAt": in(3 * time.Hour)}), http.StatusCreated).Str(t, "id")
		cleared := apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"notebookId": w.teamNB, "title": "cleared", "dueAt": in(time.Hour)}), http.StatusCreated).Str(t, "id")
		done := apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"notebookId": w.annNB, "title": "done", "dueAt": in(time.Hour)}), http.StatusCreated).Str(t, "id")
		patch := func(path string, body map[string]any) {
			apitest.Must(t, s.Do(t, apitest.Request{Method: "PATCH", Key: w.annRW, Path: path, Body: body}), http.StatusOK)
		}
		patch("/tasks/"+cleared, map[string]any{"dueAt": nil})
		patch("/tasks/"+done, map[string]any{"status": "DONE"})

		fake.Set(start.Add(time.Hour))
		if _, err := s.Reminders.Fire(t.Context()); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"note.follow_up_due": note, "task.due": task}
		for name, key := range map[string]string{"owner": w.annRW, "member": w.bobRW, "workspace key": w.annTeam, "notebook key": w.annTeamNB} {
			got := remindersOf(t, s, key)
			if len(got) != len(want) {
				t.Fatalf("%s: %d reminders, want %d: %v", name, len(got), len(want), got)
			}
			for _, e := range got {
				id := e["resourceId"].(string)
				if want[e["type"].(string)] != id || e["actor"] != nil {
					t.Errorf("%s: %v", name, e)
				}
				kind := e["resourceType"].(string)
				if item := jsonOf(t, s.Get(t, w.annRW, "/"+kind+"s/"+id)).(map[string]any); !reflect.DeepEqual(e["data"], withoutPending(item)) {
					t.Errorf("%s: data %v, GET %v", name, e["data"], item)
				}
			}
		}
		for _, key := range []string{w.carlRW, w.annPersonalNB} {
			if got := remindersOf(t, s, key); len(got) != 0 {
				t.Errorf("a principal that cannot read the items sees %v", got)
			}
		}
		for _, d := range rcv.wait(t, 2) {
			var e map[string]any
			if err := json.Unmarshal(d.body, &e); err != nil || e["actor"] != nil || e["data"] == nil || (e["type"] != "task.due" && e["type"] != "note.follow_up_due") {
				t.Errorf("webhook delivery %s", d.body)
			}
		}

		// Moving the note's follow-up re-arms it; the task's follow-up fires at +3h.
		patch("/notes/"+note, map[string]any{"followUpAt": in(2 * time.Hour)})
		fake.Set(start.Add(3 * time.Hour))
		if _, err := s.Reminders.Fire(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Reminders.Fire(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := remindersOf(t, s, w.annRW); len(got) != 4 || got[2]["resourceId"] == got[3]["resourceId"] {
			t.Fatalf("after the re-arm: %v", got)
		}
		rcv.wait(t, 4)
	}, apitest.Option(func(c *config.Config) { c.WebhookAllowInsecure, c.WebhookAllowPrivate = true, true }))
}

// withoutPending is a single note's GET as a list shows it (the reminder's data), without
// pendingSuggestion; a task as it is.
func withoutPending(item map[string]any) map[string]any {
	delete(item, "pendingSuggestion")
	return item
}

// TestRemindersWithTheRealBinary: two instances of the real binary on one database; a follow-up
// due a few seconds ahead is one event in the feed and one webhook delivery, whichever instance
// gets it. Then both are killed (SIGKILL) before another follow-up's time, and one started after
// it emits that reminder exactly once. On SQLite (two processes on one file) and PostgreSQL.
func TestRemindersWithTheRealBinary(t *testing.T) {
	// Parallel: it mostly waits (see "Parallel tests" in docs/testing.md).
	t.Parallel()
	bin := testenv.FolioBinary(t)
	apitest.EachDB(t, func(t *testing.T, kind string) {
		t.Parallel() // the two databases' installs share nothing: both wait at once
		env, key := installFolio(t, bin, kind)
		var mu sync.Mutex
		delivered := map[string]int{} // event id -> deliveries
		rcv := newReceiverFunc(t, func(d delivery) int {
			mu.Lock()
			defer mu.Unlock()
			delivered[d.headers["webhook-id"]]++
			return http.StatusOK
		})
		a, b := startServe(t, bin, env), startServe(t, bin, env)
		c := rawClient{url: a.url, key: key}
		c.must(t, "POST", "/webhooks", map[string]any{"url": rcv.URL, "events": []string{"note.follow_up_due"}}, http.StatusCreated)
		nb := c.must(t, "POST", "/notebooks", map[string]any{"name": "N"}, http.StatusCreated)["id"].(string)
		soon := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
		first := c.must(t, "POST", "/notes", map[string]any{"content": "soon", "notebookId": nb, "followUpAt": soon}, http.StatusCreated)["id"].(string)

		feed := func(url string) []any {
			return rawClient{url: url, key: key}.must(t, "GET", "/events?types=note.follow_up_due&limit=100", nil, http.StatusOK)["data"].([]any)
		}
		deadline := time.Now().Add(time.Minute)
		for len(feed(b.url)) == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("no reminder a minute after its time:\n%s\n%s", a.stderr(), b.stderr())
			}
			time.Sleep(200 * time.Millisecond)
		}
		rcv.wait(t, 1)
		// Two more ticks of both instances: still one event, one delivery.
		time.Sleep(11 * time.Second)
		events := feed(a.url)
		if len(events) != 1 || events[0].(map[string]any)["resourceId"] != first {
			t.Fatalf("events %v, want one for %s", events, first)
		}
		mu.Lock()
		if id := events[0].(map[string]any)["id"].(string); len(delivered) != 1 || delivered[id] != 1 {
			t.Errorf("deliveries %v, want one of %s", delivered, id)
		}
		mu.Unlock()

		// Both instances die before the next follow-up's time; one started after it fires it once.
		later := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
		second := c.must(t, "POST", "/notes", map[string]any{"content": "while down", "notebookId": nb, "followUpAt": later}, http.StatusCreated)["id"].(string)
		if got := feed(c.url); len(got) != 1 {
			t.Fatalf("before the kill: %v", got)
		}
		for _, s := range []*served{a, b} {
			if err := s.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			<-s.done
		}
		time.Sleep(4 * time.Second)
		restarted := time.Now()
		d := startServe(t, bin, env)
		deadline = time.Now().Add(time.Minute)
		for len(feed(d.url)) < 2 {
			if time.Now().After(deadline) {
				t.Fatalf("the reminder due while every instance was down did not fire:\n%s", d.stderr())
			}
			time.Sleep(200 * time.Millisecond)
		}
		time.Sleep(6 * time.Second)
		events = feed(d.url)
		if len(events) != 2 || events[1].(map[string]any)["resourceId"] != second {
			t.Fatalf("events %v, want the second for %s", events, second)
		}
		if at, err := time.Parse(time.RFC3339, events[1].(map[string]any)["createdAt"].(string)); err != nil || at.Before(restarted.Add(-time.Second)) {
			t.Errorf("the second reminder was emitted at %v, before the restart at %v", at, restarted)
		}
	})
}
