package e2e

import (
	"context"
	"errors"
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
