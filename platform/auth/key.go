// Package auth authenticates every API request (an API key in the Authorization header, or a
// signed-in web session's cookie), applies the per-user rate limit and the per-address limit on
// failed authentication, checks the key's scope against the method, and hands the handlers a
// Principal. Where users, keys and sessions are stored is the accounts module's business: it
// provides the Credentials interface this package declares.
package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"strings"
)

// Key shape: svc_live_<prefix 8>_<secret 24>, prefix and secret from [A-Za-z0-9].
const (
	KeyLiteral   = "svc_live_"
	PrefixLength = 8
	SecretLength = 24
	keyLength    = len(KeyLiteral) + PrefixLength + 1 + SecretLength
	alphabet     = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

// Scope bits.
const (
	ScopeRead      = 1
	ScopeWrite     = 2
	ScopeReadWrite = ScopeRead | ScopeWrite
)

// ValidScope reports whether s is 1, 2 or 3.
func ValidScope(s int) bool { return s >= ScopeRead && s <= ScopeReadWrite }

// NewKey returns a fresh raw key and its two parts. Both parts come from crypto/rand with
// rejection sampling, so every character of the 62-letter alphabet is equally likely (24 secret
// characters are about 143 bits).
func NewKey() (raw, prefix, secret string) {
	prefix = randomString(PrefixLength)
	secret = randomString(SecretLength)
	return KeyLiteral + prefix + "_" + secret, prefix, secret
}

func randomString(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, n*2)
	for len(out) < n {
		_, _ = rand.Read(buf)
		for _, b := range buf {
			// 248 = 4*62: bytes at or above it would bias the first letters.
			if b < 248 && len(out) < n {
				out = append(out, alphabet[int(b)%len(alphabet)])
			}
		}
	}
	return string(out)
}

var errKeyShape = errors.New("key does not have the shape svc_live_<8>_<24>")

// ParseKey splits a raw key into its prefix and secret, checking the exact shape.
func ParseKey(raw string) (prefix, secret string, err error) {
	if len(raw) != keyLength || !strings.HasPrefix(raw, KeyLiteral) || raw[len(KeyLiteral)+PrefixLength] != '_' {
		return "", "", errKeyShape
	}
	prefix = raw[len(KeyLiteral) : len(KeyLiteral)+PrefixLength]
	secret = raw[len(KeyLiteral)+PrefixLength+1:]
	if !ValidPrefix(prefix) || !alnum(secret) {
		return "", "", errKeyShape
	}
	return prefix, secret, nil
}

// ValidPrefix reports whether s has the shape of a key's prefix: PrefixLength letters and digits,
// the part of a key that names it and is no secret (a key's pages and the CLI take it).
func ValidPrefix(s string) bool { return len(s) == PrefixLength && alnum(s) }

// PrefixOf reads a key's prefix written either way people write it: its PrefixLength characters,
// or its display prefix (KeyLiteral and those characters). ok is false for anything else.
func PrefixOf(s string) (prefix string, ok bool) {
	prefix = strings.TrimPrefix(s, KeyLiteral)
	return prefix, ValidPrefix(prefix)
}

func alnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// DisplayPrefix is the public part of a key: "svc_live_" and its 8-character prefix.
func DisplayPrefix(prefix string) string { return KeyLiteral + prefix }

// Hasher hashes secrets: HMAC-SHA-256 with the configured pepper, or plain SHA-256 without one.
// The secrets are 143-bit random strings, so a fast hash is enough (no password stretching needed);
// the pepper means a stolen database alone does not let anyone check a guessed key offline.
type Hasher struct{ pepper []byte }

// NewHasher returns a Hasher for the given pepper (may be empty).
func NewHasher(pepper string) Hasher { return Hasher{pepper: []byte(pepper)} }

// Hash returns the stored form of a secret.
func (h Hasher) Hash(secret string) []byte {
	if len(h.pepper) == 0 {
		sum := sha256.Sum256([]byte(secret))
		return sum[:]
	}
	m := hmac.New(sha256.New, h.pepper)
	m.Write([]byte(secret))
	return m.Sum(nil)
}

// Equal compares a secret with a stored hash in constant time.
func (h Hasher) Equal(secret string, stored []byte) bool {
	if len(h.pepper) == 0 { // Hash's plain SHA-256, summed on the stack: every API request checks a key
		sum := sha256.Sum256([]byte(secret))
		return subtle.ConstantTimeCompare(sum[:], stored) == 1
	}
	return subtle.ConstantTimeCompare(h.Hash(secret), stored) == 1
}
