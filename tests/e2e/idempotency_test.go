package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/idempotency"
	"folio/tests/apitest"
)

// Idempotent retries (CONTRACT.md section 13).

// withKey sends a request carrying an Idempotency-Key.
func withKey(t *testing.T, s *apitest.Server, key, method, path, idemKey string, body any) apitest.Response {
	t.Helper()
	return s.Do(t, apitest.Request{Method: method, Path: path, Key: key, Body: body, Header: map[string]string{"Idempotency-Key": idemKey}})
}

// rowCount counts the rows of a table.
func rowCount(t testing.TB, s *apitest.Server, table string) int64 {
	t.Helper()
	var n int64
	if err := s.DB.Table(table).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// wantReplay checks that r repeats first exactly, marked as a replay.
func wantReplay(t *testing.T, r, first apitest.Response) {
	t.Helper()
	if r.Status != first.Status || string(r.Body) != string(first.Body) || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %s (Idempotent-Replayed %q), first answer %d %s", r.Status, r.Body, r.Header.Get("Idempotent-Replayed"), first.Status, first.Body)
	}
	for _, h := range []string{"ETag", "Location", "Content-Type"} {
		if r.Header.Get(h) != first.Header.Get(h) {
			t.Fatalf("replayed %s %q, first %q", h, r.Header.Get(h), first.Header.Get(h))
		}
	}
}

