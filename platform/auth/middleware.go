package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"math"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"go.uber.org/zap"

	"folio/platform/apierr"
	"folio/platform/clock"
	"folio/platform/httpx"
	"folio/platform/ratelimit"
)

// SessionCookie is the name of the web session cookie.
const SessionCookie = "folio_session"

// CSRFHeader carries the session's CSRF token on cookie-authenticated writes.
const CSRFHeader = "X-CSRF-Token"

// Guard is the API middleware: authentication, rate limit, scope.
type Guard struct {
	Credentials  Credentials
	Restrictions RestrictionChecker
	Hasher       Hasher
	Cache        *Cache
	UserLimit    ratelimit.Limiter // per user, shared by the session and every key
	FailureLimit ratelimit.Limiter // per client address, counts failed authentications
	Clock        clock.Clock
	Log          *zap.Logger
	// Observer is told of every failed authentication and every rate-limit decision (the metrics
	// count them); nil tells nobody.
	Observer Observer
}

// Observer hears the guard's verdicts. Its methods are called on the request's goroutine and
// must not block.
type Observer interface {
	// AuthFailed is called once per request refused as unauthenticated (401, or 429 when the
	// address is over its budget of failures), with one of the Failure* reasons.
	AuthFailed(reason string)
	// RateLimitDecided is called once per decision of a limiter (LimiterUser or
	// LimiterAuthFailure); a limiter that could not decide (an error) is not reported.
	RateLimitDecided(limiter string, allowed bool)
}

// The reasons an authentication fails, as the Observer hears them: a small fixed set, so a metric
// labelled with them stays small.
const (
	FailureMissing     = "missing"      // no Authorization header and no session cookie (or no header where only keys count)
	FailureMalformed   = "malformed"    // an Authorization header that is not "Bearer <API key>", or a key of the wrong form
	FailureInvalid     = "invalid"      // an unknown key or session, or a wrong secret
	FailureExpired     = "expired"      // an expired key or session
	FailureRevoked     = "revoked"      // a revoked key
	FailureCrossOrigin = "cross_origin" // a session cookie sent from another origin
)

// The limiters the Observer hears of.
const (
	LimiterUser        = "user"         // the per-user budget of accepted requests
	LimiterAuthFailure = "auth_failure" // the per-address budget of failed authentications
)

// refusal is a 401 together with the reason the Observer hears; errors.Is and errors.As see the
// *apierr.Error it wraps, so the response is the same.
type refusal struct {
	reason string
	err    error
}

func (r refusal) Error() string { return r.err.Error() }
func (r refusal) Unwrap() error { return r.err }

func refuse(reason string, err error) error { return refusal{reason: reason, err: err} }

// failureReason is the reason of a refusal made by refuse; FailureInvalid for any other 401.
func failureReason(err error) string {
	var r refusal
	if errors.As(err, &r) {
		return r.reason
	}
	return FailureInvalid
}

func (g *Guard) authFailed(reason string) {
	if g.Observer != nil {
		g.Observer.AuthFailed(reason)
	}
}

func (g *Guard) rateLimitDecided(limiter string, allowed bool) {
	if g.Observer != nil {
		g.Observer.RateLimitDecided(limiter, allowed)
	}
}

// FailureKey is the failure limiter's key for a client address's failed API authentications
// (keys and session cookies).
func FailureKey(clientIP string) string { return "authfail:" + ClientNetwork(clientIP) }

// ClientNetwork is the client address the failure limits count per: an IPv4 address itself, and
// for IPv6 its /64 network, which one host or one home is given whole (RFC 4291's interface
// identifiers, SLAAC privacy addresses): counted per full IPv6 address, one client could try keys
// from 2^64 addresses, each with a fresh budget, and each a key the limiter holds in memory for
// two minutes. IPv4 inside IPv6 (::ffff:a.b.c.d) counts as the IPv4 address. Anything that does
// not parse is used as it is.
func ClientNetwork(clientIP string) string {
	addr, err := netip.ParseAddr(clientIP)
	if err != nil {
		return clientIP
	}
	addr = addr.Unmap()
	if addr.Is4() {
		return addr.String()
	}
	return netip.PrefixFrom(addr.WithZone(""), 64).Masked().String()
}

