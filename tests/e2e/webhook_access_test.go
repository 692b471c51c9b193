package e2e

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"folio/modules/accounts"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/config"
	"folio/tests/apitest"
)

// The access rule as webhooks meet it (CONTRACT.md section 20): a webhook holds the key that made
// it and asks the rule again for every dispatch and every attempt, so it dies with its key, follows
// a member out of a workspace, needs read and write scope to be made, and delivers to each
// credential exactly what that credential's feed shows. Each runs over HTTP on both databases. The
// rule's other carriers are tested with their subjects: the feed in events_test.go
// (TestFeedForgetsWhatIsGone), idempotent replays in idempotency_test.go
// (TestReplayStaysWithItsCredential).

// quietFor is how long a receiver must stay silent after the dispatch that would have reached it
// (a live webhook of the same user, dispatched in the same transaction, has already been served).
// A delivery that should not exist would be a job inserted with the served one and fetched with
// it, or at the latest at River's next fetch 200 ms later: 1.5 s is several fetches of margin.
const quietFor = 1500 * time.Millisecond

// deliveredEvent returns the event of a delivery.
func deliveredEvent(t *testing.T, d delivery) map[string]any {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal(d.body, &ev); err != nil {
		t.Fatalf("delivery is not JSON: %v: %s", err, d.body)
	}
	return ev
}