// TestIdempotentRetries: a retry gets the stored response and writes nothing; another method,
// path or body is 422; errors are not stored (a corrected retry writes); keys are per user; the
// key's shape is checked.
func TestIdempotentRetries(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key, nb := ownWorld(t, s)
		body := map[string]any{"content": "once #only", "notebookId": nb}
		first := apitest.Must(t, withKey(t, s, key, http.MethodPost, "/notes", "k-1", body), http.StatusCreated)
		if first.Header.Get("Idempotent-Replayed") != "" || first.Header.Get("ETag") == "" {
			t.Fatalf("first answer headers %v", first.Header)
		}
		notes := rowCount(t, s, "notes")
		audit := rowCount(t, s, "audit_entries")
		for range 3 {
			wantReplay(t, withKey(t, s, key, http.MethodPost, "/notes", "k-1", body), first)
		}
		if rowCount(t, s, "notes") != notes || rowCount(t, s, "audit_entries") != audit {
			t.Fatal("a replay wrote")
		}
		// The same key with another body, path or method: 422, nothing written.
		apitest.CheckEnvelope(t, withKey(t, s, key, http.MethodPost, "/notes", "k-1", map[string]any{"content": "other", "notebookId": nb}), http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED")
		apitest.CheckEnvelope(t, withKey(t, s, key, http.MethodPost, "/tasks", "k-1", body), http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED")
		note := "/notes/" + first.Str(t, "id")
		apitest.CheckEnvelope(t, withKey(t, s, key, http.MethodDelete, note, "k-1", nil), http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED")
		if rowCount(t, s, "notes") != notes || rowCount(t, s, "audit_entries") != audit || s.Get(t, key, note).Status != http.StatusOK {
			t.Fatal("a reused key wrote")
		}
		// Another key of the same user: the key belongs to the credential that sent it (CONTRACT.md
		// section 20), so it is a write of its own, never a replay (TestReplayStaysWithItsCredential
		// covers the session and a restricted key).
		u2key := s.NewKey(t, apitest.User{ID: userOf(t, s, key)}, 3)
		own := apitest.Must(t, withKey(t, s, u2key, http.MethodPost, "/notes", "k-1", body), http.StatusCreated)
		if own.Header.Get("Idempotent-Replayed") != "" || own.Str(t, "id") == first.Str(t, "id") {
			t.Fatalf("another key of the same user got the stored answer: %s", own.Body)
		}
		// Another user's identical key: a write of its own.
		otherKey, otherNB := ownWorld(t, s)
		other := apitest.Must(t, withKey(t, s, otherKey, http.MethodPost, "/notes", "k-1", map[string]any{"content": "once #only", "notebookId": otherNB}), http.StatusCreated)
		if other.Header.Get("Idempotent-Replayed") != "" || other.Str(t, "id") == first.Str(t, "id") {
			t.Fatalf("another user's key collided: %s", other.Body)
		}

		// An error is not stored: the corrected retry with the same key writes.
		bad := withKey(t, s, key, http.MethodPost, "/notes", "k-2", map[string]any{"notebookId": nb})
		apitest.CheckEnvelope(t, bad, http.StatusBadRequest, "MISSING_FIELD")
		apitest.CheckEnvelope(t, withKey(t, s, key, http.MethodPost, "/notes", "k-2", map[string]any{"content": "x", "notebookId": "zzzzzzzzzzzzzzzzzzzzzzzz"}), http.StatusNotFound, "NOTEBOOK_NOT_FOUND")
		fixed := apitest.Must(t, withKey(t, s, key, http.MethodPost, "/notes", "k-2", map[string]any{"content": "fixed", "notebookId": nb}), http.StatusCreated)
		if fixed.Header.Get("Idempotent-Replayed") != "" {
			t.Fatal("the corrected retry was a replay")
		}
		wantReplay(t, withKey(t, s, key, http.MethodPost, "/notes", "k-2", map[string]any{"content": "fixed", "notebookId": nb}), fixed)

		// PATCH and DELETE replay too, even once the note is gone.
		p1 := apitest.Must(t, withKey(t, s, key, http.MethodPatch, note, "p-1", map[string]any{"content": "patched"}), http.StatusOK)
		apitest.Must(t, patch(t, s, key, note, map[string]any{"content": "later"}), http.StatusOK)
		wantReplay(t, withKey(t, s, key, http.MethodPatch, note, "p-1", map[string]any{"content": "patched"}), p1)
		if got := s.Get(t, key, note).Str(t, "content"); got != "later" {
			t.Fatalf("a replayed PATCH changed the note: %q", got)
		}
		d1 := apitest.Must(t, withKey(t, s, key, http.MethodDelete, note, "d-1", nil), http.StatusOK)
		wantReplay(t, withKey(t, s, key, http.MethodDelete, note, "d-1", nil), d1)
		// A 404 is not stored either.
		apitest.CheckEnvelope(t, withKey(t, s, key, http.MethodDelete, note, "d-2", nil), http.StatusNotFound, "NOTE_NOT_FOUND")
		apitest.CheckEnvelope(t, withKey(t, s, key, http.MethodDelete, note, "d-2", nil), http.StatusNotFound, "NOTE_NOT_FOUND")

		// Every other write of the API replays: notebooks, suggestions, workspaces.
		nb2 := apitest.Must(t, withKey(t, s, key, http.MethodPost, "/notebooks", "nb", map[string]any{"name": "Two"}), http.StatusCreated)
		wantReplay(t, withKey(t, s, key, http.MethodPost, "/notebooks", "nb", map[string]any{"name": "Two"}), nb2)
		target := newContent(t, s, key, "task", nb, "task notes")
		sg := apitest.Must(t, withKey(t, s, key, http.MethodPost, "/tasks/"+target+"/suggest", "sg", map[string]any{"content": "better"}), http.StatusCreated)
		wantReplay(t, withKey(t, s, key, http.MethodPost, "/tasks/"+target+"/suggest", "sg", map[string]any{"content": "better"}), sg)
		ap := apitest.Must(t, withKey(t, s, key, http.MethodPost, "/suggestions/"+sg.Str(t, "id")+"/approve", "ap", nil), http.StatusOK)
		wantReplay(t, withKey(t, s, key, http.MethodPost, "/suggestions/"+sg.Str(t, "id")+"/approve", "ap", nil), ap)
		ws := apitest.Must(t, withKey(t, s, key, http.MethodPost, "/workspaces", "ws", map[string]any{"name": "Team"}), http.StatusCreated)
		wantReplay(t, withKey(t, s, key, http.MethodPost, "/workspaces", "ws", map[string]any{"name": "Team"}), ws)
		invitee := s.NewUser(t, "Ivy")
		members := "/workspaces/" + ws.Str(t, "id") + "/members"
		inv := apitest.Must(t, withKey(t, s, key, http.MethodPost, members, "inv", map[string]any{"email": invitee.Email}), http.StatusCreated)
		wantReplay(t, withKey(t, s, key, http.MethodPost, members, "inv", map[string]any{"email": invitee.Email}), inv)
		rm := apitest.Must(t, withKey(t, s, key, http.MethodDelete, members+"/"+invitee.ID, "rm", nil), http.StatusOK)
		wantReplay(t, withKey(t, s, key, http.MethodDelete, members+"/"+invitee.ID, "rm", nil), rm)
		if n := rowCount(t, s, "memberships"); n != 1 {
			t.Fatalf("%d memberships after a replayed removal", n)
		}

		// The key's shape: 1 to 255 printable ASCII characters.
		apitest.Must(t, withKey(t, s, key, http.MethodPost, "/notebooks", strings.Repeat("~", 255), map[string]any{"name": "Long"}), http.StatusCreated)
		for _, k := range []string{"", strings.Repeat("a", 256), "caf\u00e9", "tab\there"} {
			r := withKey(t, s, key, http.MethodPost, "/notebooks", k, map[string]any{"name": "Bad"})
			apitest.CheckEnvelope(t, r, http.StatusBadRequest, "VALIDATION_ERROR")
			if !strings.Contains(errorMessage(t, r), "Idempotency-Key") {
				t.Fatalf("message does not name the header: %s", r.Body)
			}
		}
		// A GET ignores the header.
		apitest.Must(t, withKey(t, s, key, http.MethodGet, "/notebooks", "", nil), http.StatusOK)
	})
}

// userOf returns the user id of a key.
func userOf(t *testing.T, s *apitest.Server, key string) string {
	t.Helper()
	var id string
	prefix := apitest.KeyPrefix(t, key)
	if err := s.DB.Table("api_keys").Select("user_id").Where("prefix = ?", prefix).Scan(&id).Error; err != nil || id == "" {
		t.Fatalf("user of key %s: %v", prefix, err)
	}
	return id
}

// TestIdempotencyConcurrent: N identical requests with one key at once make exactly one write;
// every other answer is the same response replayed, or 409 IDEMPOTENCY_KEY_IN_USE.
func TestIdempotencyConcurrent(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key, nb := ownWorld(t, s)
		for round := range 6 {
			burst(t, []*apitest.Server{s}, 12, key, fmt.Sprintf("burst-%d", round), map[string]any{"content": fmt.Sprintf("burst %d", round), "notebookId": nb})
		}
	})
}