// FormFailureKey is the failure limiter's key for a client address's failed attempts on the
// settings UI's forms (sign-in, sign-up with a taken email, a wrong current password). It is a
// budget of its own: passwords are guessable where keys and session tokens are not, so over the
// limit a form does not even check the password, and bad API keys sent through a shared proxy
// must not lock everybody out of signing in.
func FormFailureKey(clientIP string) string { return "formfail:" + ClientNetwork(clientIP) }

// HashSessionToken returns the stored form of a session token.
func HashSessionToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// Middleware returns the gin handler. The order of checks is CONTRACT.md section 6's: 401, then
// 429, then 403 INSUFFICIENT_SCOPE; request shape, access and existence are the handlers' part.
func (g *Guard) Middleware() gin.HandlerFunc {
	return func(c *gin.Context) {
		p, ok := g.admit(c)
		if !ok {
			return
		}
		if !p.Can(requiredScope(c.Request.Method)) {
			httpx.Fail(c, apierr.ErrInsufficient)
			return
		}
		WithPrincipal(c, p)
		c.Next()
	}
}

// KeyMiddleware guards an endpoint that only API keys may use and that checks scopes per operation
// itself: the MCP server at /mcp, where every request is a POST and which tools a key may call
// depends on its scope. The key is authenticated, failures are counted and the per-user rate limit
// is applied exactly as by Middleware (the same budget); a session cookie is not accepted, and the
// method is not compared with the scope.
func (g *Guard) KeyMiddleware() gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.GetHeader("Authorization") == "" {
			g.authFailed(FailureMissing)
			challenge(c, errKeyRequired)
			httpx.Fail(c, errKeyRequired)
			return
		}
		p, ok := g.admit(c)
		if !ok {
			return
		}
		WithPrincipal(c, p)
		c.Next()
	}
}

// errKeyRequired refuses a request to a key-only endpoint without an Authorization header (a
// session cookie does not count). Like a request without any credential, it is not counted as a
// failed authentication.
var errKeyRequired = apierr.ErrUnauthenticated.WithMessage("this endpoint takes API keys only; send Authorization: Bearer <API key>")

// admit authenticates the request and applies the per-user rate limit. When it returns false it
// has failed the request with the refusal.
func (g *Guard) admit(c *gin.Context) (*Principal, bool) {
	p, err := g.authenticate(c)
	if err != nil {
		challenge(c, err)
		httpx.Fail(c, err)
		return nil, false
	}
	httpx.SetUserID(c, p.UserID)
	if err := g.limit(c, p.UserID); err != nil {
		httpx.Fail(c, err)
		return nil, false
	}
	return p, true
}

// challenge adds RFC 9110's challenge to a 401 (CONTRACT.md section 25), on /api/v1 and /mcp
// alike: `Bearer realm="folio"`, with `error="invalid_token"` (RFC 6750) when a credential (an
// Authorization header or the session cookie) was sent and refused. MCP clients read a bare 401
// as "start OAuth"; the challenge says a bearer token is what is wanted.
func challenge(c *gin.Context, err error) {
	if apierr.From(err).Status != http.StatusUnauthorized {
		return
	}
	v := `Bearer realm="folio"`
	if cookie, cerr := c.Cookie(SessionCookie); c.GetHeader("Authorization") != "" || (cerr == nil && cookie != "") {
		v += `, error="invalid_token"`
	}
	c.Header("WWW-Authenticate", v)
}

func requiredScope(method string) int {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return ScopeRead
	default:
		return ScopeWrite
	}
}