// waitForResource waits (at most 30 s) until rcv has received an event about resourceID and
// returns it.
func waitForResource(t *testing.T, rcv *receiver, resourceID string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rcv.mu.Lock()
		got := append([]delivery(nil), rcv.got...)
		rcv.mu.Unlock()
		for _, d := range got {
			if ev := deliveredEvent(t, d); ev["resourceId"] == resourceID {
				return ev
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no delivery about %s after 30 s (%d deliveries)", resourceID, len(got))
		}
		select {
		case <-rcv.ready:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// deliveriesAbout returns what rcv received about resourceID, after waiting quietFor.
func deliveriesAbout(t *testing.T, rcv *receiver, resourceID string) []string {
	t.Helper()
	time.Sleep(quietFor)
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	var out []string
	for _, d := range rcv.got {
		if deliveredEvent(t, d)["resourceId"] == resourceID {
			out = append(out, string(d.body))
		}
	}
	return out
}

// listedWebhook returns the webhook id as GET /webhooks shows it to key (nil when absent).
func listedWebhook(t *testing.T, s *apitest.Server, key, id string) map[string]any {
	t.Helper()
	for _, w := range apitest.Must(t, s.Get(t, key, "/webhooks?limit=100"), http.StatusOK).Data(t) {
		if w["id"] == id {
			return w
		}
	}
	return nil
}

// wantWebhookState checks status and disabledReason of a listed webhook ("" reason: absent or
// null, as for an active webhook).
func wantWebhookState(t *testing.T, s *apitest.Server, key, id, status, reason string) {
	t.Helper()
	w := listedWebhook(t, s, key, id)
	if w == nil {
		t.Errorf("GET /webhooks does not list webhook %s", id)
		return
	}
	gotReason, _ := w["disabledReason"].(string)
	if w["status"] != status || gotReason != reason || (reason == "" && w["disabledReason"] != nil) {
		t.Errorf("GET /webhooks shows webhook %s with status %v, disabledReason %v; want status %q, disabledReason %q", id, w["status"], w["disabledReason"], status, reason)
	}
}

// TestWebhookDiesWithItsKey (hole 1): a webhook belongs to the key that created it. Once that
// key is revoked or has expired, later writes of the user through another key are not delivered
// (within the key cache's bound), and GET /webhooks shows the webhook disabled with the reason. A
// rotation moves the webhook to the new key (deliveries continue, status active) until that key
// is revoked in turn.
func TestWebhookDiesWithItsKey(t *testing.T) {
	// Parallel: it mostly waits (see "Parallel tests" in docs/testing.md).
	t.Parallel()
	start := time.Date(2031, 6, 1, 9, 0, 0, 0, time.UTC)
	apitest.ForEachDBWithClock(t, start, func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		pastCache := func() { pastKeyCache(s, fake) }
		revoke := func(t *testing.T, raw string) { revokeKey(t, s, fake, raw) }

		// setup makes a user with a live key (whose "canary" webhook shows when a dispatch has
		// happened), the key k from newKey, a webhook made with k, and one note written with k,
		// delivered to that webhook.
		type scene struct {
			user        apitest.User
			live, k     string
			nb, hook    string
			rcv, canary *receiver
		}
		setup := func(t *testing.T, name string, newKey func(u apitest.User) string) *scene {
			t.Helper()
			sc := &scene{user: s.NewUser(t, name)}
			sc.live = s.NewKey(t, sc.user, auth.ScopeReadWrite)
			sc.k = newKey(sc.user)
			sc.rcv, sc.canary = newReceiver(t), newReceiver(t)
			hook := map[string]any{"events": []string{"note.created"}}
			hook["url"] = sc.canary.URL + "/canary"
			apitest.Must(t, s.Post(t, sc.live, "/webhooks", hook), http.StatusCreated)
			hook["url"] = sc.rcv.URL + "/hook"
			sc.hook = apitest.Must(t, s.Post(t, sc.k, "/webhooks", hook), http.StatusCreated).Str(t, "id")
			wantWebhookState(t, s, sc.live, sc.hook, "active", "")
			sc.nb = apitest.Must(t, s.Post(t, sc.live, "/notebooks", map[string]any{"name": "Hooked"}), http.StatusCreated).Str(t, "id")
			first := createNote(t, s, sc.k, sc.nb, "written with the webhook's own key")["id"].(string)
			waitForResource(t, sc.rcv, first)
			waitForResource(t, sc.canary, first)
			return sc
		}
		// writeLive writes a note with the live key and waits until the canary has it: the
		// dispatch that would reach the dead webhook has happened.
		writeLive := func(t *testing.T, sc *scene, content string) string {
			t.Helper()
			id := createNote(t, s, sc.live, sc.nb, content)["id"].(string)
			waitForResource(t, sc.canary, id)
			return id
		}
		plainKey := func(u apitest.User) string { return s.NewKey(t, u, auth.ScopeReadWrite) }

		t.Run("revoked", func(t *testing.T) {
			sc := setup(t, "Una Revoked", plainKey)
			revoke(t, sc.k)
			apitest.CheckEnvelope(t, s.Get(t, sc.k, "/notebooks"), http.StatusUnauthorized, "UNAUTHENTICATED")
			after := writeLive(t, sc, "written after the webhook's key was revoked: secret plans")
			if got := deliveriesAbout(t, sc.rcv, after); len(got) != 0 {
				t.Errorf("the webhook of a revoked key still delivered a later write of its user (%d deliveries): %s", len(got), got[0])
			}
			wantWebhookState(t, s, sc.live, sc.hook, "disabled", "KEY_REVOKED")
		})

		t.Run("expired", func(t *testing.T) {
			expires := fake.Now().Add(time.Hour)
			sc := setup(t, "Una Expired", func(u apitest.User) string {
				raw, _, err := s.Accounts.CreateKey(t.Context(), accounts.NewKey{UserID: u.ID, Name: "expiring", Scope: auth.ScopeReadWrite, ExpiresAt: &expires})
				if err != nil {
					t.Fatal(err)
				}
				return raw
			})
			fake.Set(expires)
			pastCache()
			apitest.CheckEnvelope(t, s.Get(t, sc.k, "/notebooks"), http.StatusUnauthorized, "UNAUTHENTICATED")
			after := writeLive(t, sc, "written after the webhook's key expired: secret plans")
			if got := deliveriesAbout(t, sc.rcv, after); len(got) != 0 {
				t.Errorf("the webhook of an expired key still delivered a later write of its user (%d deliveries): %s", len(got), got[0])
			}
			wantWebhookState(t, s, sc.live, sc.hook, "disabled", "KEY_EXPIRED")
		})

		t.Run("rotated", func(t *testing.T) {
			sc := setup(t, "Una Rotated", plainKey)
			k2, _, err := s.Accounts.RotateKey(t.Context(), apitest.KeyPrefix(t, sc.k))
			if err != nil {
				t.Fatal(err)
			}
			pastCache()
			apitest.CheckEnvelope(t, s.Get(t, sc.k, "/notebooks"), http.StatusUnauthorized, "UNAUTHENTICATED")
			// The webhook moved to the new key: deliveries continue.
			moved := writeLive(t, sc, "written after the rotation")
			waitForResource(t, sc.rcv, moved)
			wantWebhookState(t, s, sc.live, sc.hook, "active", "")
			// Revoking the new key stops them.
			revoke(t, k2)
			after := writeLive(t, sc, "written after the rotated key was revoked: secret plans")
			if got := deliveriesAbout(t, sc.rcv, after); len(got) != 0 {
				t.Errorf("the webhook of a rotated, then revoked key still delivered a later write of its user (%d deliveries): %s", len(got), got[0])
			}
			wantWebhookState(t, s, sc.live, sc.hook, "disabled", "KEY_REVOKED")
		})
	}, localWebhooks)
}

// TestWriteOnlyKeyCannotCreateWebhook (hole 2): a webhook reads every event it sees, so creating
// one needs read and write scope: a scope-2 key gets 403 INSUFFICIENT_SCOPE and nothing is made.
func TestWriteOnlyKeyCannotCreateWebhook(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		u := s.NewUser(t, "Wendy Writeonly")
		rw := s.NewKey(t, u, auth.ScopeReadWrite)
		body := map[string]any{"url": "https://93.184.216.34/hook", "events": noDeliveries}
		// The feed itself is closed to it (as today).
		apitest.CheckEnvelope(t, s.Get(t, s.NewKey(t, u, auth.ScopeWrite), "/events"), http.StatusForbidden, "INSUFFICIENT_SCOPE")
		for _, scope := range []int{auth.ScopeRead, auth.ScopeWrite} {
			r := s.Post(t, s.NewKey(t, u, scope), "/webhooks", body)
			if r.Status != http.StatusForbidden || r.ErrorCode(t) != "INSUFFICIENT_SCOPE" {
				t.Errorf("POST /webhooks with a scope-%d key: %d %s, want 403 INSUFFICIENT_SCOPE", scope, r.Status, r.Body)
				continue
			}
			apitest.CheckEnvelope(t, r, http.StatusForbidden, "INSUFFICIENT_SCOPE")
		}
		if list := apitest.Must(t, s.Get(t, rw, "/webhooks"), http.StatusOK).Data(t); len(list) != 0 {
			t.Errorf("a refused POST /webhooks created %d webhook(s): %v", len(list), list)
		}
	})
}

