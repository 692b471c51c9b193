package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/config"
	"folio/platform/ratelimit"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

const smallLimit = 5

// limitHeaders returns X-RateLimit-Limit, -Remaining and -Reset of a response, failing the test
// when one is missing or not an integer.
func limitHeaders(t testing.TB, r apitest.Response) (limit, remaining int, reset int64) {
	t.Helper()
	num := func(name string) int64 {
		v := r.Header.Get(name)
		n, err := strconv.ParseInt(v, 10, 64)
		if v == "" || err != nil {
			t.Fatalf("header %s is %q on a %d response (%s)", name, v, r.Status, r.Body)
		}
		return n
	}
	return int(num("X-RateLimit-Limit")), int(num("X-RateLimit-Remaining")), num("X-RateLimit-Reset")
}

// checkLimited asserts a 429 RATE_LIMIT_EXCEEDED with the envelope and Retry-After: 60.
func checkLimited(t testing.TB, r apitest.Response) {
	t.Helper()
	apitest.CheckEnvelope(t, r, http.StatusTooManyRequests, "RATE_LIMIT_EXCEEDED")
	if got := r.Header.Get("Retry-After"); got != "60" {
		t.Fatalf("Retry-After %q, want 60", got)
	}
}

// checkAccepted asserts a response that passed the rate limit with the wanted status and the
// wanted X-RateLimit-Remaining, with a Reset in the future and at most a minute away.
func checkAccepted(t testing.TB, r apitest.Response, status, remaining int) {
	t.Helper()
	apitest.Must(t, r, status)
	limit, rem, reset := limitHeaders(t, r)
	if limit != smallLimit || rem != remaining {
		t.Fatalf("X-RateLimit-Limit/Remaining = %d/%d, want %d/%d", limit, rem, smallLimit, remaining)
	}
	checkReset(t, reset)
}

// checkAcceptedAt is checkAccepted for a server on a fake clock: Reset is a minute after the
// oldest counted request, so after now and at most now+60s of the fake time.
func checkAcceptedAt(t testing.TB, r apitest.Response, remaining int, now time.Time) {
	t.Helper()
	apitest.Must(t, r, 200)
	limit, rem, reset := limitHeaders(t, r)
	if limit != smallLimit || rem != remaining {
		t.Fatalf("X-RateLimit-Limit/Remaining = %d/%d, want %d/%d", limit, rem, smallLimit, remaining)
	}
	if reset <= now.Unix()-1 || reset > now.Unix()+60 {
		t.Fatalf("X-RateLimit-Reset %d is not within a minute after the fake now %d", reset, now.Unix())
	}
}

func checkReset(t testing.TB, reset int64) {
	t.Helper()
	now := time.Now().Unix()
	if reset <= now || reset > now+60 {
		t.Fatalf("X-RateLimit-Reset %d is not in (now, now+60] (now %d)", reset, now)
	}
}