// authenticate resolves the principal. Failed authentications count against the client address;
// once the address is over its limit, a request that fails gets 429 instead of 401 (and is not
// counted). The budget is consulted only on failure: a valid key or session is never refused
// because other clients behind the same address (a proxy that is not in FOLIO_TRUSTED_PROXIES, a
// NAT) sent bad ones. Checking a guess over the limit tells the guesser nothing useful: a key's
// secret is 24 random characters (about 143 bits), and a wrong one gets 429 like every other
// attempt over the limit.
func (g *Guard) authenticate(c *gin.Context) (*Principal, error) {
	header := c.GetHeader("Authorization")
	cookie, cookieErr := c.Cookie(SessionCookie)
	if header == "" && (cookieErr != nil || cookie == "") {
		g.authFailed(FailureMissing)
		return nil, apierr.ErrUnauthenticated.WithMessage("the Authorization header is missing; send Authorization: Bearer <API key>")
	}
	var (
		p   *Principal
		err error
	)
	if header != "" { // an Authorization header wins over the cookie
		p, err = g.fromKey(c.Request.Context(), header)
	} else if CrossOrigin(c.Request) {
		// Not a failed authentication (nothing was guessed): it is not counted against the
		// address, but the Observer hears of it.
		g.authFailed(FailureCrossOrigin)
		return nil, errCookieCrossOrigin
	} else {
		p, err = g.fromSession(c, cookie)
	}
	if err == nil {
		return p, nil
	}
	if errors.Is(err, apierr.ErrUnauthenticated) {
		if over := g.countFailure(c, failureReason(err)); over != nil {
			return nil, over
		}
	}
	return nil, err
}

// countFailure counts a failed authentication against the client address (the Observer hears
// reason) and returns 429 RATE_LIMIT_EXCEEDED once the address is over its budget, else nil.
func (g *Guard) countFailure(c *gin.Context, reason string) error {
	g.authFailed(reason)
	d, err := g.FailureLimit.Allow(c.Request.Context(), FailureKey(c.ClientIP()))
	if err != nil {
		return nil
	}
	g.rateLimitDecided(LimiterAuthFailure, d.Allowed)
	if !d.Allowed {
		return apierr.ErrRateLimited.WithMessage("too many failed authentications from this address; retry after 60 seconds")
	}
	return nil
}

// A carrier whose address is its credential (a calendar feed: the token in its path, CONTRACT.md
// section 21) is served outside the API group, without Middleware, and asks the guard for what it
// applies around authentication: Refused when the secret names nothing live, Served when it does.

// Refused counts a request whose secret named nothing live (an unknown token, or one whose
// credential is dead) as a failed authentication of its client address, as a wrong key is
// counted (reason: one of the Failure* reasons), and returns err, or 429 RATE_LIMIT_EXCEEDED once
// the address is over its budget.
func (g *Guard) Refused(c *gin.Context, reason string, err error) error {
	if over := g.countFailure(c, reason); over != nil {
		return over
	}
	return err
}

// Served applies to a request that a held credential of userID serves the per-user rate limit
// every API request of the user counts against, with its headers; 429 RATE_LIMIT_EXCEEDED over it.
func (g *Guard) Served(c *gin.Context, userID string) error {
	httpx.SetUserID(c, userID)
	return g.limit(c, userID)
}

func (g *Guard) fromKey(ctx context.Context, header string) (*Principal, error) {
	scheme, raw, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, refuse(FailureMalformed, apierr.ErrUnauthenticated.WithMessage("the Authorization header must be \"Bearer <API key>\""))
	}
	prefix, secret, err := ParseKey(strings.TrimSpace(raw))
	if err != nil {
		return nil, refuse(FailureMalformed, apierr.ErrUnauthenticated.WithMessage("the API key is invalid"))
	}
	now := g.Clock.Now()
	if neg, ok := g.Cache.getNegative(prefix, now); ok {
		return nil, keyRefusal(neg)
	}
	entry, hit := g.Cache.get("k:"+prefix, now)
	if !hit {
		rec, err := g.Credentials.KeyByPrefix(ctx, prefix)
		if errors.Is(err, ErrNoCredential) {
			g.Cache.putNegative(prefix, negativeEntry{}, now)
			return nil, keyRefusal(negativeEntry{})
		}
		if err != nil {
			return nil, err
		}
		if neg := (negativeEntry{revoked: rec.Revoked, expired: expired(rec.ExpiresAt, now)}); neg.revoked || neg.expired {
			g.Cache.putNegative(prefix, neg, now)
			return nil, keyRefusal(neg)
		}
		entry = cacheEntry{
			keyExpires: rec.ExpiresAt,
			secretHash: rec.SecretHash,
			principal: Principal{
				Credential: CredentialKey, UserID: rec.UserID, Scope: rec.Scope, KeyID: rec.ID, KeyName: rec.Name,
				KeyPrefix: DisplayPrefix(rec.Prefix), WorkspaceID: rec.WorkspaceID, NotebookID: rec.NotebookID,
			},
		}
		if rec.WorkspaceID != nil || rec.NotebookID != nil {
			entry.restrictionErr = g.Restrictions.CheckRestriction(ctx, rec.UserID, rec.WorkspaceID, rec.NotebookID)
			var ae *apierr.Error
			if entry.restrictionErr != nil && !errors.As(entry.restrictionErr, &ae) {
				return nil, entry.restrictionErr // a database failure is not a verdict: do not cache it
			}
		}
		g.Cache.put("k:"+prefix, entry, now)
		g.touch(rec.ID, now)
	}
	// The secret is checked on every request, cached or not: the cache maps a prefix to a hash,
	// never to "accepted".
	if !g.Hasher.Equal(secret, entry.secretHash) {
		return nil, apierr.ErrUnauthenticated.WithMessage("the API key is invalid")
	}
	// Checked on every request, cached or not: the entry was made before the key expired.
	if expired(entry.keyExpires, now) {
		return nil, keyRefusal(negativeEntry{expired: true})
	}
	if entry.restrictionErr != nil {
		return nil, entry.restrictionErr
	}
	p := entry.principal
	return &p, nil
}

