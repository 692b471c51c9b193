package imports

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/config"
	"folio/platform/httpx"
)

// Handler serves POST /import.
type Handler struct {
	svc *Service
}

// NewHandler returns the import handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Turns are the imports' turns on this server: a slot per import it runs at once (Concurrent).
type Turns struct {
	slots chan struct{}
	wait  time.Duration // how long an import waits for a turn (FOLIO_IMPORT_WAIT)
}

// NewTurns returns the server's import turns.
func NewTurns(c config.Config) *Turns {
	return &Turns{slots: make(chan struct{}, Concurrent), wait: c.ImportWait}
}

// Concurrent is how many imports one server runs at once. An import holds its whole ZIP (up to
// 50 MB) and its archive's index in memory, about twice folio's memory at rest, so the others wait
// for their turn before their bodies are read (the client's upload stalls on TCP meanwhile): a
// burst of imports makes them slower, not the server out of memory. The turn is taken by the
// route's gate (httpx.Gate), after authentication and before the idempotency middleware, which
// reads the body of a request with an Idempotency-Key: such an import waits too, and so does its
// replay. One that waits longer than FOLIO_IMPORT_WAIT (20 s by default) is answered 503
// SERVICE_UNAVAILABLE with Retry-After. A client that left is not noticed while it waits
// (net/http watches the connection only once the body is read).
const Concurrent = 1

// Route is the import's path under the API base.
const Route = "/import"

// Timeout is how long an import's request may take to be read and answered.
const Timeout = 10 * time.Minute

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	r.API.POST(Route, httpx.Handle(h.importZIP))
}

// bodyLimit lets POST /import take a ZIP of up to MaxBytes (the idempotency middleware, which reads
// a body first, holds it to the same limit).
func bodyLimit() httpx.BodyLimit {
	return httpx.BodyLimit{Method: http.MethodPost, Path: httpx.APIBase + Route, Bytes: MaxBytes}
}

// Gate is POST /import's httpx.Gate: Turns.enter.
func (t *Turns) Gate() httpx.Gate {
	return httpx.Gate{Method: http.MethodPost, Path: httpx.APIBase + Route, Enter: t.enter}
}

// enter refuses a body that is not a ZIP at once, then waits for the import's turn (Concurrent).
// An import may outlast the server's limits for one request (30 s to read it, 60 s to answer it):
// 50 MB on a slow link, 10,000 notes written in one transaction. A writer that cannot move its
// deadlines (http.ErrNotSupported) keeps the server's. They are moved before the wait (the
// server's own would cut it short) and again once the turn is taken, so that the wait does not eat
// into the import's own time.
func (t *Turns) enter(c *gin.Context) (func(), error) {
	if mt, _, err := mime.ParseMediaType(c.GetHeader("Content-Type")); err != nil || mt != "application/zip" {
		return nil, errContentType
	}
	rc := http.NewResponseController(c.Writer)
	deadlines := func() {
		_ = rc.SetReadDeadline(time.Now().Add(Timeout))
		_ = rc.SetWriteDeadline(time.Now().Add(Timeout))
	}
	deadlines()
	if err := t.take(c.Request.Context()); err != nil {
		return nil, err
	}
	deadlines()
	return func() { <-t.slots }, nil
}

// importZIP runs once the gate gave the import its turn: it reads the body into memory (at most
// 50 MB: the container image has no temporary directory, and a ZIP is read from its end), then
// imports it. The body is read before the notebook is checked: a hostile archive is a 400
// (request shape) before any access question.
func (h *Handler) importZIP(c *gin.Context) error {
	notebookID, _ := httpx.QueryString(c, "notebookId")
	var buf bytes.Buffer
	if n := c.Request.ContentLength; n > 0 && n <= MaxBytes {
		buf.Grow(int(n))
	}
	if _, err := io.Copy(&buf, c.Request.Body); err != nil {
		var maxErr *http.MaxBytesError
		if errors.As(err, &maxErr) {
			return errTooLarge
		}
		return err
	}
	res, err := h.svc.Import(c.Request.Context(), auth.FromGin(c), bytes.NewReader(buf.Bytes()), int64(buf.Len()), notebookID)
	if err != nil {
		return err
	}
	if res.Notebook != "" {
		httpx.Location(c, "notebooks", res.Notebook)
	} else {
		httpx.Location(c, "notebooks")
	}
	httpx.JSON(c, http.StatusCreated, toImportResponse(res))
	return nil
}

// errBusy answers an import that waited FOLIO_IMPORT_WAIT for its turn.
var errBusy = apierr.ErrUnavailable.WithMessage("another import is under way on this server; retry in a minute").
	WithHeader("Retry-After", "60")

// take waits for one of the Concurrent turns: nil once taken (give it back with <-t.slots),
// errBusy after t.wait, the context's error when it ends first.
func (t *Turns) take(ctx context.Context) error {
	select {
	case t.slots <- struct{}{}:
		return nil
	default:
	}
	timer := time.NewTimer(t.wait)
	defer timer.Stop()
	select {
	case t.slots <- struct{}{}:
		return nil
	case <-timer.C:
		return errBusy
	case <-ctx.Done():
		return ctx.Err()
	}
}