// TestDeliveryMatrix is the access matrix of webhook deliveries: every principal of the fixture
// world that may create a webhook makes one (a write-only or read-only key may not), then Ann and
// Bob write in Ann's personal notebook and in the Team workspace, and each receiver must get
// exactly the events its credential's feed shows with data it can read: Ann's unrestricted key
// what Ann caused, the Team key and the Team notebook key what happened there, the personal
// notebook key what happened in it, Bob what Bob caused, Carl nothing. A webhook made by a key
// that is then revoked gets nothing.
func TestDeliveryMatrix(t *testing.T) {
	// Parallel: it mostly waits (see "Parallel tests" in docs/testing.md).
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		keys := matrixKeys(w)
		doomed := s.NewKey(t, w.ann, auth.ScopeReadWrite)
		keys["doomed"] = doomed
		rcv := map[string]*receiver{}
		for _, col := range []string{"read", "write", "wsRead", "rw", "ws", "nbTeam", "nbPersonal", "carl", "bob", "doomed"} {
			rcv[col] = newReceiver(t)
			r := s.Post(t, keys[col], "/webhooks", map[string]any{"url": rcv[col].URL, "events": []string{"note.created", "note.deleted"}})
			switch col {
			case "read", "write", "wsRead":
				apitest.CheckEnvelope(t, r, http.StatusForbidden, "INSUFFICIENT_SCOPE")
				delete(rcv, col)
			default:
				apitest.Must(t, r, http.StatusCreated)
			}
		}
		if _, err := s.Accounts.RevokeKey(t.Context(), apitest.KeyPrefix(t, doomed)); err != nil {
			t.Fatal(err)
		}
		note := func(key, nb, content string) string {
			t.Helper()
			return apitest.Must(t, s.Post(t, key, "/notes", map[string]any{"content": content, "notebookId": nb}), http.StatusCreated).Str(t, "id")
		}
		annPersonal := note(w.annRW, w.annNB, "Ann's own")
		annTeam := note(w.annRW, w.teamNB, "Ann in Team")
		bobTeam := note(w.bobRW, w.teamNB, "Bob in Team")
		gone := note(w.annRW, w.teamNB, "Ann in Team, deleted at once")
		apitest.Must(t, s.Delete(t, w.annRW, "/notes/"+gone), http.StatusOK)
		last := note(w.annRW, w.teamNB, "the last write") // every webhook that sees Team hears of it last

		want := map[string][]string{
			"rw":         {annPersonal, annTeam, gone, last},
			"ws":         {annTeam, bobTeam, gone, last},
			"nbTeam":     {annTeam, bobTeam, gone, last},
			"nbPersonal": {annPersonal},
			"bob":        {bobTeam},
			"carl":       nil,
			"doomed":     nil,
		}
		for col, ids := range want {
			for _, id := range ids {
				waitForResource(t, rcv[col], id)
			}
		}
		time.Sleep(quietFor) // then nothing more may arrive
		for col, ids := range want {
			r := rcv[col]
			r.mu.Lock()
			got := map[string][]string{}
			for _, d := range r.got {
				ev := deliveredEvent(t, d)
				got[ev["resourceId"].(string)] = append(got[ev["resourceId"].(string)], ev["type"].(string))
				// A delivery always carries its data (an event whose data the credential cannot
				// read is not delivered at all): the deleted note's creation arrives, if its
				// dispatch came before the delete, with its content; its delete as {id}.
				if ev["data"] == nil {
					t.Errorf("%s: a delivery without data: %s", col, d.body)
				}
				if ev["resourceId"] == gone && ev["type"] == "note.deleted" {
					sameJSON(t, col+": the delete of "+gone, []byte(`{"id":"`+gone+`"}`), ev["data"])
				}
			}
			r.mu.Unlock()
			for _, id := range ids {
				if len(got[id]) == 0 {
					t.Errorf("%s: no delivery about %s", col, id)
				}
				delete(got, id)
			}
			if len(got) > 0 {
				t.Errorf("%s: deliveries it must not get: %v", col, got)
			}
		}
	}, localWebhooks)
}