// TestRateLimit: with FOLIO_RATE_LIMIT=5 exactly five requests of a user are accepted in a minute,
// then 429 with Retry-After: 60; the count is shared by all the user's keys and sessions and by
// every kind of authenticated response, and nobody else is affected.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		t.Run("exactly the limit, then 429", func(t *testing.T) {
			u := s.NewUser(t, "Rita Limit")
			key := s.NewKey(t, u, auth.ScopeReadWrite)
			for i := range smallLimit {
				checkAccepted(t, s.Get(t, key, "/notebooks"), 200, smallLimit-1-i)
			}
			for range 3 {
				r := s.Get(t, key, "/notebooks")
				checkLimited(t, r)
				limit, rem, reset := limitHeaders(t, r)
				if limit != smallLimit || rem != 0 {
					t.Fatalf("429 carries X-RateLimit-Limit/Remaining %d/%d, want %d/0", limit, rem, smallLimit)
				}
				checkReset(t, reset)
			}
			// Writes are limited alike, and the 429 comes before any other check.
			checkLimited(t, s.Post(t, key, "/notebooks", map[string]any{"name": "x"}))
			checkLimited(t, s.Post(t, key, "/notebooks", "not json"))
			checkLimited(t, s.Get(t, key, "/notebooks/doesnotexist"))
		})

		t.Run("limit headers on every authenticated response", func(t *testing.T) {
			u := s.NewUser(t, "Hedda Headers")
			rw, read := s.NewKey(t, u, auth.ScopeReadWrite), s.NewKey(t, u, auth.ScopeRead)
			sess := s.OpenSession(t, u)
			for i, tc := range []struct {
				name   string
				req    apitest.Request
				status int
			}{
				{"200 list", apitest.Request{Method: "GET", Path: "/workspaces", Key: rw}, 200},
				{"201 create", apitest.Request{Method: "POST", Path: "/notebooks", Key: rw, Body: map[string]any{"name": "n"}}, 201},
				{"404 unknown notebook", apitest.Request{Method: "GET", Path: "/notebooks/zzzzzzzzzzzzzzzzzzzzzzzz", Key: read}, 404},
				{"403 scope", apitest.Request{Method: "POST", Path: "/notebooks", Key: read, Body: map[string]any{"name": "n"}}, 403},
				{"400 validation", apitest.Request{Method: "GET", Path: "/audit-log?limit=0", Header: apitest.SessionHeader(sess.Token, "")}, 400},
			} {
				t.Run(tc.name, func(t *testing.T) {
					checkAccepted(t, s.Do(t, tc.req), tc.status, smallLimit-1-i)
				})
			}
		})

		t.Run("shared by two keys and the session; other users unaffected", func(t *testing.T) {
			u, other := s.NewUser(t, "Sam Shared"), s.NewUser(t, "Olga Other")
			k1, k2 := s.NewKey(t, u, auth.ScopeRead), s.NewKey(t, u, auth.ScopeReadWrite)
			sess := s.OpenSession(t, u)
			otherKey := s.NewKey(t, other, auth.ScopeRead)
			byKey := func(k string) apitest.Request { return apitest.Request{Method: "GET", Path: "/notebooks", Key: k} }
			bySession := apitest.Request{Method: "GET", Path: "/notebooks", Header: apitest.SessionHeader(sess.Token, "")}
			order := []apitest.Request{byKey(k1), byKey(k2), bySession, byKey(k1), byKey(k2)}
			for i, req := range order {
				checkAccepted(t, s.Do(t, req), 200, smallLimit-1-i)
			}
			for _, req := range []apitest.Request{bySession, byKey(k1), byKey(k2)} {
				checkLimited(t, s.Do(t, req))
			}
			// A new key of the limited user is limited too: the limit is per user, not per key.
			checkLimited(t, s.Get(t, s.NewKey(t, u, auth.ScopeRead), "/notebooks"))
			checkAccepted(t, s.Get(t, otherKey, "/notebooks"), 200, smallLimit-1)
		})
	}, apitest.RateLimit(smallLimit))
}

