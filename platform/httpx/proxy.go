package httpx

import (
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
	nets := parsePrefixes(trusted)
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
			if !contains(nets, peer) {
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

// parsePrefixes reads FOLIO_TRUSTED_PROXIES' entries (CIDRs or plain addresses, as gin takes
// them; gin has already refused anything else).
func parsePrefixes(entries []string) []netip.Prefix {
	var out []netip.Prefix
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if p, err := netip.ParsePrefix(e); err == nil {
			out = append(out, p.Masked())
		} else if a, err := netip.ParseAddr(e); err == nil {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
		}
	}
	return out
}

func contains(nets []netip.Prefix, a netip.Addr) bool {
	for _, p := range nets {
		if p.Contains(a) {
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
