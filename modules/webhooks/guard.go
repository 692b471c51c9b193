package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// Timeout bounds one delivery attempt: connect, send, and the receiver's answer.
const Timeout = 10 * time.Second

// Guard keeps deliveries away from the server's own network (SSRF): a webhook URL must be https
// and must not reach a loopback, private, link-local, unique-local or otherwise non-public
// address. The URL is checked when a webhook is created (CheckURL) and the address is checked
// again at every connection (Control, run by the dialer on the address it is about to connect
// to), so a name that resolved to a public address at creation and to 127.0.0.1 later (DNS
// rebinding) is refused. AllowInsecure (FOLIO_WEBHOOK_ALLOW_INSECURE) also accepts http;
// AllowPrivate (FOLIO_WEBHOOK_ALLOW_PRIVATE) accepts any address: for tests and local setups.
type Guard struct {
	AllowInsecure bool
	AllowPrivate  bool
	// Resolver looks names up (nil: net.DefaultResolver).
	Resolver *net.Resolver
}

// ErrBlocked says that an address is not a public one.
var ErrBlocked = errors.New("webhooks: the address is not a public one (loopback, private, link-local, unique-local or reserved)")

// nonPublic are the ranges netip's predicates do not name: shared address space (carrier-grade
// NAT), "this network", IETF protocol assignments, benchmarking, reserved, and NAT64.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
}

// Public reports whether a is an address deliveries may reach.
func Public(a netip.Addr) bool {
	a = a.Unmap() // ::ffff:127.0.0.1 is 127.0.0.1
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// CheckURL validates a webhook URL: scheme, host, and every address its host resolves to.
func (g Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("webhooks: not an absolute URL")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && g.AllowInsecure:
	default:
		return fmt.Errorf("webhooks: the URL must be https")
	}
	if u.User != nil {
		return fmt.Errorf("webhooks: the URL must not carry credentials")
	}
	if g.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		if !Public(a) {
			return ErrBlocked
		}
		return nil
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return fmt.Errorf("webhooks: the host does not resolve")
	}
	for _, a := range addrs {
		if !Public(a) {
			return ErrBlocked
		}
	}
	return nil
}

// Control is the dialer's check of the address it is about to connect to (net.Dialer.Control).
func (g Guard) Control(_, address string, _ syscall.RawConn) error {
	if g.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !Public(ap.Addr()) {
		return ErrBlocked
	}
	return nil
}

// Client is the HTTP client of deliveries: every connection passes Control, no proxy (a proxy
// would connect on the client's behalf, past Control), redirects are not followed (a 3xx is the
// receiver's answer, and not a 2xx), and an attempt ends after Timeout.
func (g Guard) Client() *http.Client {
	dialer := &net.Dialer{Timeout: Timeout, Control: g.Control}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   Timeout,
		ResponseHeaderTimeout: Timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Timeout:       Timeout,
		Transport:     transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