// TestRateLimitWindow controls time with a fake clock and walks the rolling window: no 60-second
// interval ever holds more than the limit, a slot frees exactly when the oldest accepted request
// leaves the window, and rejected requests are not counted.
func TestRateLimitWindow(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	apitest.ForEachDBWithClock(t, t0, func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		u := s.NewUser(t, "Walt Window")
		key := s.NewKey(t, u, auth.ScopeRead)

		var accepted, rejected []time.Duration // offsets from t0
		at := func(d time.Duration) { fake.Set(t0.Add(d)) }
		send := func() apitest.Response {
			t.Helper()
			r := s.Get(t, key, "/notebooks")
			off := fake.Now().Sub(t0)
			switch r.Status {
			case 200:
				accepted = append(accepted, off)
			case 429:
				checkLimited(t, r)
				rejected = append(rejected, off)
			default:
				t.Fatalf("status %d at t0+%v: %s", r.Status, off, r.Body)
			}
			return r
		}
		// expect sends n requests that must be accepted, then one that must be rejected whose
		// X-RateLimit-Reset is t0+resetAt (when the oldest counted request leaves).
		expect := func(d time.Duration, n int, resetAt time.Duration) {
			t.Helper()
			at(d)
			for i := range n {
				if r := send(); r.Status != 200 {
					t.Fatalf("t0+%v: request %d of %d refused: %s", d, i+1, n, r.Body)
				}
			}
			r := send()
			if r.Status != 429 {
				t.Fatalf("t0+%v: request %d accepted, want 429 (accepted so far at %v)", d, n+1, accepted)
			}
			if _, _, reset := limitHeaders(t, r); reset != t0.Add(resetAt).Unix() {
				t.Fatalf("t0+%v: X-RateLimit-Reset = t0%+ds, want t0+%v", d, reset-t0.Unix(), resetAt)
			}
		}

		// The limiter runs on the replaced clock: its Reset is computed from the fake t0.
		at(0)
		r := send()
		if _, _, reset := limitHeaders(t, r); reset != t0.Add(time.Minute).Unix() {
			t.Fatalf("X-RateLimit-Reset = %d, want the fake clock's t0+60s = %d: the limiter does not use the replaced clock", reset, t0.Add(time.Minute).Unix())
		}
		at(time.Second)
		send()
		expect(59*time.Second, 3, 60*time.Second) // 5 in the window now
		for range 10 {                            // rejected ones do not count
			send()
		}
		expect(60*time.Second-time.Nanosecond, 0, 60*time.Second) // the t=0 request is still inside
		expect(60*time.Second, 1, 61*time.Second)                 // it has left: exactly one slot
		expect(61*time.Second-time.Nanosecond, 0, 61*time.Second)
		expect(61*time.Second, 1, 119*time.Second)
		expect(90*time.Second, 0, 119*time.Second)
		expect(119*time.Second-time.Nanosecond, 0, 119*time.Second)
		expect(119*time.Second, 3, 120*time.Second) // the three of t=59s leave together
		expect(120*time.Second, 1, 121*time.Second)
		expect(121*time.Second, 1, 179*time.Second)
		expect(1000*time.Second, smallLimit, 1060*time.Second) // after a quiet spell: the limit, not more

		// No 60-second window ever held more than the limit, and every refusal happened with
		// a full window: slots freed exactly when the oldest request left.
		inWindow := func(end time.Duration) int {
			n := 0
			for _, a := range accepted {
				if a > end-time.Minute && a <= end {
					n++
				}
			}
			return n
		}
		for _, a := range accepted {
			if n := inWindow(a); n > smallLimit {
				t.Fatalf("the window ending at t0+%v holds %d accepted requests (limit %d)", a, n, smallLimit)
			}
		}
		for _, r := range rejected {
			if n := inWindow(r); n != smallLimit {
				t.Fatalf("refused at t0+%v although the window held only %d accepted requests", r, n)
			}
		}
		t.Logf("%d accepted, %d refused over %v of fake time", len(accepted), len(rejected), fake.Now().Sub(t0))

		// A burst at the end of one minute is not forgiven at the start of the next (as a
		// fixed per-minute window would): five at t=59s hold the limit until t=119s.
		other := s.NewKey(t, s.NewUser(t, "Bea Burst"), auth.ScopeRead)
		base := 2 * time.Hour
		burst := func(d time.Duration, accepted int) {
			t.Helper()
			at(base + d)
			for i := range accepted {
				checkAcceptedAt(t, s.Get(t, other, "/notebooks"), smallLimit-1-i, fake.Now())
			}
			r := s.Get(t, other, "/notebooks")
			checkLimited(t, r)
			if _, _, reset := limitHeaders(t, r); reset != t0.Add(base+119*time.Second).Unix() {
				t.Fatalf("t=%v: X-RateLimit-Reset = base%+ds, want base+119s", d, reset-t0.Add(base).Unix())
			}
		}
		burst(59*time.Second, smallLimit)
		burst(60*time.Second+time.Millisecond, 0)
		burst(90*time.Second, 0)
		burst(119*time.Second-time.Millisecond, 0)
		at(base + 119*time.Second)
		for i := range smallLimit {
			checkAcceptedAt(t, s.Get(t, other, "/notebooks"), smallLimit-1-i, fake.Now())
		}
		checkLimited(t, s.Get(t, other, "/notebooks"))
	}, apitest.RateLimit(smallLimit))
}

