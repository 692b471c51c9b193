package events

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"gorm.io/gorm"

	"folio/modules/items"
	"folio/modules/journal"
	"folio/platform"
	"folio/platform/auth"
	"folio/platform/background"
	"folio/platform/clock"
	"folio/platform/paginate"
)

// Retention is how long the feed keeps an event (CONTRACT.md section 18: at least 30 days).
const Retention = 30 * 24 * time.Hour

// Background work: how often the sequencer runs by itself (reads also sequence first, so this
// only keeps the backlog short), and how often and how much the retention cleanup deletes.
const (
	sequenceEvery = 250 * time.Millisecond
	cleanupEvery  = time.Hour
	cleanupBatch  = 1000
	cleanupRounds = 20 // at most cleanupRounds × cleanupBatch rows per run: a run stays short
)

// Service writes events in their write's transaction (journal.Emitter) and serves the feed.
type Service struct {
	store      *Store
	clock      clock.Clock
	log        *zap.Logger
	rule       *auth.Rule
	dispatcher journal.Dispatcher // nil without webhooks
	catalog    *journal.Catalog
	notebooks  items.Notebooks // who sees a reminder (nil in tests without notebooks)
	mu         sync.Mutex      // one sequencer per process at a time (the database lock covers the others)
}

// ServiceParams are the dependencies of NewService.
type ServiceParams struct {
	fx.In
	Loops  *background.Loops
	Store  *Store
	Clock  clock.Clock
	Logger *zap.Logger
	// Migrated: the background loop starts after the migrations have created the table.
	Migrated platform.Migrated `optional:"true"`
	Rule     *auth.Rule
	// Dispatcher, when present, gets every event as it is placed (webhooks).
	Dispatcher journal.Dispatcher `optional:"true"`
	Catalog    *journal.Catalog
	// Notebooks says which notebooks a principal sees: a reminder, which nobody causes, is in the
	// feed of every principal that may read its item.
	Notebooks items.Notebooks `optional:"true"`
}

// NewService returns the events service and starts its background work (sequencing and the
// retention cleanup) in a goroutine that the fx stop hook ends and waits for.
func NewService(p ServiceParams) *Service {
	s := &Service{store: p.Store, clock: p.Clock, log: p.Logger.Named("events"), rule: p.Rule, dispatcher: p.Dispatcher, catalog: p.Catalog, notebooks: p.Notebooks}
	p.Loops.Go(s.loop)
	return s
}

func (s *Service) loop(ctx context.Context) {
	seq := time.NewTicker(sequenceEvery)
	defer seq.Stop()
	clean := time.NewTicker(cleanupEvery)
	defer clean.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-seq.C:
			if err := s.Sequence(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("could not sequence events", zap.Error(err))
			}
		case <-clean.C:
			if n, err := s.Cleanup(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("could not delete expired events", zap.Error(err))
			} else if n > 0 {
				s.log.Debug("expired events deleted", zap.Int64("count", n))
			}
		}
	}
}

// Emit implements journal.Emitter: it writes the events in the caller's transaction tx, with the
// principal as their actor. They join the feed once tx has committed (Sequence).
func (s *Service) Emit(ctx context.Context, tx *gorm.DB, p *auth.Principal, events ...journal.Event) error {
	if len(events) == 0 {
		return nil
	}
	now := s.clock.Now()
	rows := make([]Event, len(events))
	for i, e := range events {
		if !s.catalog.Has(e.Type) {
			return fmt.Errorf("events: unknown event type %q", e.Type)
		}
		data, err := json.Marshal(e.Data)
		if err != nil {
			return fmt.Errorf("events: %s data: %w", e.Type, err)
		}
		rows[i] = Event{Type: e.Type, ResourceType: e.ResourceType, ResourceID: e.ResourceID, NotebookID: e.NotebookID,
			WorkspaceID: e.WorkspaceID, ActorUserID: p.UserID, Data: string(data), CreatedAt: now}
		if p.Credential == auth.CredentialKey {
			rows[i].APIKeyName, rows[i].APIKeyPrefix = &p.KeyName, &p.KeyPrefix
		}
	}
	return s.store.insert(ctx, tx, rows)
}

// Sequence places every committed event that has no place in the feed yet.
func (s *Service) Sequence(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		pending, err := s.store.hasUnsequenced(ctx)
		if err != nil || !pending {
			return err
		}
		n, err := s.store.sequence(ctx, s.dispatch)
		if err != nil || n < sequenceBatch {
			return err
		}
	}
}

// dispatch hands just placed rows to the dispatcher, in the sequencer's transaction tx.
func (s *Service) dispatch(tx *gorm.DB, rows []Event) error {
	if s.dispatcher == nil {
		return nil
	}
	placed := make([]journal.Placed, len(rows))
	for i, e := range rows {
		payload, err := json.Marshal(toEventResponse(e))
		if err != nil {
			return err
		}
		placed[i] = journal.Placed{ID: FormatID(*e.Seq), Type: e.Type, ResourceType: e.ResourceType, ResourceID: e.ResourceID, ActorUserID: e.ActorUserID, NotebookID: e.NotebookID, WorkspaceID: e.WorkspaceID, Payload: payload}
	}
	return s.dispatcher.Dispatch(tx.Statement.Context, tx, placed)
}

