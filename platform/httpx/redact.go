package httpx

import (
	"regexp"
	"strings"
)

// keyInText finds what looks like an API key (auth.KeyLiteral, "svc_live_", then
// <prefix 8>_<secret 24> from [A-Za-z0-9]; httpx cannot import auth, which imports it): the
// literal in any case, then a run of letters, digits, '_' and '-', whatever its length, so that
// a truncated or mistyped key is caught too. Group 1 is the 8-character prefix when the run starts
// with one and goes on.
var keyInText = regexp.MustCompile(`(?i)svc_live_(?:([A-Za-z0-9]{8})_)?[A-Za-z0-9_\-]*`)

// feedInPath finds a calendar feed's token in a path: the address is the feed's credential
// (/api/v1/calendar/<token>.ics, CONTRACT.md section 21).
var feedInPath = regexp.MustCompile(`(?i)(/calendar/)[^/?#]+`)

// RedactKeys replaces every key-shaped part of s (a request path, a query) by `svc_live_` and
// the key's prefix, which is no secret (`folio key list` shows it) and tells an operator which key
// to rotate, followed by `_[REDACTED]`; and a calendar feed's token in a path by `[REDACTED]`.
func RedactKeys(s string) string {
	if strings.Contains(strings.ToLower(s), "/calendar/") {
		s = feedInPath.ReplaceAllString(s, "${1}[REDACTED]")
	}
	if !strings.Contains(strings.ToLower(s), "svc_live_") {
		return s
	}
	return keyInText.ReplaceAllStringFunc(s, func(m string) string {
		sub := keyInText.FindStringSubmatch(m)
		if sub[1] != "" {
			return "svc_live_" + sub[1] + "_[REDACTED]"
		}
		return "svc_live_[REDACTED]"
	})
}