// TestEachAttemptAsksTheRule: a delivery that failed and waits for its retry is not attempted
// again once its webhook's key has been revoked (the access rule is asked at every attempt, not
// only when the event was dispatched), while the same retry of a live key's webhook goes out.
func TestEachAttemptAsksTheRule(t *testing.T) {
	// Parallel: it mostly waits (see "Parallel tests" in docs/testing.md).
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		u := s.NewUser(t, "Rhea Retry")
		doomed, live := s.NewKey(t, u, auth.ScopeReadWrite), s.NewKey(t, u, auth.ScopeReadWrite)
		nb := apitest.Must(t, s.Post(t, live, "/notebooks", map[string]any{"name": "Retries"}), http.StatusCreated).Str(t, "id")
		dead, alive := newReceiver(t, http.StatusInternalServerError), newReceiver(t, http.StatusInternalServerError)
		deadHook := apitest.Must(t, s.Post(t, doomed, "/webhooks", map[string]any{"url": dead.URL, "events": []string{"note.created"}}), http.StatusCreated).Str(t, "id")
		apitest.Must(t, s.Post(t, live, "/webhooks", map[string]any{"url": alive.URL, "events": []string{"note.created"}}), http.StatusCreated)
		apitest.Must(t, s.Post(t, live, "/notes", map[string]any{"content": "retry me", "notebookId": nb}), http.StatusCreated)
		dead.wait(t, 1)  // the first attempt, answered 500: a retry is due after 2 s
		alive.wait(t, 1) // likewise
		if _, err := s.Accounts.RevokeKey(t.Context(), apitest.KeyPrefix(t, doomed)); err != nil {
			t.Fatal(err)
		}
		alive.wait(t, 2) // the live webhook's retry went out...
		time.Sleep(quietFor)
		dead.mu.Lock()
		n := len(dead.got)
		dead.mu.Unlock()
		if n != 1 {
			t.Fatalf("the webhook of a revoked key was attempted %d times; want only the attempt made before the revocation", n)
		}
		// ...and the revoked key's webhook recorded no further attempt.
		attempts := apitest.Must(t, s.Get(t, live, "/webhooks/"+deadHook+"/deliveries"), http.StatusOK).Data(t)
		if len(attempts) != 1 {
			t.Fatalf("%d attempts recorded, want 1: %v", len(attempts), attempts)
		}
	}, localWebhooks, func(c *config.Config) { c.WebhookRetryBase = 2 * time.Second })
}