// Cleanup deletes events older than Retention, at most cleanupRounds batches per call.
func (s *Service) Cleanup(ctx context.Context) (int64, error) {
	cutoff := s.clock.Now().Add(-Retention)
	var total int64
	for range cleanupRounds {
		n, err := s.store.deleteBefore(ctx, cutoff, cleanupBatch)
		total += n
		if err != nil || n < cleanupBatch {
			return total, err
		}
	}
	return total, nil
}

// Query is a validated GET /events.
type Query struct {
	After int64    // the seq of the after parameter (0: from the start)
	Types []string // nil for all
	Limit int
}

// idPrefix starts every event id; the 19 digits after it (a zero-padded seq) make ids sort as
// strings in feed order.
const idPrefix = "evt_"

// FormatID is the wire id of the event at seq.
func FormatID(seq int64) string { return fmt.Sprintf("%s%019d", idPrefix, seq) }

// ParseID reads a wire id back; ok is false for anything FormatID does not make.
func ParseID(id string) (int64, bool) {
	digits, found := strings.CutPrefix(id, idPrefix)
	if !found || len(digits) != 19 || strings.ContainsAny(digits, "+-") {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil && n >= 0
}

// ParseQuery validates the after, types and limit parameters.
func ParseQuery(catalog *journal.Catalog, after, types, limit string, limitPresent bool) (Query, error) {
	page, err := paginate.Parse(limit, limitPresent, "", false)
	if err != nil {
		return Query{}, err
	}
	q := Query{Limit: page.Limit}
	if after != "" { // an empty after is no after, like an empty cursor
		var ok bool
		if q.After, ok = ParseID(after); !ok {
			return Query{}, ErrAfter
		}
	}
	if types != "" {
		for _, t := range strings.Split(types, ",") {
			if !catalog.Has(t) {
				return Query{}, errTypes(catalog.Names())
			}
			if !slices.Contains(q.Types, t) {
				q.Types = append(q.Types, t)
			}
		}
	}
	return q, nil
}

// List returns the events after q.After that the principal may see, oldest first, with the next
// cursor: the last event's id, or q's own after when there is none (never null). Visibility is the
// audit log's (CONTRACT.md section 7): a session or an unrestricted key sees the events its user
// caused; a workspace-scoped key those of its workspace; a notebook-scoped key those of its
// notebook. An event's data is shown only while the principal can read what it shows (the access
// rule, asked once per page: CONTRACT.md section 20); otherwise it is null and the rest of the
// event stays, so a sync client still sees that something happened. Events committed since the
// last sequencing are placed first, so a client reads its own writes.
func (s *Service) List(ctx context.Context, p *auth.Principal, q Query) ([]Event, string, error) {
	if err := s.Sequence(ctx); err != nil {
		return nil, "", err
	}
	rows, err := s.store.list(ctx, s.visible(p), q.After, q.Types, q.Limit)
	if err != nil {
		return nil, "", err
	}
	if err := s.hideUnreadable(ctx, p, rows); err != nil {
		return nil, "", err
	}
	next := FormatID(q.After)
	if len(rows) > 0 {
		next = FormatID(*rows[len(rows)-1].Seq)
	}
	return rows, next, nil
}

// visible narrows the feed to the principal's events: the audit log's rule (journal.Visible),
// and for an unrestricted principal also the reminders (no actor) of the notebooks it sees
// (CONTRACT.md section 21: a reminder is shown to every principal that can read the item; a
// restricted key already sees every event of its workspace or notebook).
func (s *Service) visible(p *auth.Principal) []func(*gorm.DB) *gorm.DB {
	own := func(q *gorm.DB) *gorm.DB { return journal.Visible(q, "events", p) }
	if p.NotebookID != nil || p.WorkspaceID != nil || s.notebooks == nil {
		return []func(*gorm.DB) *gorm.DB{own}
	}
	nbs := s.notebooks.VisibleIDs(p)
	return []func(*gorm.DB) *gorm.DB{own, func(q *gorm.DB) *gorm.DB {
		return q.Where("events.actor_user_id = '' AND events.notebook_id IN (?)", nbs)
	}}
}

// nullData is the data of an event whose resource the reader cannot read now.
const nullData = "null"

// hideUnreadable replaces the data of the events whose resource p cannot read now by null.
func (s *Service) hideUnreadable(ctx context.Context, p *auth.Principal, rows []Event) error {
	if len(rows) == 0 {
		return nil
	}
	refs := make([]auth.Resource, 0, len(rows))
	for _, e := range rows {
		if r, ok := s.catalog.DataResource(e.Type, e.ResourceType, e.ResourceID, e.NotebookID); ok {
			refs = append(refs, r)
		}
	}
	readable, err := s.rule.Readable(ctx, p, refs)
	if err != nil {
		return err
	}
	for i, e := range rows {
		if r, ok := s.catalog.DataResource(e.Type, e.ResourceType, e.ResourceID, e.NotebookID); !ok || !readable[r] {
			rows[i].Data = nullData
		}
	}
	return nil
}

func joinTypes(types []string) string { return strings.Join(types, ", ") }
