package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"folio/modules/accounts"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/tests/apitest"
)

// TestKeyExpiry (CONTRACT.md section 19): a key with an expiry works until that instant and gets
// 401 UNAUTHENTICATED from it on, like a revoked key, even when it sits in the instance's key
// cache from a request made a second before it expired; keys without an expiry are unaffected.
// An expiry in the past is refused at creation; a rotation keeps the expiry and an expired key
// cannot be rotated.
func TestKeyExpiry(t *testing.T) {
	t.Parallel()
	start := time.Date(2031, 3, 1, 12, 0, 0, 0, time.UTC)
	apitest.ForEachDBWithClock(t, start, func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		ctx := context.Background()
		ann := s.NewUser(t, "Ann Expiry")
		newKey := func(expires *time.Time) (string, accounts.APIKey) {
			t.Helper()
			raw, k, err := s.Accounts.CreateKey(ctx, accounts.NewKey{UserID: ann.ID, Name: "expiring", Scope: auth.ScopeReadWrite, ExpiresAt: expires})
			if err != nil {
				t.Fatal(err)
			}
			return raw, k
		}
		refused := func(key, want string) {
			t.Helper()
			r := s.Get(t, key, "/notebooks")
			apitest.CheckEnvelope(t, r, 401, "UNAUTHENTICATED")
			if msg := errorMessage(t, r); !strings.Contains(msg, want) {
				t.Fatalf("message %q does not say %q", msg, want)
			}
		}
		at := start.Add(time.Hour)
		cached, rec := newKey(&at)
		if rec.ExpiresAt == nil || !rec.ExpiresAt.Equal(at) {
			t.Fatalf("the key's expiry is %v, want %v", rec.ExpiresAt, at)
		}
		uncached, _ := newKey(&at)
		forever, _ := newKey(nil)

		// Just before the expiry the key works, and the second request is served from the cache.
		fake.Set(at.Add(-time.Second))
		first := s.SQLReads(func() { apitest.Must(t, s.Get(t, cached, "/notebooks"), 200) })
		if second := s.SQLReads(func() { apitest.Must(t, s.Get(t, cached, "/notebooks"), 200) }); second >= first {
			t.Fatalf("the second request read the database %d times, the first %d: the key is not cached", second, first)
		}
		// At the expiry instant, within the cache's lifetime, it is refused.
		fake.Set(at)
		refused(cached, "expired")
		refused(uncached, "expired")
		apitest.Must(t, s.Get(t, forever, "/notebooks"), 200)
		// And long after (the cache entry gone, the key read again).
		fake.Advance(time.Minute)
		refused(cached, "expired")
		refused(uncached, "expired")
		apitest.Must(t, s.Get(t, forever, "/notebooks"), 200)

		t.Run("an expiry in the past or too far ahead is refused", func(t *testing.T) {
			for _, when := range []time.Time{fake.Now(), fake.Now().Add(-time.Hour), fake.Now().Add(accounts.MaxKeyLifetime + time.Hour)} {
				_, _, err := s.Accounts.CreateKey(ctx, accounts.NewKey{UserID: ann.ID, Name: "bad", Scope: auth.ScopeRead, ExpiresAt: &when})
				var inv accounts.Invalid
				if !errors.As(err, &inv) || inv["expires"] == "" {
					t.Fatalf("expiry %v: %v, want an Invalid naming expires", when, err)
				}
			}
		})

		t.Run("rotation keeps the expiry; an expired key is not rotated", func(t *testing.T) {
			later := fake.Now().Add(48 * time.Hour)
			old, _ := newKey(&later)
			raw, rotated, err := s.Accounts.RotateKey(ctx, apitest.KeyPrefix(t, old))
			if err != nil {
				t.Fatal(err)
			}
			if rotated.ExpiresAt == nil || !rotated.ExpiresAt.Equal(later) {
				t.Fatalf("the rotated key expires %v, want %v", rotated.ExpiresAt, later)
			}
			apitest.Must(t, s.Get(t, raw, "/notebooks"), 200)
			_, _, err = s.Accounts.RotateKey(ctx, apitest.KeyPrefix(t, cached))
			apitest.WantErr(t, err, accounts.ErrKeyExpired)
			fake.Set(later)
			refused(raw, "expired")
		})

		t.Run("a revoked key that has also expired says revoked", func(t *testing.T) {
			if _, err := s.Accounts.RevokeKey(ctx, apitest.KeyPrefix(t, uncached)); err != nil {
				t.Fatal(err)
			}
			refused(uncached, "revoked")
		})
	})
}