// TestAuthFailureLimit: after FOLIO_AUTH_FAILURE_LIMIT failed authentications an address gets 429
// for every further request that fails to authenticate, until the failures leave the window; a
// valid key or session is still accepted. Requests without any credentials are not failures.
func TestAuthFailureLimit(t *testing.T) {
	t.Parallel()
	trustLoopback := func(c *config.Config) { c.TrustedProxies = []string{"127.0.0.1/32"} }
	apitest.ForEachDBWithClock(t, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		u := s.NewUser(t, "Gus Guess")
		valid := s.NewKey(t, u, auth.ScopeRead)
		sess := s.OpenSession(t, u)
		unknown, _, _ := auth.NewKey()
		_, otherSecret, _ := auth.NewKey()
		wrongSecret := "svc_live_" + apitest.KeyPrefix(t, valid) + "_" + otherSecret

		const guesser, neighbour = "203.0.113.7", "203.0.113.8"
		steps := []struct {
			name   string
			req    apitest.Request
			status int
		}{
			{"no credentials (not a failure)", forwardedFor(guesser, nil), 401},
			{"no credentials (not a failure)", forwardedFor(guesser, nil), 401},
			{"no credentials (not a failure)", forwardedFor(guesser, nil), 401},
			{"no credentials (not a failure)", forwardedFor(guesser, nil), 401},
			{"failure 1: unknown key", forwardedFor(guesser, bearer(unknown)), 401},
			{"failure 2: right prefix, wrong secret", forwardedFor(guesser, bearer(wrongSecret)), 401},
			{"valid key between failures (not a failure, not blocked)", forwardedFor(guesser, bearer(valid)), 200},
			{"no credentials again (not a failure)", forwardedFor(guesser, nil), 401},
			{"failure 3: unknown session cookie", forwardedFor(guesser, apitest.SessionHeader("guessed-token", "")), 401},
			{"over the limit: a valid key is accepted", forwardedFor(guesser, bearer(valid)), 200},
			{"over the limit: a valid session is accepted", forwardedFor(guesser, apitest.SessionHeader(sess.Token, "")), 200},
			{"over the limit: a wrong secret gets 429", forwardedFor(guesser, bearer(wrongSecret)), 429},
			{"over the limit: an unknown key gets 429", forwardedFor(guesser, bearer(unknown)), 429},
			{"over the limit: an unknown session gets 429", forwardedFor(guesser, apitest.SessionHeader("guessed-again", "")), 429},
			{"over the limit: a malformed header gets 429", forwardedFor(guesser, map[string]string{"Authorization": "Basic x"}), 429},
			{"over the limit: no credentials is still 401", forwardedFor(guesser, nil), 401},
			{"another address is not blocked", forwardedFor(neighbour, bearer(valid)), 200},
			{"another address gets its own 401s", forwardedFor(neighbour, bearer(unknown)), 401},
		}
		for i, st := range steps {
			r := s.Do(t, st.req)
			switch st.status {
			case 429:
				checkLimited(t, r)
			case 401:
				apitest.CheckEnvelope(t, r, 401, "UNAUTHENTICATED")
			default:
				apitest.Must(t, r, st.status)
			}
			if t.Failed() {
				t.Fatalf("step %d (%s)", i+1, st.name)
			}
		}
		// Refused attempts are not counted either: the block ends when the three failures leave.
		fake.Advance(time.Minute - time.Nanosecond)
		checkLimited(t, s.Do(t, forwardedFor(guesser, bearer(wrongSecret))))
		fake.Advance(time.Nanosecond)
		apitest.CheckEnvelope(t, s.Do(t, forwardedFor(guesser, bearer(wrongSecret))), 401, "UNAUTHENTICATED")
	}, apitest.AuthFailureLimit(3), trustLoopback)

	t.Run("X-Forwarded-For is not believed from an untrusted peer", func(t *testing.T) {
		s := apitest.Start(t, "sqlite", apitest.AuthFailureLimit(3)) // FOLIO_TRUSTED_PROXIES unset
		u := s.NewUser(t, "Sly Spoofer")
		valid := s.NewKey(t, u, auth.ScopeRead)
		for i := range 3 {
			r := s.Do(t, apitest.Request{Method: "GET", Path: "/notebooks", Header: map[string]string{
				"Authorization": "Bearer svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB", "X-Forwarded-For": fmt.Sprintf("198.51.100.%d", i+1)}})
			apitest.CheckEnvelope(t, r, 401, "UNAUTHENTICATED")
		}
		r := s.Do(t, apitest.Request{Method: "GET", Path: "/notebooks", Header: map[string]string{
			"Authorization": "Bearer svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB", "X-Forwarded-For": "198.51.100.99"}})
		checkLimited(t, r)
		r = s.Do(t, apitest.Request{Method: "GET", Path: "/notebooks", Header: map[string]string{
			"Authorization": "Bearer " + valid, "X-Forwarded-For": "198.51.100.99"}})
		apitest.Must(t, r, 200)
	})
}

