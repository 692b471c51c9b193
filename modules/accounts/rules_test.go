package accounts_test

import (
	"strings"
	"testing"
	"time"

	"folio/modules/accounts"
)

// TestParseExpiry: the forms --expires takes (docs/cli.md, "Your first API key"), and each kind of
// mistake with a message that says what is accepted or what is wrong.
func TestParseExpiry(t *testing.T) {
	now := time.Date(2031, 3, 1, 12, 30, 0, 0, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		in   string
		want time.Time // zero: never
	}{
		{"", time.Time{}},
		{"never", time.Time{}},
		{" Never ", time.Time{}},
		{"90d", now.Add(90 * 24 * time.Hour)},
		{"30D", now.Add(30 * 24 * time.Hour)},
		{"12h", now.Add(12 * time.Hour)},
		{"45m", now.Add(45 * time.Minute)},
		{"36500d", now.Add(accounts.MaxKeyLifetime)},
		{"2031-03-02", time.Date(2031, 3, 2, 0, 0, 0, 0, time.UTC)},
		{"2031-03-01T13:00:00+01:00", time.Date(2031, 3, 1, 12, 0, 0, 0, time.UTC)},
	} {
		got, err := accounts.ParseExpiry(tc.in, now)
		switch {
		case err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.want.IsZero() && got != nil:
			t.Errorf("%q: %v, want never", tc.in, got)
		case !tc.want.IsZero() && (got == nil || !got.Equal(tc.want) || got.Location() != time.UTC):
			t.Errorf("%q: %v, want %v in UTC", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"90", "not an expiry"},
		{"90 days", "not an expiry"},
		{"1w", "not an expiry"},
		{"-5d", "not an expiry"},
		{"1.5h", "not an expiry"},
		{"2031-02-30", "not an expiry"},
		{"31/12/2031", "not an expiry"},
		{"0d", "in the future"},
		{"0m", "in the future"},
		{"2031-03-01", "in the future"},
		{"2020-01-01", "in the future"},
		{"36501d", "100 years"},
		{"9999-12-31", "100 years"},
		{"9999999d", "not an expiry"},
	} {
		got, err := accounts.ParseExpiry(tc.in, now)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, %v; want one line saying %q", tc.in, got, err, tc.want)
		}
	}
}
