// Package webhooks delivers the change feed's events to subscribers' URLs (CONTRACT.md section
// 18): the management endpoints, the delivery queue (River, in folio's own database), the
// Standard Webhooks signature (checked in tests by the npm standardwebhooks package, an
// independent implementation) and the SSRF guard.
package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// secretPrefix starts every signing secret (Standard Webhooks' convention).
const secretPrefix = "whsec_"

// NewSecret returns a signing secret: whsec_ and the standard base64 of 32 random bytes.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return secretPrefix + base64.StdEncoding.EncodeToString(b)
}

var errSecret = errors.New("webhooks: a signing secret is whsec_ and base64")

// Headers returns the Standard Webhooks headers of a delivery of body: webhook-id (the event id),
// webhook-timestamp (Unix seconds) and webhook-signature, "v1," and the base64 HMAC-SHA256 of
// "<id>.<timestamp>.<body>" keyed by the secret's decoded bytes.
func Headers(secret, id string, at time.Time, body []byte) (map[string]string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil || !strings.HasPrefix(secret, secretPrefix) {
		return nil, errSecret
	}
	ts := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	return map[string]string{
		"webhook-id":        id,
		"webhook-timestamp": ts,
		"webhook-signature": "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)),
	}, nil
}