// TestAuthFailureLimitBehindProxy is folio behind a reverse proxy that FOLIO_TRUSTED_PROXIES does
// not list: every request comes from the proxy's address (here loopback, with the clients'
// addresses in an X-Forwarded-For that is rightly ignored). One client's 25 bad keys must not
// lock anybody else out: valid keys and sessions are accepted, bad keys get 429 once over the
// limit, repeating a bad key costs no database lookup, and the operator is told (once per minute
// per peer, not per request) which setting is missing.
func TestAuthFailureLimitBehindProxy(t *testing.T) {
	t.Parallel()
	apitest.EachDB(t, func(t *testing.T, kind string) {
		observe, logs := apitest.ObserveLogs()
		s := apitest.StartFx(t, kind, []apitest.Option{apitest.AuthFailureLimit(20)}, observe)
		u := s.NewUser(t, "Pia Proxied")
		valid := s.NewKey(t, u, auth.ScopeRead)
		sess := s.OpenSession(t, u)
		const guesser, victim = "203.0.113.66", "198.51.100.10"

		for i := range 25 {
			bad, _, _ := auth.NewKey()
			r := s.Do(t, forwardedFor(guesser, bearer(bad)))
			if i < 20 {
				apitest.CheckEnvelope(t, r, 401, "UNAUTHENTICATED")
			} else {
				checkLimited(t, r)
			}
		}
		apitest.Must(t, s.Do(t, forwardedFor(victim, bearer(valid))), 200)
		apitest.Must(t, s.Do(t, forwardedFor(victim, apitest.SessionHeader(sess.Token, ""))), 200)
		apitest.Must(t, s.Do(t, apitest.Request{Method: "GET", Path: "/notebooks", Key: valid}), 200) // no header at all
		// Guessing stays limited for this address.
		bad, _, _ := auth.NewKey()
		checkLimited(t, s.Do(t, forwardedFor(guesser, bearer(bad))))
		checkLimited(t, s.Do(t, forwardedFor(victim, bearer(bad))))
		// The same bad key again is answered from the negative cache: no database lookup.
		if n := s.SQLReads(func() { checkLimited(t, s.Do(t, forwardedFor(guesser, bearer(bad)))) }); n != 0 {
			t.Errorf("a repeated unknown key cost %d database reads, want 0", n)
		}

		warned := logs.FilterMessageSnippet("FOLIO_TRUSTED_PROXIES").All()
		if len(warned) != 1 || warned[0].Level != zap.WarnLevel {
			t.Fatalf("%d warnings naming FOLIO_TRUSTED_PROXIES over 30 proxied requests, want exactly 1 (throttled): %v", len(warned), warned)
		}
		if peer := warned[0].ContextMap()["peer"]; peer != "127.0.0.1" {
			t.Errorf("warning names peer %v, want 127.0.0.1", peer)
		}
	})

	t.Run("no warning for a trusted proxy or without the header", func(t *testing.T) {
		warnings := func(logs *observer.ObservedLogs) int {
			return len(logs.FilterMessageSnippet("FOLIO_TRUSTED_PROXIES").All())
		}
		healthz := func(s *apitest.Server, h map[string]string) {
			apitest.Must(t, s.Do(t, apitest.Request{Method: "GET", Path: "//healthz", Header: h}), 200)
		}
		observe, logs := apitest.ObserveLogs()
		trust := func(c *config.Config) { c.TrustedProxies = []string{"127.0.0.1"} }
		trusted := apitest.StartFx(t, "sqlite", []apitest.Option{trust}, observe)
		healthz(trusted, map[string]string{"X-Forwarded-For": "203.0.113.1"})
		if n := warnings(logs); n != 0 {
			t.Fatalf("%d warnings for a trusted proxy", n)
		}
		observe, logs = apitest.ObserveLogs()
		untrusted := apitest.StartFx(t, "sqlite", nil, observe)
		healthz(untrusted, nil)
		if n := warnings(logs); n != 0 {
			t.Fatalf("%d warnings for a request without X-Forwarded-For", n)
		}
		healthz(untrusted, map[string]string{"X-Real-IP": "203.0.113.1"})
		if n := warnings(logs); n != 1 {
			t.Fatalf("%d warnings for X-Real-IP from an untrusted peer, want 1", n)
		}
	})
}

