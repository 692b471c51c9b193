package accounts

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// DeviceCookie names the known-device cookie: a browser that has signed in to an account keeps
// a token that lets it try that account's password even while its network address is over the
// forms' failure limit (OWASP's "device cookie"), so that one client behind a shared address (a
// proxy, a NAT) failing sign-ins does not lock everyone else behind it out.
const DeviceCookie = "folio_device"

// DeviceCookieMaxAge is how long a browser stays a known device (a year, in seconds).
const DeviceCookieMaxAge = 365 * 24 * 60 * 60

// deviceToken returns a new known-device token for u: a random nonce and an HMAC-SHA-256 of the
// user's id and the nonce, keyed by the user's stored password hash. Nothing is stored: the token
// verifies against the account it was made for, and only until its password changes. It is empty
// for an account without a password.
func deviceToken(u User) string {
	if u.PasswordHash == "" {
		return ""
	}
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce)
	n := base64.RawURLEncoding.EncodeToString(nonce)
	return n + "." + deviceMAC(u, n)
}

func deviceMAC(u User, nonce string) string {
	m := hmac.New(sha256.New, []byte(u.PasswordHash))
	m.Write([]byte("folio-device\x00" + u.ID + "\x00" + nonce))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// KnownDevice reports whether token is a known-device token of the account with this email (made
// since its last password change). It returns the token's nonce, which names the device's own
// budget of failed attempts. A lookup error is "no".
func (s *Service) KnownDevice(ctx context.Context, email, token string) (string, bool) {
	nonce, mac, ok := strings.Cut(token, ".")
	if !ok || len(nonce) != 22 || len(mac) != 43 || !cleanText(email) || len(email) > 320 {
		return "", false
	}
	u, err := s.store.userByEmail(ctx, NormalizeEmail(email))
	if err != nil || u.PasswordHash == "" {
		return "", false
	}
	if !hmac.Equal([]byte(mac), []byte(deviceMAC(u, nonce))) {
		return "", false
	}
	return nonce, true
}
