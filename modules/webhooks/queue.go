package webhooks

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"gorm.io/gorm"

	"folio/modules/journal"
	"folio/platform"
	"folio/platform/auth"
	"folio/platform/background"
	"folio/platform/clock"
	"folio/platform/config"
	"folio/platform/db"
)

// Delivery policy (CONTRACT.md section 18).
const (
	// MaxAttempts with the default FOLIO_WEBHOOK_RETRY_BASE of 10s: delays of 10s, 20s, ... doubling
	// up to 6h; the 16th attempt comes about 29 hours after the first (at least 24 hours).
	MaxAttempts = 16
	maxDelay    = 6 * time.Hour
	// DisableAfter: a webhook whose every attempt failed for this long is disabled.
	DisableAfter = 72 * time.Hour
)

// DeliverArgs is one delivery job: an event for a webhook, with the payload as the feed serves it
// (rendered when the event was placed).
type DeliverArgs struct {
	WebhookID string `json:"webhookId"`
	EventID   string `json:"eventId"`
	// What the event is about, so that each attempt can ask the access rule again.
	Type         string          `json:"type,omitempty"`
	ResourceType string          `json:"resourceType,omitempty"`
	ResourceID   string          `json:"resourceId,omitempty"`
	NotebookID   *string         `json:"notebookId,omitempty"`
	Payload      json.RawMessage `json:"payload"`
}

// Kind names the job in River's table.
func (DeliverArgs) Kind() string { return "folio_webhook_delivery" }

// InsertOpts: every delivery gets MaxAttempts attempts.
func (DeliverArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: MaxAttempts} }

// Queue is River's client: a durable job queue in folio's own database (PostgreSQL or SQLite),
// so a delivery is a row inserted in a transaction, worked once per attempt by whichever instance
// locks it first, retried after a crash (River rescues jobs whose worker died).
type Queue struct{ client *river.Client[*sql.Tx] }

// retryPolicy doubles the delay from the base up to maxDelay.
type retryPolicy struct{ base time.Duration }

func (r retryPolicy) delay(attempt int) time.Duration {
	d := r.base
	for i := 1; i < attempt && d < maxDelay; i++ {
		d *= 2
	}
	return min(d, maxDelay)
}

func (r retryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	return time.Now().Add(r.delay(job.Attempt))
}

// QueueParams are the dependencies of NewQueue.
type QueueParams struct {
	fx.In
	Loops   *background.Loops
	DB      *gorm.DB
	Config  config.Config
	Clock   clock.Clock
	Logger  *zap.Logger
	Store   *Store
	Guard   Guard
	Rule    *auth.Rule
	Catalog *journal.Catalog
	// River starts after the migrations that create its tables.
	Migrated platform.Migrated
}

// NewQueue builds River's client on folio's database and starts and stops it with the app.
func NewQueue(p QueueParams) (*Queue, error) {
	sqlDB, err := p.DB.DB()
	if err != nil {
		return nil, err
	}
	// FOLIO_WEBHOOK_RESCUE_AFTER (default 30 s, 3 × Timeout) gives back to the queue a job whose
	// instance died while working it. River rescues a job only once its own timeout has passed, and
	// refuses a rescue time shorter than that timeout: a job is cut off at two thirds of the rescue
	// time, at most 2 × Timeout (20 s, as with the default).
	rescueAfter := p.Config.WebhookRescueAfter
	jobTimeout := min(2*Timeout, rescueAfter*2/3)
	w := &deliverWorker{store: p.Store, rule: p.Rule, catalog: p.Catalog, client: p.Guard.Client(), clock: p.Clock, retry: retryPolicy{p.Config.WebhookRetryBase}, cutoff: jobTimeout, log: p.Logger.Named("webhooks")}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	cfg := &river.Config{
		Queues:      map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 10}},
		Workers:     workers,
		RetryPolicy: w.retry,
		MaxAttempts: MaxAttempts,
		JobTimeout:  jobTimeout,
		// A job whose instance died while working it (kill -9) is given back to the queue after
		// this, instead of River's default hour.
		RescueStuckJobsAfter: rescueAfter,
		FetchPollInterval:    200 * time.Millisecond,
		// River's own log lines are not folio's format; deliveries log what matters themselves.
		Logger: slog.New(slog.DiscardHandler),
	}
	var client *river.Client[*sql.Tx]
	if db.IsPostgres(p.DB) {
		client, err = river.NewClient(riverdatabasesql.New(sqlDB), cfg)
	} else {
		client, err = river.NewClient(riversqlite.New(sqlDB), cfg)
	}
	if err != nil {
		return nil, err
	}
	p.Loops.Hook(fx.Hook{
		OnStart: func(context.Context) error { return client.Start(context.Background()) },
		OnStop:  func(ctx context.Context) error { return client.Stop(ctx) },
	})
	return &Queue{client: client}, nil
}

type deliverWorker struct {
	river.WorkerDefaults[DeliverArgs]
	store   *Store
	rule    *auth.Rule
	catalog *journal.Catalog
	client  *http.Client
	clock   clock.Clock
	retry   retryPolicy
	cutoff  time.Duration // the job's timeout
	log     *zap.Logger
}

// Timeout: River cancels a job's context after this; with the default settings the HTTP client
// ends first.
func (w *deliverWorker) Timeout(*river.Job[DeliverArgs]) time.Duration { return w.cutoff }

// Work makes one attempt: POST of the payload, signed; a 2xx is success; anything else is an error,
// which River retries after the retry policy's delay.
func (w *deliverWorker) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	hook, err := w.store.byID(ctx, job.Args.WebhookID)
	if err == ErrNotFound || (err == nil && hook.Status != StatusActive) {
		return nil // deleted or disabled: nothing more to deliver
	}
	if err != nil {
		return err
	}
	// The access rule, asked at every attempt: a credential revoked (or expired, or that lost
	// its access) since the event was dispatched, or a resource it can no longer read, ends the
	// job without an attempt.
	if ok, err := deliverable(ctx, w.rule, w.catalog, hook, job.Args); err != nil || !ok {
		return err
	}
	now := w.clock.Now()
	headers, err := Headers(hook.Secret, job.Args.EventID, now, job.Args.Payload)
	if err != nil {
		return river.JobCancel(err)
	}
	start := time.Now()
	status, sendErr := w.send(ctx, hook.URL, headers, job.Args.Payload)
	a := Attempt{WebhookID: hook.ID, EventID: job.Args.EventID, AttemptedAt: now, DurationMs: time.Since(start).Milliseconds()}
	if status != 0 {
		a.StatusCode = &status
	}
	ok := sendErr == nil && status >= 200 && status < 300
	if !ok {
		msg := fmt.Sprintf("the receiver answered %d", status)
		if sendErr != nil {
			msg = sendErr.Error()
		}
		if len(msg) > 500 {
			msg = msg[:500]
		}
		a.Error = &msg
		if job.Attempt < job.MaxAttempts {
			next := now.Add(w.retry.delay(job.Attempt))
			a.NextAttemptAt = &next
		}
	}
	if err := w.store.recordAttempt(ctx, &a, ok, DisableAfter); err != nil {
		return err
	}
	if !ok {
		w.log.Info("webhook delivery failed", zap.String("webhook", hook.ID), zap.String("event", job.Args.EventID), zap.Int("attempt", job.Attempt), zap.Int("status", status))
		return fmt.Errorf("%s", *a.Error)
	}
	return nil
}

func (w *deliverWorker) send(ctx context.Context, url string, headers map[string]string, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "folio-webhooks")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}
