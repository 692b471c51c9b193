package auth_test

import (
	"testing"

	"folio/platform/auth"
)

// TestClientNetwork: the failure limits count an IPv4 client per address and an IPv6 client per
// /64, so that the addresses of one IPv6 network share one budget (and one limiter entry).
func TestClientNetwork(t *testing.T) {
	for _, tc := range []struct{ ip, want string }{
		{"203.0.113.7", "203.0.113.7"},
		{"::ffff:203.0.113.7", "203.0.113.7"},
		{"2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"},
		{"2001:db8:1:2::1", "2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", "2001:db8:1:3::/64"},
		{"fe80::1%eth0", "fe80::/64"},
		{"::1", "::/64"},
		{"not an address", "not an address"},
	} {
		if got := auth.ClientNetwork(tc.ip); got != tc.want {
			t.Errorf("ClientNetwork(%q) = %q, want %q", tc.ip, got, tc.want)
		}
	}
	if auth.FailureKey("2001:db8:1:2::1") != auth.FailureKey("2001:db8:1:2:ffff::9") {
		t.Error("two addresses of one /64 have separate API failure budgets")
	}
	if auth.FormFailureKey("2001:db8:1:2::1") == auth.FormFailureKey("2001:db8:1:3::1") {
		t.Error("two /64 networks share a form failure budget")
	}
	if auth.FailureKey("203.0.113.7") == auth.FailureKey("203.0.113.8") {
		t.Error("two IPv4 addresses share a failure budget")
	}
}