// TestRevocation: a revoked key is refused on the very next request of the instance that revoked
// it, even when the key was just used (and so sits in the key cache).
func TestRevocation(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		ann := s.NewUser(t, "Ann Revoke")
		for _, tc := range []struct {
			name  string
			warm  int // requests made with the key before it is revoked
			scope int
		}{
			{name: "never used", warm: 0, scope: auth.ScopeReadWrite},
			{name: "used once (cached)", warm: 1, scope: auth.ScopeReadWrite},
			{name: "used many times (cached)", warm: 5, scope: auth.ScopeRead},
		} {
			t.Run(tc.name, func(t *testing.T) {
				key := s.NewKey(t, ann, tc.scope)
				for range tc.warm {
					apitest.Must(t, s.Get(t, key, "/notebooks"), 200)
				}
				if _, err := s.Accounts.RevokeKey(context.Background(), apitest.KeyPrefix(t, key)); err != nil {
					t.Fatal(err)
				}
				for _, method := range []string{http.MethodGet, http.MethodPost} {
					r := s.Do(t, apitest.Request{Method: method, Path: "/notebooks", Key: key, Body: map[string]any{"name": "x"}})
					apitest.CheckEnvelope(t, r, 401, "UNAUTHENTICATED")
				}
			})
		}

		t.Run("other keys of the user keep working", func(t *testing.T) {
			a, b := s.NewKey(t, ann, auth.ScopeRead), s.NewKey(t, ann, auth.ScopeRead)
			apitest.Must(t, s.Get(t, a, "/notebooks"), 200)
			apitest.Must(t, s.Get(t, b, "/notebooks"), 200)
			if _, err := s.Accounts.RevokeKey(context.Background(), apitest.KeyPrefix(t, a)); err != nil {
				t.Fatal(err)
			}
			apitest.CheckEnvelope(t, s.Get(t, a, "/notebooks"), 401, "UNAUTHENTICATED")
			apitest.Must(t, s.Get(t, b, "/notebooks"), 200)
		})
	})
}

// TestRotation: after a rotation the old key is refused at once and the new one works with the
// same scope and the same restriction.
func TestRotation(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for _, tc := range []struct {
			name  string
			scope int
			opts  apitest.KeyOpts
			// what the rotated key must still get
			checks []rotationCheck
		}{
			{name: "unrestricted read+write", scope: auth.ScopeReadWrite, checks: []rotationCheck{
				{"GET", "/notebooks/" + w.annNB, nil, 200, ""},
				{"GET", "/notebooks/" + w.teamNB, nil, 200, ""},
				{"POST", "/notebooks", map[string]any{"name": "after rotation"}, 201, ""},
			}},
			{name: "read-only", scope: auth.ScopeRead, checks: []rotationCheck{
				{"GET", "/notebooks/" + w.annNB, nil, 200, ""},
				{"POST", "/notebooks", map[string]any{"name": "x"}, 403, "INSUFFICIENT_SCOPE"},
			}},
			{name: "write-only", scope: auth.ScopeWrite, checks: []rotationCheck{
				{"GET", "/notebooks", nil, 403, "INSUFFICIENT_SCOPE"},
				{"POST", "/notebooks", map[string]any{"name": "w"}, 201, ""},
			}},
			{name: "workspace-scoped read", scope: auth.ScopeRead, opts: apitest.KeyOpts{Workspace: w.team}, checks: []rotationCheck{
				{"GET", "/notebooks/" + w.teamNB, nil, 200, ""},
				{"GET", "/notebooks/" + w.annNB, nil, 403, "KEY_WORKSPACE_MISMATCH"},
				{"POST", "/notebooks", map[string]any{"name": "x"}, 403, "INSUFFICIENT_SCOPE"},
			}},
			{name: "notebook-scoped read+write", scope: auth.ScopeReadWrite, opts: apitest.KeyOpts{Notebook: w.teamNB}, checks: []rotationCheck{
				{"GET", "/notebooks/" + w.teamNB, nil, 200, ""},
				{"GET", "/notebooks/" + w.annNB, nil, 403, "KEY_NOTEBOOK_MISMATCH"},
				{"POST", "/notebooks", map[string]any{"name": "x"}, 403, "INSUFFICIENT_SCOPE"},
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				old := s.NewKey(t, w.ann, tc.scope, tc.opts)
				run := func(key string) {
					t.Helper()
					for _, c := range tc.checks {
						r := s.Do(t, apitest.Request{Method: c.method, Path: c.path, Key: key, Body: c.body})
						if c.code == "" {
							apitest.Must(t, r, c.status)
						} else {
							apitest.CheckEnvelope(t, r, c.status, c.code)
						}
					}
				}
				run(old) // also puts the old key in the cache
				raw, rec, err := s.Accounts.RotateKey(context.Background(), apitest.KeyPrefix(t, old))
				if err != nil {
					t.Fatal(err)
				}
				if raw == old || apitest.KeyPrefix(t, raw) == apitest.KeyPrefix(t, old) {
					t.Fatalf("rotation kept the key or its prefix: %s", raw)
				}
				if rec.Scope != tc.scope {
					t.Fatalf("rotated key has scope %d, want %d", rec.Scope, tc.scope)
				}
				apitest.CheckEnvelope(t, s.Get(t, old, "/notebooks"), 401, "UNAUTHENTICATED")
				run(raw)
				// Rotating the rotated-away key again is refused; the new key is unaffected.
				if _, _, err := s.Accounts.RotateKey(context.Background(), apitest.KeyPrefix(t, old)); err == nil {
					t.Fatal("rotating a rotated-away key succeeded")
				}
				run(raw)
			})
		}
	})
}

