// Package idempotency makes POST, PATCH and DELETE under /api/v1 safe to retry (CONTRACT.md
// section 13): a request that carries an Idempotency-Key has its 2xx response stored with the key,
// committed in the same transaction as the write it describes, and a retry with the same key,
// method, path and body gets that response again (Idempotent-Replayed: true) without writing.
//
// How a request runs (Middleware, after the API guard, so per credential: the API key or web
// session that sent it, CONTRACT.md section 20):
//
//  1. claim: one INSERT of (credential, key, fingerprint of method+path+body, token, lease), committed at
//     once, so that a retry on any instance sees the key as running (409 IDEMPOTENCY_KEY_IN_USE);
//     an existing record is replayed (same fingerprint, completed), refused (other fingerprint:
//     422 IDEMPOTENCY_KEY_REUSED), or started afresh (older than 24 hours);
//  2. the handler runs with a db.Unit in its context: every db.Transaction of the request joins
//     one transaction, which stays open while the handler renders its response into a buffer;
//  3. on a 2xx answer: one UPDATE of the claim's row with the status, body and the headers a
//     client needs (Content-Type, ETag, Location), in that transaction, then COMMIT, then the
//     response goes out. The write and its stored response commit together: there is no instant
//     where the write exists and a retry would repeat it;
//  4. on any other answer (or a panic): ROLLBACK (the error wrote nothing) and the claim's row is
//     deleted, so a retry runs afresh with any body.
//
// A request without the header costs nothing here beyond a header lookup.
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"gorm.io/gorm"

	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/background"
	"folio/platform/clock"
	"folio/platform/db"
	"folio/platform/httpx"
)

const (
	// Header is the request header that carries the key.
	Header = "Idempotency-Key"
	// ReplayedHeader marks a response that is a stored one.
	ReplayedHeader = "Idempotent-Replayed"
	// TTL is how long a stored response is kept; a retry after it runs afresh.
	TTL = 24 * time.Hour
	// Lease is how long a running request's claim holds its key against a retry when the request
	// neither completes nor releases it (its process stopped mid-request). It exceeds the HTTP
	// server's write timeout (60 s), so a live request never loses its claim; and if one did, its
	// completing UPDATE names its own token and would find none, so it could not commit.
	Lease = 2 * time.Minute
	// SweepEvery is how often each instance deletes expired records.
	SweepEvery = 10 * time.Minute
	// SweepBatch and SweepBatches bound one sweep: at most SweepBatches DELETEs of at most
	// SweepBatch rows each; a backlog larger than that is left for the next sweep.
	SweepBatch   = 1000
	SweepBatches = 50
)

// Codes of CONTRACT.md section 13.
const (
	CodeReused = "IDEMPOTENCY_KEY_REUSED"
	CodeInUse  = "IDEMPOTENCY_KEY_IN_USE"
)

var (
	// ErrReused: the key was used with another method, path or body.
	ErrReused = apierr.New(http.StatusUnprocessableEntity, CodeReused,
		"header \"Idempotency-Key\" was already used with another method, path or body; send a new key for a new request")
	// ErrInUse: the request that first used the key is still running.
	ErrInUse = apierr.Conflict(CodeInUse,
		"a request with this \"Idempotency-Key\" is still running; retry once it has finished").WithHeader("Retry-After", "1")
	errInvalidKey = apierr.Validation("header \"Idempotency-Key\" must be 1 to 255 printable ASCII characters, sent once")
	errLostClaim  = ErrInUse.WithMessage("the claim on this \"Idempotency-Key\" was taken over by a retry; nothing was changed")
	// errSilentFail: a write of the request failed, yet its handler answered 2xx (it swallowed
	// the error). Nothing is committed; the cause is logged with the request id.
	errSilentFail = apierr.ErrInternal.Wrap(errors.New("idempotency: a write failed but the handler answered 2xx; rolled back"))
)

// storedHeaders are the response headers a replay repeats.
var storedHeaders = []string{"Content-Type", "ETag", "Location"}

// Hooks let a test act at points of a request's life. Production provides none.
type Hooks struct {
	// Claimed runs once the request holds its key, before the handler.
	Claimed func(c *gin.Context)
	// AfterCommit runs after the write and its stored response committed and before the response
	// is written: a failure injected here is a crash between the write and the response.
	AfterCommit func(c *gin.Context)
}

