package webhooks

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/riverqueue/river"
	"go.uber.org/fx"
	"gorm.io/gorm"

	"folio/modules/journal"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/holdings"
	"folio/platform/ids"
	"folio/platform/paginate"
)

// Service manages webhooks and enqueues their deliveries (journal.Dispatcher).
type Service struct {
	store *Store
	clock clock.Clock
	guard Guard
	queue *Queue
	// rule is the access rule (CONTRACT.md section 20): a webhook's credential is resolved, and
	// the resource of each event checked, at every dispatch and every attempt.
	rule    *auth.Rule
	catalog *journal.Catalog
}

// ServiceParams are the dependencies of NewService.
type ServiceParams struct {
	fx.In
	Store   *Store
	Clock   clock.Clock
	Guard   Guard
	Queue   *Queue
	Rule    *auth.Rule
	Catalog *journal.Catalog
}

// NewService returns the webhooks service.
func NewService(p ServiceParams) *Service {
	return &Service{store: p.Store, clock: p.Clock, guard: p.Guard, queue: p.Queue, rule: p.Rule, catalog: p.Catalog}
}

// MaxPerUser is how many webhooks a user may have (CONTRACT.md section 20).
const MaxPerUser = 25

// NewWebhook is a create request.
type NewWebhook struct {
	URL         string
	Events      []string
	Description string
}

// View is a webhook as its owner sees it: its status decided now, from its stored health and its
// credential (a webhook whose key was revoked is disabled, KEY_REVOKED, from that moment on), and
// the key it belongs to (nil for a web session's).
type View struct {
	Webhook
	holdings.Holder
	DisabledReason *string
	// LastAttempt is the newest delivery attempt (nil: none yet); set by ForUser only.
	LastAttempt *Attempt
}

// Create validates and stores a webhook that belongs to the principal's credential, with its
// restriction; the answer carries the secret, the only time it is shown. It needs read and write
// scope (a webhook reads what it delivers), and a user has at most MaxPerUser.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in NewWebhook) (View, error) {
	if !p.Can(auth.ScopeReadWrite) {
		return View{}, apierr.ErrInsufficient.WithMessage("creating a webhook needs a key with read and write scope (3): a webhook reads what it delivers")
	}
	if utf8.RuneCountInString(in.URL) > 2048 {
		return View{}, apierr.Validation("field \"url\" must be at most 2048 characters")
	}
	if err := s.guard.CheckURL(ctx, in.URL); err != nil {
		return View{}, apierr.Validation("field \"url\": %s", strings.TrimPrefix(err.Error(), "webhooks: "))
	}
	if utf8.RuneCountInString(in.Description) > 500 || strings.ContainsRune(in.Description, 0) {
		return View{}, apierr.Validation("field \"description\" must be at most 500 characters, without NUL")
	}
	var types []string
	for _, t := range in.Events {
		if !s.catalog.Has(t) {
			return View{}, apierr.Validation("field \"events\" must list event types among: %s", strings.Join(s.catalog.Names(), ", "))
		}
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	ref := p.Ref()
	w := Webhook{ID: ids.New(), UserID: p.UserID, WorkspaceID: p.WorkspaceID, NotebookID: p.NotebookID, URL: in.URL,
		Events: strings.Join(types, ","), Description: in.Description, Secret: NewSecret(), Status: StatusActive,
		CredentialKind: string(ref.Kind), CredentialID: ref.ID, CreatedAt: s.clock.Now()}
	if err := s.store.Create(ctx, w.UserID, &w, MaxPerUser, ErrLimit, "webhooks"); err != nil {
		return View{}, err
	}
	return View{Webhook: w, Holder: holdings.HolderOfPrincipal(p)}, nil
}

// views decides the status of each webhook now: a stored disabled status keeps its stored reason;
// otherwise the credential's (auth.Rule.Hold), disabled when it is dead.
func (s *Service) views(ctx context.Context, hooks []Webhook) ([]View, error) {
	refs := holdings.Refs(hooks, Webhook.Credential)
	held, err := s.rule.Hold(ctx, refs)
	if err != nil {
		return nil, err
	}
	out := make([]View, len(hooks))
	for i, w := range hooks {
		v := View{Webhook: w, Holder: holdings.HolderOf(refs[i], held[refs[i]])}
		switch {
		case v.Dead != nil && w.CredentialID != "":
			// A dead credential says more than a stored failure: re-creating the webhook with the
			// same key would not help.
			v.Status, v.DisabledReason = StatusDisabled, v.Dead
		case w.Status != StatusActive:
			v.DisabledReason = w.DisabledReason
			if v.DisabledReason == nil {
				v.DisabledReason = ptr(ReasonFailing)
			}
		}
		out[i] = v
	}
	return out, nil
}

func ptr(s string) *string { return &s }

// Get returns one of the webhooks the principal manages (holdings.Table.Owned).
func (s *Service) Get(ctx context.Context, p *auth.Principal, id string) (View, error) {
	w, err := s.store.Get(ctx, p, id)
	if err != nil {
		return View{}, err
	}
	vs, err := s.views(ctx, []Webhook{w})
	if err != nil {
		return View{}, err
	}
	return vs[0], nil
}

// List returns a page of the webhooks the principal manages (holdings.Table.Owned), with their
// status decided now.
func (s *Service) List(ctx context.Context, p *auth.Principal, page paginate.Params) ([]View, *string, error) {
	return holdings.Page(s.store.Store, s.views)(ctx, p, page)
}

// Delete removes one of the webhooks the principal manages.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id string) error {
	return s.store.remove(ctx, table.OwnedBy(p), id)
}