// TestRateLimitRedisShared: two instances sharing one Redis (and one database) enforce one limit.
func TestRateLimitRedisShared(t *testing.T) {
	t.Parallel()
	apitest.EachDB(t, func(t *testing.T, kind string) {
		cfg := apitest.Config(t, kind)
		cfg.RateLimit = smallLimit
		cfg.RedisURL = testenv.RedisURL(t) // keys are per user id, and user ids are unique
		a, b := apitest.StartWith(t, cfg), apitest.StartWith(t, cfg)
		u, other := a.NewUser(t, "Rhea Redis"), a.NewUser(t, "Otto Other")
		key := a.NewKey(t, u, auth.ScopeRead)
		sess := a.OpenSession(t, u)
		otherKey := a.NewKey(t, other, auth.ScopeRead)
		bySession := apitest.Request{Method: "GET", Path: "/notebooks", Header: apitest.SessionHeader(sess.Token, "")}
		byKey := apitest.Request{Method: "GET", Path: "/notebooks", Key: key}

		seq := []struct {
			s   *apitest.Server
			req apitest.Request
		}{{a, byKey}, {b, byKey}, {a, bySession}, {b, bySession}, {b, byKey}}
		for i, step := range seq {
			checkAccepted(t, step.s.Do(t, step.req), 200, smallLimit-1-i)
		}
		for _, srv := range []*apitest.Server{a, b} {
			checkLimited(t, srv.Do(t, byKey))
			checkLimited(t, srv.Do(t, bySession))
		}
		checkAccepted(t, b.Get(t, otherKey, "/notebooks"), 200, smallLimit-1)
		checkAccepted(t, a.Get(t, otherKey, "/notebooks"), 200, smallLimit-2)
	})
}

