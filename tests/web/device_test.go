package web

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"folio/modules/accounts"
	"folio/platform/clock"
	"folio/tests/apitest"
)

// TestSignInKnownDevice: behind one address (a proxy missing from FOLIO_TRUSTED_PROXIES, a NAT),
// a client that fails sign-ins blocks new browsers from the form, but not a browser that signed in
// to the account before (its known-device cookie): that one may still try its own account's
// password, within a failure budget of its own. The cookie is good for that account only, and only
// until its password changes.
func TestSignInKnownDevice(t *testing.T) {
	apitest.ForEachDBWithClock(t, time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC), func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		a, other := newAccount("Kim Known"), newAccount("Otto Other")
		for _, acc := range []account{a, other} {
			if _, err := s.Accounts.CreateUser(context.Background(), acc.Email, acc.Name, acc.Password); err != nil {
				t.Fatal(err)
			}
		}
		right := url.Values{"email": {a.Email}, "password": {a.Password}}
		wrong := url.Values{"email": {a.Email}, "password": {"wrong password"}}
		signOut := func(b *browser) { wantRedirect(t, b.submit("/signout", nil), "/signin?signedout=1") }

		known := newBrowser(t, s)
		want(t, known.get("/signin"), http.StatusOK)
		p := known.submit("/signin", right)
		wantRedirect(t, p, "/app")
		if c := p.cookie(accounts.DeviceCookie); c == nil || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.MaxAge < 86400 {
			t.Fatalf("known-device cookie after sign-in: %+v", c)
		}
		want(t, known.get("/settings/keys"), http.StatusOK)
		signOut(known)

		// Another client at the same address uses up the forms' budget.
		guesser := newBrowser(t, s)
		guesser.get("/signin")
		for range 3 {
			want(t, guesser.submit("/signin", wrong), http.StatusUnauthorized)
		}
		want(t, guesser.submit("/signin", right), http.StatusTooManyRequests, "Too many failed attempts")
		stranger := newBrowser(t, s)
		stranger.get("/signin")
		want(t, stranger.submit("/signin", right), http.StatusTooManyRequests)

		// The known browser still signs in.
		want(t, known.get("/signin"), http.StatusOK)
		wantRedirect(t, known.submit("/signin", right), "/app")
		want(t, known.get("/settings/keys"), http.StatusOK)
		signOut(known)

		// Its cookie opens no other account, and a forged one opens nothing.
		known.get("/signin")
		want(t, known.submit("/signin", url.Values{"email": {other.Email}, "password": {other.Password}}), http.StatusTooManyRequests)
		forged := newBrowser(t, s)
		forged.get("/signin")
		u, _ := url.Parse(s.URL)
		forged.c.Jar.SetCookies(u, []*http.Cookie{{Name: accounts.DeviceCookie, Value: "AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}})
		want(t, forged.submit("/signin", right), http.StatusTooManyRequests)

		// Guessing from the known browser is limited by its own budget.
		for range 3 {
			want(t, known.submit("/signin", wrong), http.StatusUnauthorized)
		}
		want(t, known.submit("/signin", right), http.StatusTooManyRequests)

		// A password change ends the device tokens made with the old password.
		var token string
		for _, c := range known.c.Jar.Cookies(u) {
			if c.Name == accounts.DeviceCookie {
				token = c.Value
			}
		}
		ctx := context.Background()
		if _, ok := s.Accounts.KnownDevice(ctx, a.Email, token); !ok {
			t.Fatal("the known browser's token does not verify")
		}
		if _, ok := s.Accounts.KnownDevice(ctx, other.Email, token); ok {
			t.Fatal("the token verifies for another account")
		}
		if _, err := s.Accounts.ChangePassword(ctx, userID(t, s, a.Email), a.Password, "a brand new password"); err != nil {
			t.Fatal(err)
		}
		if _, ok := s.Accounts.KnownDevice(ctx, a.Email, token); ok {
			t.Fatal("the token still verifies after a password change")
		}
	}, apitest.AuthFailureLimit(3))
}
