package accounts

import (
	"fmt"
	"net/mail"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"folio/platform/auth"
)

// Invalid says which inputs break the account rules: the field's name ("email", "name",
// "password", "scope", "restriction", "expires") → what to do about it, written for a person. The
// service returns it with every broken rule at once; the CLI prints it, the settings forms show
// each message beside its field. Each rule is written here, once.
type Invalid map[string]string

func (e Invalid) Error() string {
	fields := make([]string, 0, len(e))
	for f := range e {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f + ": " + e[f]
	}
	return strings.Join(parts, "; ")
}

// orNil returns e, or nil when no rule is broken (so that err == nil reads as it should).
func (e Invalid) orNil() error {
	if len(e) == 0 {
		return nil
	}
	return e
}

// CheckNewUser applies the rules of a new account: a name of 1 to 200 characters, a plain email
// address, and a password of 8 to 256 characters unless it is empty (the CLI may create an account
// without one; the settings form requires it). The name and email are checked as CreateUser stores
// them (trimmed; the email lower-cased).
func CheckNewUser(email, name, password string) Invalid {
	inv := Invalid{}
	if msg := nameRule(strings.TrimSpace(name)); msg != "" {
		inv["name"] = msg
	}
	if msg := emailRule(NormalizeEmail(email)); msg != "" {
		inv["email"] = msg
	}
	if password != "" {
		if msg := PasswordRule(password); msg != "" {
			inv["password"] = msg
		}
	}
	return inv
}

func nameRule(name string) string {
	switch {
	case name == "":
		return "Enter your name."
	case utf8.RuneCountInString(name) > 200:
		return "Use at most 200 characters for your name."
	case !cleanText(name):
		return "Your name contains characters that cannot be stored."
	}
	return ""
}

func emailRule(email string) string {
	switch {
	case email == "":
		return "Enter your email address."
	case !ValidEmail(email):
		return "Enter an email address like name@example.com."
	}
	return ""
}

// PasswordRule applies the password rules to a new password: 8 to 256 characters. The upper bound
// keeps a sign-in from hashing a megabyte; it is far above what a password manager generates.
// It returns "" when the password is acceptable.
func PasswordRule(password string) string {
	switch n := utf8.RuneCountInString(password); {
	case n < 8:
		return "Use at least 8 characters for your password."
	case n > 256:
		return "Use at most 256 characters for your password."
	}
	return ""
}

// CheckNewKey applies the rules of a new key: a name of 1 to 100 characters (trimmed), a valid
// scope, and at most one restriction. Whether the user may use the workspace or notebook is the
// restriction check's (CreateKey asks it).
func CheckNewKey(in NewKey) Invalid {
	inv := Invalid{}
	switch name := strings.TrimSpace(in.Name); {
	case name == "":
		inv["name"] = "Enter a name for the key."
	case utf8.RuneCountInString(name) > 100:
		inv["name"] = "Use at most 100 characters for the name."
	case !cleanText(name):
		inv["name"] = "The name contains characters that cannot be stored."
	}
	if !auth.ValidScope(in.Scope) {
		inv["scope"] = "Choose what the key may do: read, write, or read and write."
	}
	if in.WorkspaceID != nil && in.NotebookID != nil {
		inv["restriction"] = "Restrict the key to a workspace or to a notebook, not both."
	}
	return inv
}

// MaxKeyLifetime is how far ahead a key's expiry may lie: 100 years (far beyond any real need,
// and well inside what both databases store).
const MaxKeyLifetime = 36500 * 24 * time.Hour

// ExpiryRule applies the rule of a new key's expiry: after now, and at most MaxKeyLifetime ahead.
// It returns "" when the expiry is acceptable.
func ExpiryRule(at, now time.Time) string {
	switch {
	case !at.After(now):
		return "Choose an expiry in the future."
	case at.Sub(now) > MaxKeyLifetime:
		return "Choose an expiry at most 100 years ahead."
	}
	return ""
}

var expiryDuration = regexp.MustCompile(`^([0-9]{1,6})([dhm])$`)

// ParseExpiry reads a key's expiry as `folio key create --expires` takes it (docs/cli.md, "Your first
// API key"): "never" or "" (the key does not expire); a whole number of days, hours or minutes
// from now ("90d", "12h", "45m"); a date, YYYY-MM-DD, at which the key stops working (00:00 UTC
// that day); or an RFC 3339 instant ("2027-01-01T09:00:00Z"). The result obeys ExpiryRule.
func ParseExpiry(s string, now time.Time) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "never") {
		return nil, nil
	}
	var at time.Time
	if m := expiryDuration.FindStringSubmatch(strings.ToLower(s)); m != nil {
		n, _ := strconv.Atoi(m[1])
		unit := map[string]time.Duration{"d": 24 * time.Hour, "h": time.Hour, "m": time.Minute}[m[2]]
		at = now.Add(time.Duration(n) * unit)
	} else if d, err := time.Parse(time.DateOnly, s); err == nil {
		at = d
	} else if t, err := time.Parse(time.RFC3339, s); err == nil {
		at = t
	} else {
		return nil, fmt.Errorf("%q is not an expiry: give a number of days, hours or minutes (90d, 12h, 45m), a date (YYYY-MM-DD, UTC) or never", s)
	}
	if msg := ExpiryRule(at, now); msg != "" {
		return nil, fmt.Errorf("%s: %s", s, strings.TrimSuffix(strings.ToLower(msg[:1])+msg[1:], "."))
	}
	at = at.UTC()
	return &at, nil
}

// ValidEmail reports whether email (after NormalizeEmail) is a plain address of at most 320
// characters that an account may have.
func ValidEmail(email string) bool {
	email = NormalizeEmail(email)
	addr, err := mail.ParseAddress(email)
	return err == nil && addr.Address == email && len(email) <= 320 && cleanText(email)
}

// cleanText reports whether s is UTF-8 without NUL (PostgreSQL stores neither).
func cleanText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }
