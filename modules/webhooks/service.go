package webhooks

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/riverqueue/river"
	"go.uber.org/fx"
	"gorm.io/gorm"

	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/eventlog"
	"folio/platform/ids"
	"folio/platform/paginate"
)

// Service manages webhooks and enqueues their deliveries (eventlog.Dispatcher).
type Service struct {
	store *Store
	clock clock.Clock
	guard Guard
	queue *Queue
	// restrictions re-checks a restricted webhook's workspace or notebook at every dispatch: a
	// webhook made by a workspace-scoped key stops receiving that workspace's events once its
	// user has left it, as the key itself stops working (NOT_WORKSPACE_MEMBER). Set by
	// useRestrictions, not the constructor: the checker (notebooks) reaches workspaces, whose
	// writes emit events, whose sequencer dispatches here; a constructor argument would be a cycle.
	restrictions auth.RestrictionChecker
}

// useRestrictions completes the service once the graph is built (an fx.Invoke in module.go).
func useRestrictions(s *Service, r auth.RestrictionChecker) { s.restrictions = r }

// ServiceParams are the dependencies of NewService.
type ServiceParams struct {
	fx.In
	Store *Store
	Clock clock.Clock
	Guard Guard
	Queue *Queue
}

// NewService returns the webhooks service.
func NewService(p ServiceParams) *Service {
	return &Service{store: p.Store, clock: p.Clock, guard: p.Guard, queue: p.Queue}
}

// NewWebhook is a create request.
type NewWebhook struct {
	URL         string
	Events      []string
	Description string
}

// Create validates and stores a webhook with the principal's restriction; the answer carries the
// secret, the only time it is shown.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in NewWebhook) (Webhook, error) {
	if utf8.RuneCountInString(in.URL) > 2048 {
		return Webhook{}, apierr.Validation("field \"url\" must be at most 2048 characters")
	}
	if err := s.guard.CheckURL(ctx, in.URL); err != nil {
		return Webhook{}, apierr.Validation("field \"url\": %s", strings.TrimPrefix(err.Error(), "webhooks: "))
	}
	if utf8.RuneCountInString(in.Description) > 500 || strings.ContainsRune(in.Description, 0) {
		return Webhook{}, apierr.Validation("field \"description\" must be at most 500 characters, without NUL")
	}
	var types []string
	for _, t := range in.Events {
		if !slices.Contains(eventlog.Types, t) {
			return Webhook{}, apierr.Validation("field \"events\" must list event types among: %s", strings.Join(eventlog.Types, ", "))
		}
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	w := Webhook{ID: ids.New(), UserID: p.UserID, WorkspaceID: p.WorkspaceID, NotebookID: p.NotebookID, URL: in.URL,
		Events: strings.Join(types, ","), Description: in.Description, Secret: NewSecret(), Status: StatusActive, CreatedAt: s.clock.Now()}
	return w, s.store.create(ctx, &w)
}

// Get returns one of the user's webhooks.
func (s *Service) Get(ctx context.Context, p *auth.Principal, id string) (Webhook, error) {
	if !ids.Valid(id) {
		return Webhook{}, ErrNotFound
	}
	return s.store.get(ctx, p, id)
}

// List returns a page of the webhooks the principal manages (see owned).
func (s *Service) List(ctx context.Context, p *auth.Principal, page paginate.Params) ([]Webhook, *string, error) {
	return s.store.list(ctx, p, page)
}

// Delete removes one of the user's webhooks.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id string) error {
	if !ids.Valid(id) {
		return ErrNotFound
	}
	return s.store.remove(ctx, p, id)
}

// Deliveries returns a page of a webhook's attempts, newest first.
func (s *Service) Deliveries(ctx context.Context, p *auth.Principal, id string, page paginate.Params) ([]Attempt, *string, error) {
	if _, err := s.Get(ctx, p, id); err != nil {
		return nil, nil, err
	}
	return s.store.attempts(ctx, id, page)
}

// sees says whether w's subscription covers e: what the creating key saw (the audit log's rule),
// and the types it asked for.
func (w Webhook) sees(e eventlog.Placed) bool {
	switch {
	case w.NotebookID != nil:
		if e.NotebookID == nil || *e.NotebookID != *w.NotebookID {
			return false
		}
	case w.WorkspaceID != nil:
		if e.WorkspaceID == nil || *e.WorkspaceID != *w.WorkspaceID {
			return false
		}
	default:
		if e.ActorUserID != w.UserID {
			return false
		}
	}
	return w.Events == "" || slices.Contains(strings.Split(w.Events, ","), e.Type)
}

// Dispatch implements eventlog.Dispatcher: one delivery job per placed event and active webhook
// that sees it, inserted into River's queue in tx, the sequencer's transaction. The write path
// never waits on this: the sequencer runs after the write has committed.
func (s *Service) Dispatch(ctx context.Context, tx *gorm.DB, placed []eventlog.Placed) error {
	hooks, err := s.store.active(ctx, tx)
	if err != nil || len(hooks) == 0 {
		return err
	}
	// A restricted webhook whose place its user can no longer reach gets nothing (checked once
	// per dispatch; an error other than "out of reach" fails the dispatch, which is retried).
	reachable := make(map[string]bool, len(hooks))
	for _, w := range hooks {
		if w.WorkspaceID == nil && w.NotebookID == nil {
			reachable[w.ID] = true
			continue
		}
		err := s.restrictions.CheckRestriction(ctx, w.UserID, w.WorkspaceID, w.NotebookID)
		var ae *apierr.Error
		switch {
		case err == nil:
			reachable[w.ID] = true
		case errors.As(err, &ae) && ae.Status < 500:
			reachable[w.ID] = false
		default:
			return err
		}
	}
	var jobs []river.InsertManyParams
	for _, e := range placed {
		for _, w := range hooks {
			if reachable[w.ID] && w.sees(e) {
				jobs = append(jobs, river.InsertManyParams{Args: DeliverArgs{WebhookID: w.ID, EventID: e.ID, Payload: e.Payload}})
			}
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	sqlTx, ok := tx.Statement.ConnPool.(*sql.Tx)
	if !ok {
		return fmt.Errorf("webhooks: Dispatch must run in a transaction")
	}
	_, err = s.queue.client.InsertManyTx(ctx, sqlTx, jobs)
	return err
}

func formatInt(n int64) string { return strconv.FormatInt(n, 10) }