// errCookieCrossOrigin refuses a session cookie on a request a browser sent from another origin.
var errCookieCrossOrigin = apierr.ErrUnauthenticated.WithMessage(
	"session cookies are not accepted on cross-origin requests; send Authorization: Bearer <API key>")

// CrossOrigin reports whether a browser sent r from a page of another origin (CONTRACT.md section
// 11: cookies are never accepted cross-origin, whatever FOLIO_CORS_ORIGINS says, for reads as well
// as writes). It follows the rule of net/http's CrossOriginProtection, applied to every method: the
// browser's Sec-Fetch-Site when sent ("same-origin" and "none", a typed URL or a bookmark, are not
// cross-origin; "same-site" is, since a sibling subdomain is another origin), otherwise the Origin
// header's host against the request's Host ("null", sent by sandboxed frames and file: pages,
// is another origin). A request with neither header is not a browser's cross-origin request:
// browsers without Sec-Fetch-Site still send Origin on every cross-origin request that can carry
// a cookie to the API (fetch, XHR) and on form posts.
func CrossOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none":
		return false
	case "":
	default:
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	u, err := url.Parse(origin)
	return err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host)
}

// keyRefusal is the 401 for an unknown, a revoked or an expired key.
func keyRefusal(neg negativeEntry) error {
	switch {
	case neg.revoked:
		return refuse(FailureRevoked, apierr.ErrUnauthenticated.WithMessage("the API key has been revoked"))
	case neg.expired:
		return refuse(FailureExpired, apierr.ErrUnauthenticated.WithMessage("the API key has expired"))
	}
	return refuse(FailureInvalid, apierr.ErrUnauthenticated.WithMessage("the API key is invalid"))
}

// expired reports whether an expiry (nil: never) has passed at now.
func expired(at *time.Time, now time.Time) bool { return at != nil && !now.Before(*at) }

// touch records the key's last use without holding up the request.
func (g *Guard) touch(keyID string, at time.Time) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := g.Credentials.TouchKey(ctx, keyID, at); err != nil {
			g.Log.Warn("could not record key use", zap.Error(err))
		}
	}()
}

func (g *Guard) fromSession(c *gin.Context, token string) (*Principal, error) {
	hash := HashSessionToken(token)
	now := g.Clock.Now()
	entry, hit := g.Cache.get("s:"+string(hash), now)
	if !hit {
		rec, err := g.Credentials.SessionByTokenHash(c.Request.Context(), hash)
		if errors.Is(err, ErrNoCredential) {
			return nil, apierr.ErrUnauthenticated.WithMessage("the session is invalid or has ended; sign in again")
		}
		if err != nil {
			return nil, err
		}
		entry = cacheEntry{
			sessionCSRF:    rec.CSRFToken,
			sessionExpires: rec.ExpiresAt,
			principal:      SessionPrincipal(rec.UserID, rec.ID),
		}
		g.Cache.put("s:"+string(hash), entry, now)
	}
	// Checked on every request, cached or not: a cache entry may outlive the session by its TTL.
	if !now.Before(entry.sessionExpires) {
		return nil, refuse(FailureExpired, apierr.ErrUnauthenticated.WithMessage("the session has expired; sign in again"))
	}
	if requiredScope(c.Request.Method) == ScopeWrite {
		sent := c.GetHeader(CSRFHeader)
		if sent == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(entry.sessionCSRF)) != 1 {
			return nil, apierr.ErrCSRF
		}
	}
	p := entry.principal
	return &p, nil
}

