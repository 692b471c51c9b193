package httpx

import (
	"crypto/tls"
	"net/http/httptest"
	"testing"
)

// TestProxiesHTTPS: a request came over TLS when its own connection did, or when a trusted proxy
// (a CIDR or a plain address of FOLIO_TRUSTED_PROXIES, IPv4 or IPv4-mapped IPv6) says https in
// the first value of X-Forwarded-Proto; anyone else's X-Forwarded-Proto changes nothing.
func TestProxiesHTTPS(t *testing.T) {
	proxies := ParseProxies(TrustedProxies{"10.0.0.0/8", " 192.0.2.7 ", "2001:db8::/32", "not an address"})
	for _, tc := range []struct {
		name, remote, proto string
		tls                 bool
		trusts, https       bool
	}{
		{"plain HTTP, no proxy", "198.51.100.1:4000", "", false, false, false},
		{"TLS, no proxy", "198.51.100.1:4000", "", true, false, true},
		{"https from an untrusted peer", "198.51.100.1:4000", "https", false, false, false},
		{"https from a trusted network", "10.1.2.3:4000", "https", false, true, true},
		{"https from a trusted address", "192.0.2.7:4000", "HTTPS, http", false, true, true},
		{"https from the next address", "192.0.2.8:4000", "https", false, false, false},
		{"https from a trusted proxy as IPv4-mapped IPv6", "[::ffff:10.1.2.3]:4000", "https", false, true, true},
		{"https from a trusted IPv6 network", "[2001:db8::1]:4000", "https", false, true, true},
		{"http from a trusted proxy", "10.1.2.3:4000", "http", false, true, false},
		{"only the first value counts", "10.1.2.3:4000", "http, https", false, true, false},
		{"a peer without a port", "10.1.2.3", "https", false, true, true},
		{"a peer that is no address", "proxy:4000", "https", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/signin", nil)
			r.RemoteAddr = tc.remote
			if tc.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tc.proto)
			}
			if tc.tls {
				r.TLS = &tls.ConnectionState{}
			} else {
				r.TLS = nil
			}
			if got := proxies.Trusts(r); got != tc.trusts {
				t.Errorf("Trusts = %v, want %v", got, tc.trusts)
			}
			if got := proxies.HTTPS(r); got != tc.https {
				t.Errorf("HTTPS = %v, want %v", got, tc.https)
			}
		})
	}
	if r := httptest.NewRequest("GET", "/", nil); ParseProxies(nil).Trusts(r) {
		t.Error("no trusted proxies trust a peer")
	}
}