// Middleware runs idempotent requests.
type Middleware struct {
	db    *gorm.DB
	clock clock.Clock
	log   *zap.Logger
	hooks Hooks
	rule  *auth.Rule
}

// Params are what the middleware is built from.
type Params struct {
	fx.In
	Loops  *background.Loops
	DB     *gorm.DB
	Clock  clock.Clock
	Logger *zap.Logger
	Hooks  *Hooks `optional:"true"`
	Rule   *auth.Rule
}

// New returns the middleware and starts its cleanup: every SweepEvery, a bounded Sweep, in a
// goroutine that the fx stop hook ends and waits for.
func New(p Params) *Middleware {
	m := &Middleware{db: p.DB, clock: p.Clock, log: p.Logger.Named("idempotency"), rule: p.Rule}
	if p.Hooks != nil {
		m.hooks = *p.Hooks
	}
	p.Loops.Go(m.sweepLoop)
	return m
}

func (m *Middleware) sweepLoop(ctx context.Context) {
	tick := time.NewTicker(SweepEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if n, err := m.Sweep(ctx); err != nil && ctx.Err() == nil {
				m.log.Warn("could not delete expired idempotency keys", zap.Error(err))
			} else if n > 0 {
				m.log.Debug("expired idempotency keys deleted", zap.Int64("count", n))
			}
		}
	}
}

// Handler is the gin middleware.
func (m *Middleware) Handler() gin.HandlerFunc { return m.handle }

func (m *Middleware) handle(c *gin.Context) {
	switch c.Request.Method {
	case http.MethodPost, http.MethodPatch, http.MethodDelete:
	default:
		c.Next()
		return
	}
	values := c.Request.Header.Values(Header)
	if len(values) == 0 {
		c.Next()
		return
	}
	if len(values) > 1 || !ValidKey(values[0]) {
		httpx.Fail(c, errInvalidKey)
		return
	}
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		httpx.Fail(c, err) // over 1 MiB: the envelope's 400
		return
	}
	c.Request.Body = io.NopCloser(bytes.NewReader(body))
	ctx := c.Request.Context()
	p := auth.FromGin(c)
	cl, stored, err := m.claimKey(ctx, p.UserID, p.Ref().String(), values[0], fingerprint(c.Request, body))
	if err != nil {
		httpx.Fail(c, err)
		return
	}
	if stored != nil {
		if err := m.stillReadable(ctx, p, stored.Resource); err != nil {
			httpx.Fail(c, err)
			return
		}
		replay(c, stored)
		return
	}
	if m.hooks.Claimed != nil {
		m.hooks.Claimed(c)
	}
	m.run(c, cl)
}

// ValidKey reports whether key is 1 to 255 printable ASCII characters.
func ValidKey(key string) bool {
	if len(key) == 0 || len(key) > 255 {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return false
		}
	}
	return true
}

// fingerprint identifies what a request asks: its method, path (with any query) and body, as sent.
func fingerprint(r *http.Request, body []byte) []byte {
	h := sha256.New()
	h.Write([]byte(r.Method + " " + r.URL.EscapedPath() + "?" + r.URL.RawQuery + "\n"))
	h.Write(body)
	return h.Sum(nil)
}