// TestRateLimitRedisUnreachable: with Redis refusing connections, or accepting them and never
// answering, requests do not hang (each well under a second) and each instance still applies the
// limit locally (the documented fail-open-to-local behaviour).
func TestRateLimitRedisUnreachable(t *testing.T) {
	// Not parallel: it times requests (a busy machine could break the bound) and counts go-redis's
	// warnings, which reach the last server started with Redis (redis.SetLogger is process-wide).
	silent := testenv.SilentRedis(t)
	for _, redisCase := range []struct{ name, url string }{
		{"connection refused", "redis://127.0.0.1:1/0"},
		{"never answers", "redis://" + silent + "/0"},
	} {
		t.Run(redisCase.name, func(t *testing.T) {
			apitest.EachDB(t, func(t *testing.T, kind string) {
				cfg := apitest.Config(t, kind)
				cfg.RateLimit, cfg.AuthFailureLimit = smallLimit, 3
				cfg.RedisURL = redisCase.url
				observe, logs := apitest.ObserveLogs()
				s := apitest.StartWith(t, cfg, observe)
				u, other := s.NewUser(t, "Nora Noredis"), s.NewUser(t, "Otis Other")
				key, otherKey := s.NewKey(t, u, auth.ScopeRead), s.NewKey(t, other, auth.ScopeRead)

				var slowest time.Duration
				slow := 0
				timed := func(req apitest.Request) apitest.Response {
					t.Helper()
					start := time.Now()
					r := s.Do(t, req)
					d := time.Since(start)
					slowest = max(slowest, d)
					if d >= ratelimit.DefaultTimeout/2 {
						slow++
					}
					if d >= time.Second {
						t.Fatalf("%s %s took %v with Redis unreachable", req.Method, req.Path, d)
					}
					return r
				}
				get := func(k string) apitest.Request { return apitest.Request{Method: "GET", Path: "/notebooks", Key: k} }
				for i := range smallLimit {
					checkAccepted(t, timed(get(key)), 200, smallLimit-1-i)
				}
				checkLimited(t, timed(get(key)))
				checkAccepted(t, timed(get(otherKey)), 200, smallLimit-1)
				// The per-address failure limit still applies locally too.
				for range 3 {
					apitest.CheckEnvelope(t, timed(get("svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB")), 401, "UNAUTHENTICATED")
				}
				checkLimited(t, timed(get("svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB")))
				checkAccepted(t, timed(get(otherKey)), 200, smallLimit-2) // a valid key still passes
				t.Logf("slowest request with Redis %s: %v", redisCase.name, slowest.Round(time.Millisecond))
				// Only the request that found Redis down waited on it, once per limiter (the first
				// request for the per-user limit, the first failed authentication for the
				// per-address one); after that a background probe asks Redis, not the requests.
				if slow > 2 {
					t.Errorf("%d requests waited on the unreachable Redis, want only the first of each limiter", slow)
				}
				// go-redis's own complaints about failed dials reach the app's log (not stderr
				// as plain text), throttled to one per 30 s. On a loaded machine the first dial can
				// outlast the limiter's timeout and end as "context deadline exceeded" without a
				// refusal; the background probe (every second) dials again, so wait for it.
				if redisCase.name == "connection refused" {
					for deadline := time.Now().Add(5 * time.Second); len(logs.FilterMessage("redis client").All()) == 0 && time.Now().Before(deadline); {
						time.Sleep(50 * time.Millisecond)
					}
					if n := len(logs.FilterMessage("redis client").All()); n != 1 {
						t.Errorf("%d \"redis client\" warnings in the app's log, want 1: %v", n, logs.FilterLoggerName("ratelimit").All())
					}
				}
			})
		})
	}
}

// forwardedFor is GET /notebooks from a client behind the proxy (X-Forwarded-For: addr), with the
// headers h.
func forwardedFor(addr string, h map[string]string) apitest.Request {
	hh := map[string]string{"X-Forwarded-For": addr}
	for k, v := range h {
		hh[k] = v
	}
	return apitest.Request{Method: "GET", Path: "/notebooks", Header: hh}
}

// bearer is the Authorization header of key k.
func bearer(k string) map[string]string { return map[string]string{"Authorization": "Bearer " + k} }

