package httpx

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"go.uber.org/zap"
)

// proxyWarnInterval is how often, at most, the warning about an untrusted peer's X-Forwarded-For
// is logged per peer.
const proxyWarnInterval = time.Minute

// untrustedProxyWarning logs a warning, at most once a minute per peer, when a request carries
// X-Forwarded-For (or X-Real-IP) from a peer that FOLIO_TRUSTED_PROXIES does not list. The header
// is then ignored (gin believes it only from trusted proxies), which is right for a client that
// forges it, and wrong for folio's own reverse proxy: every client behind it then has the proxy's
// address, in the access log and in the per-address limit on failed authentications. The
// warning tells the operator which setting to make.
func untrustedProxyWarning(log *zap.Logger, trusted TrustedProxies) gin.HandlerFunc {
	proxies := ParseProxies(trusted)
	w := &peerThrottle{every: proxyWarnInterval, last: map[netip.Addr]time.Time{}}
	return func(c *gin.Context) {
		h := c.Request.Header
		header := "X-Forwarded-For"
		if h.Get(header) == "" {
			header = "X-Real-IP"
		}
		if h.Get(header) == "" {
			c.Next()
			return
		}
		peer, err := netip.ParseAddr(c.RemoteIP())
		if err == nil {
			peer = peer.Unmap()
			if !proxies.contains(peer) {
				if n, ok := w.allow(peer, time.Now()); ok {
					log.Warn("X-Forwarded-For (or X-Real-IP) from a peer that is not a trusted proxy is ignored: if this peer is "+
						"folio's reverse proxy, list it in FOLIO_TRUSTED_PROXIES, or every client behind it shares "+
						"the proxy's address (access log, limit on failed authentications)",
						zap.String("peer", peer.String()), zap.String("header", header), zap.Int("requestsSinceLastWarning", n))
				}
			}
		}
		c.Next()
	}
}

// Proxies are FOLIO_TRUSTED_PROXIES parsed (ParseProxies): the peers whose forwarding headers
// (X-Forwarded-For, X-Real-IP, X-Forwarded-Proto) are believed. gin decides the client's address
// from the same list (Engine.SetTrustedProxies); what gin does not read, the warning below and
// whether a request came over TLS (HTTPS), is read here, once.
type Proxies struct{ nets []netip.Prefix }

// ParseProxies reads FOLIO_TRUSTED_PROXIES' entries (CIDRs or plain addresses, as gin takes
// them; gin has already refused anything else, so an entry that is neither is skipped).
func ParseProxies(entries TrustedProxies) Proxies {
	var p Proxies
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if n, err := netip.ParsePrefix(e); err == nil {
			p.nets = append(p.nets, n.Masked())
		} else if a, err := netip.ParseAddr(e); err == nil {
			p.nets = append(p.nets, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
		}
	}
	return p
}

// Trusts reports whether the request's peer (the other end of its connection, not what any header
// claims) is a trusted proxy.
func (p Proxies) Trusts(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	return err == nil && p.contains(a.Unmap())
}

// HTTPS reports whether the request came over TLS: directly, or through a trusted proxy whose
// X-Forwarded-Proto (its first value) says https. Anyone else's X-Forwarded-Proto is ignored.
func (p Proxies) HTTPS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	return strings.EqualFold(strings.TrimSpace(proto), "https") && p.Trusts(r)
}

// Origin is the scheme and host a client reached the server at ("https://folio.example.com"),
// for the addresses a response writes out absolute (a calendar feed's links to the web pages):
// https when HTTPS says so, and the request's Host, which a reverse proxy passes on.
func (p Proxies) Origin(r *http.Request) string {
	scheme := "http"
	if p.HTTPS(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (p Proxies) contains(a netip.Addr) bool {
	for _, n := range p.nets {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// peerThrottle lets one event per peer through per interval and counts the others. Its memory is
// bounded: past peerThrottleMax peers it starts over (a warning may then repeat sooner).
type peerThrottle struct {
	mu    sync.Mutex
	every time.Duration
	last  map[netip.Addr]time.Time
	count map[netip.Addr]int
}

const peerThrottleMax = 4096

func (t *peerThrottle) allow(peer netip.Addr, now time.Time) (int, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.count == nil || len(t.last) >= peerThrottleMax {
		t.last, t.count = map[netip.Addr]time.Time{}, map[netip.Addr]int{}
	}
	t.count[peer]++
	if last, ok := t.last[peer]; ok && now.Sub(last) < t.every {
		return 0, false
	}
	n := t.count[peer]
	t.last[peer], t.count[peer] = now, 0
	return n, true
}