// TestWebhookStopsWhenMemberLeaves: a webhook made by a workspace-scoped key receives that
// workspace's events only while its user is a member, as the key itself works only then.
func TestWebhookStopsWhenMemberLeaves(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		ann, bob := s.NewUser(t, "Ann Owner"), s.NewUser(t, "Bob Member")
		annKey := s.NewKey(t, ann, auth.ScopeReadWrite)
		ws := apitest.Must(t, s.Post(t, annKey, "/workspaces", map[string]any{"name": "Team"}), http.StatusCreated).Str(t, "id")
		apitest.Must(t, s.Post(t, annKey, "/workspaces/"+ws+"/members", map[string]any{"email": bob.Email}), http.StatusCreated)
		bobKey := s.NewKey(t, bob, auth.ScopeReadWrite, apitest.KeyOpts{Workspace: ws})
		bobRcv, annRcv := newReceiver(t), newReceiver(t)
		hook := map[string]any{"events": []string{"note.created"}}
		hook["url"] = bobRcv.URL + "/bob"
		apitest.Must(t, s.Post(t, bobKey, "/webhooks", hook), http.StatusCreated)
		hook["url"] = annRcv.URL + "/ann"
		apitest.Must(t, s.Post(t, annKey, "/webhooks", hook), http.StatusCreated)

		nb := apitest.Must(t, s.Post(t, annKey, "/notebooks", map[string]any{"name": "Shared", "workspaceId": ws}), http.StatusCreated).Str(t, "id")
		apitest.Must(t, s.Post(t, annKey, "/notes", map[string]any{"content": "while Bob is a member", "notebookId": nb}), http.StatusCreated)
		bobRcv.wait(t, 1)
		annRcv.wait(t, 1)

		apitest.Must(t, s.Delete(t, annKey, "/workspaces/"+ws+"/members/"+bob.ID), http.StatusOK)
		apitest.Must(t, s.Post(t, annKey, "/notes", map[string]any{"content": "after Bob left", "notebookId": nb}), http.StatusCreated)
		annRcv.wait(t, 2) // dispatched together with what Bob's webhook would have got
		time.Sleep(500 * time.Millisecond)
		bobRcv.mu.Lock()
		defer bobRcv.mu.Unlock()
		if len(bobRcv.got) != 1 {
			t.Fatalf("Bob's webhook got %d deliveries, want only the one from before he left: %s", len(bobRcv.got), bobRcv.got[len(bobRcv.got)-1].body)
		}
	}, localWebhooks)
}