var (
	rateLimitPolicyRE = regexp.MustCompile(`^"default";q=(\d+);w=60$`)
	rateLimitRE       = regexp.MustCompile(`^"default";r=(\d+);t=(\d+)$`)
)

// ietfLimit returns q of RateLimit-Policy and r, t of RateLimit, failing when they are missing or
// malformed.
func ietfLimit(t *testing.T, r apitest.Response) (q, remaining, reset int) {
	t.Helper()
	p := rateLimitPolicyRE.FindStringSubmatch(r.Header.Get("RateLimit-Policy"))
	l := rateLimitRE.FindStringSubmatch(r.Header.Get("RateLimit"))
	if p == nil || l == nil {
		t.Fatalf("%d response: RateLimit-Policy %q, RateLimit %q", r.Status, r.Header.Get("RateLimit-Policy"), r.Header.Get("RateLimit"))
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	return atoi(p[1]), atoi(l[1]), atoi(l[2])
}

// TestRateLimitIETFHeaders walks the rolling window on a fake clock: RateLimit-Policy names the
// limit and the 60 s window, RateLimit's r is X-RateLimit-Remaining and its t the seconds until the
// oldest counted request leaves the window (X-RateLimit-Reset minus now), on accepted requests and
// on the 429 alike; a request that does not authenticate carries neither.
func TestRateLimitIETFHeaders(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2031, 3, 1, 9, 0, 0, 0, time.UTC)
	apitest.ForEachDBWithClock(t, t0, func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		key := s.NewKey(t, s.NewUser(t, "Rita Limit"), auth.ScopeRead)
		check := func(r apitest.Response, wantStatus, wantR, wantT int) {
			t.Helper()
			if r.Status != wantStatus {
				t.Fatalf("status %d, want %d: %s", r.Status, wantStatus, r.Body)
			}
			q, rem, reset := ietfLimit(t, r)
			if q != smallLimit || rem != wantR || reset != wantT {
				t.Fatalf("q=%d r=%d t=%d, want q=%d r=%d t=%d", q, rem, reset, smallLimit, wantR, wantT)
			}
			_, xrem, xreset := limitHeaders(t, r)
			if xrem != rem || xreset-fake.Now().Unix() != int64(reset) {
				t.Fatalf("RateLimit r=%d t=%d disagrees with X-RateLimit-Remaining %d, X-RateLimit-Reset %d (now %d)", rem, reset, xrem, xreset, fake.Now().Unix())
			}
		}
		check(s.Get(t, key, "/notebooks"), 200, 4, 60) // counted at t0: leaves at t0+60
		fake.Set(t0.Add(10 * time.Second))
		check(s.Get(t, key, "/notebooks"), 200, 3, 50) // the oldest still leaves at t0+60
		fake.Set(t0.Add(20 * time.Second))
		check(s.Get(t, key, "/notebooks"), 200, 2, 40)
		check(s.Get(t, key, "/notebooks"), 200, 1, 40)
		check(s.Get(t, key, "/notebooks"), 200, 0, 40)
		fake.Set(t0.Add(45 * time.Second))
		r := s.Get(t, key, "/notebooks")
		checkLimited(t, r)
		check(r, 429, 0, 15)
		fake.Set(t0.Add(60 * time.Second)) // the first request leaves the window
		check(s.Get(t, key, "/notebooks"), 200, 0, 10)
		fake.Set(t0.Add(70 * time.Second))
		check(s.Get(t, key, "/notebooks"), 200, 0, 10) // t0+10 left too: the oldest is at t0+20, 10 s to go

		// Not authenticated: no rate-limit headers of either kind.
		r = s.Get(t, "", "/notebooks")
		apitest.CheckEnvelope(t, r, http.StatusUnauthorized, "UNAUTHENTICATED")
		for _, h := range []string{"RateLimit", "RateLimit-Policy", "X-RateLimit-Limit"} {
			if v := r.Header.Get(h); v != "" {
				t.Fatalf("401 carries %s: %q", h, v)
			}
		}
	}, apitest.RateLimit(smallLimit))
}