// resourceOf names what a stored response shows, for the access rule at replay: the resource its
// Location names (a create), else the one its path names (/notes/<id>/..., /suggestions/<id>/...),
// as "<type>:<id>" with the collection's name made singular. A DELETE's answer shows nothing ("").
func resourceOf(method, location, path string) string {
	if method == http.MethodDelete {
		return ""
	}
	p := path
	if location != "" {
		p = location
	}
	rest, ok := strings.CutPrefix(p, httpx.APIBase+"/")
	if !ok {
		return ""
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 2 || parts[1] == "" {
		return ""
	}
	return strings.TrimSuffix(parts[0], "s") + ":" + parts[1]
}

// stillReadable refuses a replay whose stored body shows a resource the credential can no longer
// read (deleted since, moved out of its reach, or in a workspace its user left): the same 404 as
// a read of it would get (<TYPE>_NOT_FOUND). Resources no module answers for (a webhook, which
// belongs to the very credential replaying) are not asked about.
func (m *Middleware) stillReadable(ctx context.Context, p *auth.Principal, resource string) error {
	typ, id, ok := strings.Cut(resource, ":")
	if !ok || m.rule == nil || !m.rule.Knows(typ) {
		return nil
	}
	res := auth.Resource{Type: typ, ID: id}
	readable, err := m.rule.Readable(ctx, p, []auth.Resource{res})
	if err != nil {
		return err
	}
	if !readable[res] {
		return apierr.NotFound(strings.ToUpper(typ)+"_NOT_FOUND", typ+" not found")
	}
	return nil
}

// replay answers with a stored response.
func replay(c *gin.Context, rec *record) {
	var header map[string]string
	if rec.Header != "" {
		_ = json.Unmarshal([]byte(rec.Header), &header)
	}
	for k, v := range header {
		c.Header(k, v)
	}
	c.Header(ReplayedHeader, "true")
	c.Status(rec.Status)
	_, _ = c.Writer.Write(rec.Body)
	c.Abort()
}

// run lets the handler answer within a unit of work, and commits the unit's writes with the
// response, or rolls them back.
func (m *Middleware) run(c *gin.Context, cl claim) {
	base := c.Request.Context()
	ctx, unit := db.WithUnit(base)
	c.Request = c.Request.WithContext(ctx)
	out := c.Writer
	buf := &bufferedWriter{ResponseWriter: out, status: http.StatusOK}
	c.Writer = buf
	settled := false
	defer func() {
		c.Writer = out
		c.Request = c.Request.WithContext(base)
		if !settled { // a panic: the recovery middleware answers 500
			unit.Rollback()
			m.release(cl)
		}
	}()
	c.Next()
	c.Writer = out
	failed := len(c.Errors) > 0 || buf.status < 200 || buf.status > 299
	if failed || unit.Failed() {
		settled = true
		unit.Rollback()
		m.release(cl)
		switch {
		case len(c.Errors) > 0: // the envelope middleware writes the error
		case failed:
			buf.flushTo(out)
		default: // a write failed yet the handler answered 2xx: never commit that
			httpx.Fail(c, errSilentFail)
		}
		return
	}
	resp := response{Status: buf.status, Header: map[string]string{}, Body: buf.body.Bytes(),
		Resource: resourceOf(c.Request.Method, out.Header().Get("Location"), c.Request.URL.Path)}
	for _, h := range storedHeaders {
		if v := out.Header().Get(h); v != "" {
			resp.Header[h] = v
		}
	}
	tx := m.db
	if unit.Began() {
		tx = unit.Tx()
	}
	ok, err := m.complete(base, tx, cl, resp)
	if err == nil && !ok {
		err = errLostClaim
	}
	if err == nil {
		err = unit.Commit()
	}
	settled = true
	if err != nil {
		unit.Rollback()
		m.release(cl)
		for _, h := range storedHeaders {
			out.Header().Del(h)
		}
		httpx.Fail(c, err)
		return
	}
	if m.hooks.AfterCommit != nil {
		m.hooks.AfterCommit(c)
	}
	buf.flushTo(out)
}

// bufferedWriter holds a handler's response until its writes have committed.
type bufferedWriter struct {
	gin.ResponseWriter
	status  int
	written bool
	body    bytes.Buffer
}

func (w *bufferedWriter) WriteHeader(code int) {
	if code > 0 {
		w.status = code
	}
}
func (w *bufferedWriter) WriteHeaderNow() { w.written = true }
func (w *bufferedWriter) Write(b []byte) (int, error) {
	w.written = true
	return w.body.Write(b)
}
func (w *bufferedWriter) WriteString(s string) (int, error) {
	w.written = true
	return w.body.WriteString(s)
}
func (w *bufferedWriter) Status() int   { return w.status }
func (w *bufferedWriter) Size() int     { return w.body.Len() }
func (w *bufferedWriter) Written() bool { return w.written }
func (w *bufferedWriter) Flush()        {}

// flushTo writes the held response to out.
func (w *bufferedWriter) flushTo(out gin.ResponseWriter) {
	out.WriteHeader(w.status)
	_, _ = out.Write(w.body.Bytes())
}