// burst sends n identical POST /notes with one Idempotency-Key at once, spread over servers, and
// checks that exactly one note was written and that every other answer is that first answer
// replayed, or 409 IDEMPOTENCY_KEY_IN_USE. It returns the first answer.
func burst(t *testing.T, servers []*apitest.Server, n int, key, idem string, body map[string]any) apitest.Response {
	t.Helper()
	before := rowCount(t, servers[0], "notes")
	answers := make([]apitest.Response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = withKey(t, servers[i%len(servers)], key, http.MethodPost, "/notes", idem, body)
		}()
	}
	wg.Wait()
	if got := rowCount(t, servers[0], "notes") - before; got != 1 {
		t.Fatalf("%s: %d notes written, want 1", idem, got)
	}
	var first []apitest.Response
	for _, r := range answers {
		switch {
		case r.Status == http.StatusConflict:
			apitest.CheckEnvelope(t, r, http.StatusConflict, "IDEMPOTENCY_KEY_IN_USE")
		case r.Status != http.StatusCreated:
			t.Fatalf("%s: %d %s", idem, r.Status, r.Body)
		case r.Header.Get("Idempotent-Replayed") == "":
			first = append(first, r)
		}
	}
	if len(first) != 1 {
		t.Fatalf("%s: %d first answers, want 1", idem, len(first))
	}
	for _, r := range answers {
		if r.Status == http.StatusCreated && r.Header.Get("Idempotent-Replayed") == "true" {
			wantReplay(t, r, first[0])
		}
	}
	return first[0]
}