type rotationCheck struct {
	method, path string
	body         any
	status       int
	code         string
}

// TestRevocationAcrossInstances runs two servers on one database. A key revoked through instance A
// is refused by A at once and by B within 5 seconds (B's key cache lives at most
// FOLIO_KEY_CACHE_TTL), measured from the moment the revocation committed.
func TestRevocationAcrossInstances(t *testing.T) {
	// Parallel: it mostly waits (see "Parallel tests" in docs/testing.md).
	t.Parallel()
	apitest.EachDB(t, func(t *testing.T, kind string) {
		cfg := apitest.Config(t, kind)
		a := apitest.StartWith(t, cfg)
		b := apitest.StartWith(t, cfg) // same SQLite file or PostgreSQL URL
		ann := a.NewUser(t, "Ann Cluster")
		key := a.NewKey(t, ann, auth.ScopeReadWrite)

		apitest.Must(t, a.Get(t, key, "/notebooks"), 200)
		// The key has just been read by B, so B's cache holds it for its full TTL: the worst case.
		apitest.Must(t, b.Get(t, key, "/notebooks"), 200)
		apitest.Must(t, b.Get(t, key, "/notebooks"), 200) // accepted just before the revocation
		if _, err := a.Accounts.RevokeKey(context.Background(), apitest.KeyPrefix(t, key)); err != nil {
			t.Fatal(err)
		}
		revoked := time.Now()
		apitest.CheckEnvelope(t, a.Get(t, key, "/notebooks"), 401, "UNAUTHENTICATED")

		var delay time.Duration
		accepted := 0
		for {
			r := b.Get(t, key, "/notebooks")
			if r.Status == http.StatusUnauthorized {
				delay = time.Since(revoked)
				apitest.CheckEnvelope(t, r, 401, "UNAUTHENTICATED")
				break
			}
			apitest.Must(t, r, 200)
			accepted++
			if time.Since(revoked) > 5*time.Second {
				t.Fatalf("instance B still accepts the key %v after its revocation on A", time.Since(revoked))
			}
			time.Sleep(20 * time.Millisecond)
		}
		if delay > 5*time.Second {
			t.Fatalf("instance B refused the key only %v after the revocation (limit 5s)", delay)
		}
		t.Logf("%s: instance B refused the revoked key %v after the revocation on A (%d requests accepted meanwhile; key cache TTL %v)",
			kind, delay.Round(time.Millisecond), accepted, cfg.KeyCacheTTL)
		// And from then on, always.
		for range 3 {
			apitest.CheckEnvelope(t, b.Get(t, key, "/notebooks"), 401, "UNAUTHENTICATED")
			apitest.CheckEnvelope(t, a.Get(t, key, "/notebooks"), 401, "UNAUTHENTICATED")
		}
	})
}

// TestKeyLastUsed: using a key records last_used_at (asynchronously, so it is polled for).
func TestKeyLastUsed(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		ann := s.NewUser(t, "Ann Used")
		used := s.NewKey(t, ann, auth.ScopeRead)
		unused := s.NewKey(t, ann, auth.ScopeRead)
		lastUsed := func() map[string]*time.Time {
			keys, err := s.Accounts.Keys(context.Background(), ann.ID)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]*time.Time{}
			for _, k := range keys {
				out[k.Prefix] = k.LastUsedAt
			}
			return out
		}
		if lu := lastUsed()[apitest.KeyPrefix(t, used)]; lu != nil {
			t.Fatalf("a new key has last_used_at %v", lu)
		}
		before := time.Now().Add(-time.Second)
		apitest.Must(t, s.Get(t, used, "/notebooks"), 200)
		after := time.Now().Add(time.Second)
		deadline := time.Now().Add(5 * time.Second)
		for {
			lu := lastUsed()
			if at := lu[apitest.KeyPrefix(t, used)]; at != nil {
				if at.Before(before) || at.After(after) {
					t.Fatalf("last_used_at %v is not the time of the request (%v .. %v)", at, before, after)
				}
				if lu[apitest.KeyPrefix(t, unused)] != nil {
					t.Fatal("an unused key got a last_used_at")
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("last_used_at was not recorded within 5s of the key's use")
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}
