package apitest

import (
	"context"
	"testing"

	"folio/modules/accounts"
	"folio/platform/auth"
)

// OpenSession signs u in to a web session (what the settings UI does after a password check).
func (s *Server) OpenSession(t testing.TB, u User) accounts.SignedIn {
	t.Helper()
	si, err := s.Accounts.OpenSession(context.Background(), accounts.User{ID: u.ID, Email: u.Email, Name: u.Name})
	if err != nil {
		t.Fatalf("open session: %v", err)
	}
	return si
}

// SessionHeader returns the request headers of a cookie-authenticated request: the folio_session
// cookie and, when csrf is not empty, the X-CSRF-Token header.
func SessionHeader(token, csrf string) map[string]string {
	h := map[string]string{"Cookie": auth.SessionCookie + "=" + token}
	if csrf != "" {
		h[auth.CSRFHeader] = csrf
	}
	return h
}

// KeyPrefix returns the 8-character prefix of a raw key (the CLI and RevokeKey take it).
func KeyPrefix(t testing.TB, raw string) string {
	t.Helper()
	prefix, _, err := auth.ParseKey(raw)
	if err != nil {
		t.Fatalf("not a key: %q", raw)
	}
	return prefix
}