// TestIdempotencyFailureAfterCommit: the server fails after the write and its stored response
// committed and before it answered (a crash between the write and the response). The retry gets
// the stored response and writes nothing. A failure inside the transaction instead (before the
// commit) stores nothing, and the retry writes.
func TestIdempotencyFailureAfterCommit(t *testing.T) {
	t.Parallel()
	apitest.EachDB(t, func(t *testing.T, kind string) {
		var crash atomic.Bool
		hooks := &idempotency.Hooks{AfterCommit: func(*gin.Context) {
			if crash.CompareAndSwap(true, false) {
				panic("injected failure after commit")
			}
		}}
		s := apitest.StartFx(t, kind, nil, fx.Supply(hooks))
		key, nb := ownWorld(t, s)
		body := map[string]any{"content": "survives", "notebookId": nb}
		before := rowCount(t, s, "notes")
		crash.Store(true)
		apitest.CheckEnvelope(t, withKey(t, s, key, http.MethodPost, "/notes", "crash", body), http.StatusInternalServerError, "INTERNAL_ERROR")
		if rowCount(t, s, "notes") != before+1 {
			t.Fatal("the write did not commit before the injected failure")
		}
		r := apitest.Must(t, withKey(t, s, key, http.MethodPost, "/notes", "crash", body), http.StatusCreated)
		if r.Header.Get("Idempotent-Replayed") != "true" || r.Header.Get("ETag") == "" || r.Str(t, "content") != "survives" {
			t.Fatalf("retry after the failure: %v %s", r.Header, r.Body)
		}
		if rowCount(t, s, "notes") != before+1 {
			t.Fatal("the retry wrote again")
		}
		// A failure before the commit (the audit entry cannot be written): nothing stored, and
		// the retry with the same key runs afresh.
		restore := injectFailure(t, s, "INSERT", "audit_entries", "1 = 1")
		apitest.CheckEnvelope(t, withKey(t, s, key, http.MethodPost, "/notes", "fault", body), http.StatusInternalServerError, "INTERNAL_ERROR")
		restore()
		if rowCount(t, s, "notes") != before+1 || rowCount(t, s, "idempotency_keys") != 1 {
			t.Fatal("a failed write left a note or a key behind")
		}
		r = apitest.Must(t, withKey(t, s, key, http.MethodPost, "/notes", "fault", body), http.StatusCreated)
		if r.Header.Get("Idempotent-Replayed") != "" || rowCount(t, s, "notes") != before+2 {
			t.Fatal("the retry after a failed write did not write")
		}
	})
}

// TestIdempotencyExpiry: after 24 hours a key runs afresh; the cleanup deletes expired records in
// bounded batches and keeps the others.
func TestIdempotencyExpiry(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	apitest.ForEachDBWithClock(t, start, func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		key, nb := ownWorld(t, s)
		body := map[string]any{"content": "daily", "notebookId": nb}
		first := apitest.Must(t, withKey(t, s, key, http.MethodPost, "/notes", "day", body), http.StatusCreated)
		fake.Advance(24*time.Hour - time.Millisecond)
		wantReplay(t, withKey(t, s, key, http.MethodPost, "/notes", "day", body), first)
		fake.Advance(time.Millisecond)
		again := apitest.Must(t, withKey(t, s, key, http.MethodPost, "/notes", "day", body), http.StatusCreated)
		if again.Header.Get("Idempotent-Replayed") != "" || again.Str(t, "id") == first.Str(t, "id") {
			t.Fatalf("after 24 hours: %v %s", again.Header, again.Body)
		}

		// The sweep: 2,500 expired records and one fresh one; one sweep deletes the expired ones
		// in batches of 1,000 and keeps the fresh one.
		old := fake.Now().Add(-25 * time.Hour)
		for i := range 2500 {
			if err := s.DB.Exec("INSERT INTO idempotency_keys (id, user_id, idem_key, fingerprint, token, lease_until, status, header, created_at) VALUES (?, 'u', ?, ?, 't', ?, 201, '{}', ?)",
				fmt.Sprintf("old%021d", i), fmt.Sprintf("k%d", i), []byte("fp"), old, old).Error; err != nil {
				t.Fatal(err)
			}
		}
		m := idempotency.New(idempotency.Params{DB: s.DB, Clock: fake, Logger: zap.NewNop()})
		n, err := m.Sweep(t.Context())
		if err != nil || n != 2500 {
			t.Fatalf("sweep deleted %d, %v; want 2500", n, err)
		}
		if rows := rowCount(t, s, "idempotency_keys"); rows != 1 {
			t.Fatalf("%d records after the sweep, want the fresh one", rows)
		}
		wantReplay(t, withKey(t, s, key, http.MethodPost, "/notes", "day", body), again)
	})
}

// TestIdempotencyAcrossInstances: two servers on one database share the keys. Identical requests
// sent to both at once make one write; a retry on either instance gets the stored response.
func TestIdempotencyAcrossInstances(t *testing.T) {
	t.Parallel()
	apitest.EachDB(t, func(t *testing.T, kind string) {
		c := apitest.Config(t, kind)
		a, b := apitest.StartWith(t, c), apitest.StartWith(t, c)
		key, nb := ownWorld(t, a)
		for round := range 4 {
			idem := fmt.Sprintf("both-%d", round)
			body := map[string]any{"content": fmt.Sprintf("shared %d", round), "notebookId": nb}
			first := burst(t, []*apitest.Server{a, b}, 8, key, idem, body)
			wantReplay(t, withKey(t, a, key, http.MethodPost, "/notes", idem, body), first)
			wantReplay(t, withKey(t, b, key, http.MethodPost, "/notes", idem, body), first)
		}
	})
}