// limit applies the per-user rolling-window limit and sets the limit headers.
func (g *Guard) limit(c *gin.Context, userID string) error {
	d, err := g.UserLimit.Allow(c.Request.Context(), "user:"+userID)
	if err != nil {
		return apierr.ErrUnavailable.WithMessage("the rate limiter is unavailable").Wrap(err)
	}
	g.rateLimitDecided(LimiterUser, d.Allowed)
	setRateLimitHeaders(c.Writer.Header(), d, RateLimitWindow, g.Clock.Now())
	if !d.Allowed {
		return apierr.ErrRateLimited
	}
	return nil
}

// RateLimitWindow is the rolling window of both limits, per user and per address of failed
// authentications (CONTRACT.md section 8: per minute); the w of RateLimit-Policy.
const RateLimitWindow = 60 * time.Second

// RateLimitHeaders returns the IETF draft headers (draft-ietf-httpapi-ratelimit-headers) that
// CONTRACT.md section 11 asks for beside X-RateLimit-*: RateLimit-Policy `"default";q=<limit>;w=<window
// seconds>` and RateLimit `"default";r=<remaining>;t=<seconds>`. t is the time until the oldest
// counted request leaves the window (the moment of X-RateLimit-Reset), rounded up so that a client
// that waits t seconds is never early, and 0 when nothing is counted.
func RateLimitHeaders(d ratelimit.Decision, window time.Duration, now time.Time) (policy, state string) {
	return string(appendPolicy(nil, d, window)), string(appendState(nil, d, now))
}

func appendPolicy(b []byte, d ratelimit.Decision, window time.Duration) []byte {
	b = append(b, `"default";q=`...)
	b = strconv.AppendInt(b, int64(d.Limit), 10)
	b = append(b, ";w="...)
	return strconv.AppendInt(b, int64(window/time.Second), 10)
}

func appendState(b []byte, d ratelimit.Decision, now time.Time) []byte {
	t := 0
	if d.Remaining < d.Limit { // something is counted: this request, or the ones that filled the window
		t = max(0, int(math.Ceil(d.Reset.Sub(now).Seconds())))
	}
	b = append(b, `"default";r=`...)
	b = strconv.AppendInt(b, int64(d.Remaining), 10)
	b = append(b, ";t="...)
	return strconv.AppendInt(b, int64(t), 10)
}

// rateLimitHeaderNames are the limit's five headers as http.Header keeps them: in textproto's
// canonical form, which is what Header.Set made of X-RateLimit-Limit and RateLimit-Policy
// (X-Ratelimit-Limit, Ratelimit-Policy) and what net/http sends. Stored under these keys directly,
// they are not canonicalized again on every API response.
var rateLimitHeaderNames = [...]string{"X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset", "Ratelimit-Policy", "Ratelimit"}

// setRateLimitHeaders sets X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset,
// RateLimit-Policy and RateLimit (RateLimitHeaders) on h, replacing any value they had, as
// Header.Set would. Every API response carries them, so they are written with two allocations
// rather than about fifteen: the five values are appended to one buffer and cut from one string,
// and the five one-element value slices share one array.
func setRateLimitHeaders(h http.Header, d ratelimit.Decision, window time.Duration, now time.Time) {
	var buf [128]byte
	var ends [len(rateLimitHeaderNames)]int
	b := strconv.AppendInt(buf[:0], int64(d.Limit), 10)
	ends[0] = len(b)
	b = strconv.AppendInt(b, int64(d.Remaining), 10)
	ends[1] = len(b)
	b = strconv.AppendInt(b, d.Reset.Unix(), 10)
	ends[2] = len(b)
	b = appendPolicy(b, d, window)
	ends[3] = len(b)
	b = appendState(b, d, now)
	ends[4] = len(b)
	all := string(b)
	values := make([]string, len(rateLimitHeaderNames))
	start := 0
	for i, end := range ends {
		values[i] = all[start:end]
		h[rateLimitHeaderNames[i]] = values[i : i+1 : i+1]
		start = end
	}
}