// Deliveries returns a page of a webhook's attempts, newest first.
func (s *Service) Deliveries(ctx context.Context, p *auth.Principal, id string, page paginate.Params) ([]Attempt, *string, error) {
	if _, err := s.store.Get(ctx, p, id); err != nil {
		return nil, nil, err
	}
	return s.store.attempts(ctx, id, page)
}

// ForUser lists every webhook of a user, whatever credential made it, newest first, with its
// status and last attempt: the settings UI and `folio webhook list` show them beside the keys.
func (s *Service) ForUser(ctx context.Context, userID string) ([]View, error) {
	hooks, err := s.store.OfUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	vs, err := s.views(ctx, hooks)
	if err != nil {
		return nil, err
	}
	last, err := s.store.lastAttempts(ctx, hooks)
	if err != nil {
		return nil, err
	}
	for i := range vs {
		if a, ok := last[vs[i].ID]; ok {
			vs[i].LastAttempt = &a
		}
	}
	return vs, nil
}

// DeleteForUser deletes one of a user's webhooks, whatever credential made it (the settings UI,
// `folio webhook delete`); another user's is ErrNotFound. An empty userID is the operator: any
// user's webhook.
func (s *Service) DeleteForUser(ctx context.Context, userID, id string) error {
	return s.store.remove(ctx, table.ByUser(userID), id)
}

// sees says whether an event is in the feed of the webhook's principal p (the audit log's rule,
// journal.Sees, as GET /events) and of the types the webhook asked for.
func (w Webhook) sees(p *auth.Principal, e journal.Placed) bool {
	return journal.Sees(p, e.ActorUserID, e.NotebookID, e.WorkspaceID) &&
		(w.Events == "" || slices.Contains(strings.Split(w.Events, ","), e.Type))
}

// Dispatch implements journal.Dispatcher: one delivery job per placed event and webhook that
// may deliver it now (CONTRACT.md section 20): the webhook is active, its credential is live
// (auth.Rule.Hold), the event is in that credential's feed, and the credential can read the
// event's resource (auth.Rule.Readable, as GET /events shows its data). Jobs are inserted into
// River's queue in tx, the sequencer's transaction. The write path never waits on this: the
// sequencer runs after the write has committed. Each attempt asks the rule again (deliverWorker).
func (s *Service) Dispatch(ctx context.Context, tx *gorm.DB, placed []journal.Placed) error {
	hooks, err := s.store.active(ctx, tx)
	if err != nil || len(hooks) == 0 {
		return err
	}
	refs := holdings.Refs(hooks, Webhook.Credential)
	held, err := s.rule.Hold(ctx, refs)
	if err != nil {
		return err
	}
	if err := s.followRotations(ctx, hooks, refs, held); err != nil {
		return err
	}
	var jobs []river.InsertManyParams
	for i, w := range hooks {
		p := held[refs[i]].Principal
		if p == nil {
			continue // its credential is dead: nothing is attempted (GET /webhooks says why)
		}
		var seen []journal.Placed
		var res []auth.Resource
		for _, e := range placed {
			if !w.sees(p, e) {
				continue
			}
			if r, ok := s.catalog.DataResource(e.Type, e.ResourceType, e.ResourceID, e.NotebookID); ok {
				seen, res = append(seen, e), append(res, r)
			}
		}
		if len(seen) == 0 {
			continue
		}
		readable, err := s.rule.Readable(ctx, p, res)
		if err != nil {
			return err
		}
		for j, e := range seen {
			if readable[res[j]] {
				jobs = append(jobs, river.InsertManyParams{Args: DeliverArgs{WebhookID: w.ID, EventID: e.ID, Type: e.Type,
					ResourceType: e.ResourceType, ResourceID: e.ResourceID, NotebookID: e.NotebookID, Payload: e.Payload}})
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

// followRotations re-reads, outside the sequencer's transaction, the credential of each webhook
// whose key Hold found revoked: a rotation that committed after the transaction read the
// webhooks has moved them to the new key, and their events must not be skipped for it.
func (s *Service) followRotations(ctx context.Context, hooks []Webhook, refs []auth.CredentialRef, held map[auth.CredentialRef]auth.Held) error {
	var ids []string
	for i, w := range hooks {
		if refs[i].Kind == auth.CredentialKey && held[refs[i]].Dead == auth.DeadKeyRevoked {
			ids = append(ids, w.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	now, err := s.store.credentialsOf(ctx, ids)
	if err != nil {
		return err
	}
	for i, w := range hooks {
		if id, ok := now[w.ID]; ok && id != refs[i].ID {
			refs[i] = auth.CredentialRef{Kind: auth.CredentialKey, ID: id}
			h, err := s.rule.HoldOne(ctx, refs[i])
			if err != nil {
				return err
			}
			held[refs[i]] = h
		}
	}
	return nil
}

// deliverable asks the access rule, at an attempt, whether the job may still be delivered: its
// webhook's credential is live and can read the event's resource now. A job queued before jobs
// named their resource is never delivered (its webhook was disabled by the migration that
// recorded credentials, and no reader answers for a resource type "").
func deliverable(ctx context.Context, rule *auth.Rule, catalog *journal.Catalog, w Webhook, args DeliverArgs) (bool, error) {
	h, err := rule.HoldOne(ctx, w.Credential())
	if err != nil || h.Principal == nil {
		return false, err
	}
	r, ok := catalog.DataResource(args.Type, args.ResourceType, args.ResourceID, args.NotebookID)
	if !ok {
		return false, nil
	}
	readable, err := rule.Readable(ctx, h.Principal, []auth.Resource{r})
	return readable[r], err
}

func formatInt(n int64) string { return strconv.FormatInt(n, 10) }