// TestIdempotencyLease: while the first request runs, a retry is 409. A request that holds its
// key past the lease (as if its process had stopped) loses it: a retry then takes the key over and
// writes, and the first request, when it finally answers, cannot commit (409, nothing written).
func TestIdempotencyLease(t *testing.T) {
	t.Parallel()
	apitest.EachDB(t, func(t *testing.T, kind string) {
		fake := clock.NewFake(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
		hold, held := make(chan struct{}), make(chan struct{})
		var holding atomic.Bool
		hooks := &idempotency.Hooks{Claimed: func(*gin.Context) {
			if holding.CompareAndSwap(true, false) {
				close(held)
				<-hold
			}
		}}
		s := apitest.StartFx(t, kind, nil, apitest.FakeClock(fake), fx.Supply(hooks))
		key, nb := ownWorld(t, s)
		body := map[string]any{"content": "slow", "notebookId": nb}
		before := rowCount(t, s, "notes")
		holding.Store(true)
		slow := make(chan apitest.Response)
		go func() { slow <- withKey(t, s, key, http.MethodPost, "/notes", "slow", body) }()
		<-held
		apitest.CheckEnvelope(t, withKey(t, s, key, http.MethodPost, "/notes", "slow", body), http.StatusConflict, "IDEMPOTENCY_KEY_IN_USE")
		apitest.CheckEnvelope(t, withKey(t, s, key, http.MethodPost, "/notes", "slow", map[string]any{"content": "other", "notebookId": nb}), http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED")
		fake.Advance(idempotency.Lease)
		retry := apitest.Must(t, withKey(t, s, key, http.MethodPost, "/notes", "slow", body), http.StatusCreated)
		if retry.Header.Get("Idempotent-Replayed") != "" {
			t.Fatal("the retry that took the key over was a replay")
		}
		close(hold)
		apitest.CheckEnvelope(t, <-slow, http.StatusConflict, "IDEMPOTENCY_KEY_IN_USE")
		if got := rowCount(t, s, "notes") - before; got != 1 {
			t.Fatalf("%d notes written, want 1", got)
		}
		wantReplay(t, withKey(t, s, key, http.MethodPost, "/notes", "slow", body), retry)
	})
}

// TestReplayStaysWithItsCredential (hole 4): an Idempotency-Key belongs to the credential that
// sent it. Another key or the session of the same user repeating the same method, path, body and
// key gets the answer its own request deserves, never the stored one; the same credential's
// retry still replays.
func TestReplayStaysWithItsCredential(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		u := s.NewUser(t, "Rita Replay")
		k1 := s.NewKey(t, u, auth.ScopeReadWrite)
		nb1 := apitest.Must(t, s.Post(t, k1, "/notebooks", map[string]any{"name": "One"}), http.StatusCreated).Str(t, "id")
		nb2 := apitest.Must(t, s.Post(t, k1, "/notebooks", map[string]any{"name": "Two"}), http.StatusCreated).Str(t, "id")
		k2 := s.NewKey(t, u, auth.ScopeReadWrite, apitest.KeyOpts{Notebook: nb2})
		k3 := s.NewKey(t, u, auth.ScopeReadWrite)
		sess := s.OpenSession(t, u)
		bySession := func(method, path, idem string, body any) apitest.Response {
			h := apitest.SessionHeader(sess.Token, sess.CSRFToken)
			h["Idempotency-Key"] = idem
			return s.Do(t, apitest.Request{Method: method, Path: path, Body: body, Header: h})
		}

		t.Run("a note", func(t *testing.T) {
			body := map[string]any{"content": "Board memo, only in notebook one", "notebookId": nb1}
			first := apitest.Must(t, withKey(t, s, k1, http.MethodPost, "/notes", "X-note", body), http.StatusCreated)
			noteID := first.Str(t, "id")
			wantReplay(t, withKey(t, s, k1, http.MethodPost, "/notes", "X-note", body), first)
			// K2 may not use notebook one: its own request is refused, the stored note is not its answer.
			apitest.CheckEnvelope(t, s.Get(t, k2, "/notes/"+noteID), http.StatusNotFound, "NOTE_NOT_FOUND")
			r := withKey(t, s, k2, http.MethodPost, "/notes", "X-note", body)
			if r.Header.Get("Idempotent-Replayed") != "" || strings.Contains(string(r.Body), noteID) {
				t.Fatalf("a notebook key repeating another key's Idempotency-Key got the stored answer: %d %s (Idempotent-Replayed %q)", r.Status, r.Body, r.Header.Get("Idempotent-Replayed"))
			}
			apitest.CheckEnvelope(t, r, http.StatusForbidden, "KEY_NOTEBOOK_MISMATCH")
		})

		t.Run("a webhook", func(t *testing.T) {
			body := map[string]any{"url": "https://93.184.216.34/hook", "events": noDeliveries}
			first := apitest.Must(t, withKey(t, s, k1, http.MethodPost, "/webhooks", "Y-hook", body), http.StatusCreated)
			id, secret := first.Str(t, "id"), first.Str(t, "secret")
			wantReplay(t, withKey(t, s, k1, http.MethodPost, "/webhooks", "Y-hook", body), first)
			others := map[string]func() apitest.Response{
				"another key of the user": func() apitest.Response {
					return withKey(t, s, k3, http.MethodPost, "/webhooks", "Y-hook", body)
				},
				"the user's session": func() apitest.Response { return bySession(http.MethodPost, "/webhooks", "Y-hook", body) },
				"a notebook key of the user": func() apitest.Response {
					return withKey(t, s, k2, http.MethodPost, "/webhooks", "Y-hook", body)
				},
			}
			for _, who := range []string{"another key of the user", "the user's session", "a notebook key of the user"} {
				r := others[who]()
				if r.Header.Get("Idempotent-Replayed") != "" || strings.Contains(string(r.Body), secret) || strings.Contains(string(r.Body), id) {
					t.Errorf("%s repeating another key's Idempotency-Key got the stored answer (K1's webhook and secret): %d %s (Idempotent-Replayed %q)", who, r.Status, r.Body, r.Header.Get("Idempotent-Replayed"))
					continue
				}
				// Its own webhook, with its own secret.
				if r.Status != http.StatusCreated || r.Str(t, "secret") == "" {
					t.Errorf("%s: %d %s, want 201 and a webhook of its own", who, r.Status, r.Body)
				}
			}
		})

		// The same credential's replay follows the access rule at the time of the retry: once the
		// credential can no longer read what the stored answer shows, the retry gets the 404 a
		// read would get, not the stored content. A delete's answer shows nothing and still replays.
		t.Run("a replay after the credential lost the note", func(t *testing.T) {
			owner := s.NewUser(t, "Olga Owner")
			ownerKey := s.NewKey(t, owner, auth.ScopeReadWrite)
			ws := apitest.Must(t, s.Post(t, ownerKey, "/workspaces", map[string]any{"name": "Board"}), http.StatusCreated).Str(t, "id")
			nb := apitest.Must(t, s.Post(t, ownerKey, "/notebooks", map[string]any{"name": "Board notes", "workspaceId": ws}), http.StatusCreated).Str(t, "id")
			apitest.Must(t, s.Post(t, ownerKey, "/workspaces/"+ws+"/members", map[string]any{"email": u.Email}), http.StatusCreated)
			id := apitest.Must(t, s.Post(t, ownerKey, "/notes", map[string]any{"content": "Board minutes quokkareplay", "notebookId": nb}), http.StatusCreated).Str(t, "id")
			gone := apitest.Must(t, s.Post(t, ownerKey, "/notes", map[string]any{"content": "to delete", "notebookId": nb}), http.StatusCreated).Str(t, "id")
			body := map[string]any{"archived": true}
			first := apitest.Must(t, withKey(t, s, k1, http.MethodPatch, "/notes/"+id, "Z-patch", body), http.StatusOK)
			wantReplay(t, withKey(t, s, k1, http.MethodPatch, "/notes/"+id, "Z-patch", body), first)
			del := apitest.Must(t, withKey(t, s, k1, http.MethodDelete, "/notes/"+gone, "Z-delete", nil), http.StatusOK)
			apitest.Must(t, s.Delete(t, ownerKey, "/workspaces/"+ws+"/members/"+u.ID), http.StatusOK)
			r := withKey(t, s, k1, http.MethodPatch, "/notes/"+id, "Z-patch", body)
			if r.Header.Get("Idempotent-Replayed") != "" || strings.Contains(string(r.Body), "quokkareplay") {
				t.Fatalf("a replay showed a note its credential can no longer read: %d %s", r.Status, r.Body)
			}
			apitest.CheckEnvelope(t, r, http.StatusNotFound, "NOTE_NOT_FOUND")
			wantReplay(t, withKey(t, s, k1, http.MethodDelete, "/notes/"+gone, "Z-delete", nil), del)
		})
	})
}
