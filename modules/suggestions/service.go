package suggestions

import (
	"context"
	"errors"
	"net/http"
	"unicode/utf8"

	"go.uber.org/fx"
	"gorm.io/gorm"

	"folio/platform/apierr"
	"folio/platform/auditlog"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/content"
	"folio/platform/db"
	"folio/platform/ids"
	"folio/platform/items"
	"folio/platform/markdown"
	"folio/platform/paginate"
)

// Service runs the suggestion state machine:
//
//	(none) --suggest--> PENDING --approve--> APPROVED
//	                            --reject---> REJECTED
//	                            --a newer suggestion for the item--> SUPERSEDED
//
// Lock order, the same in every transaction that touches an item's content: first the item's row
// (content.Target.Lock), then suggestion rows. PATCH of the item takes only the item's row. So
// suggest, approve, reject and PATCH of one item serialise on its row and cannot deadlock.
type Service struct {
	db      *gorm.DB
	store   *Store
	targets map[string]content.Target
	audit   auditlog.Recorder
	clock   clock.Clock
}

// ServiceParams are the dependencies of NewService.
type ServiceParams struct {
	fx.In
	DB      *gorm.DB
	Store   *Store
	Targets []content.Target `group:"contentTargets"`
	Audit   auditlog.Recorder
	Clock   clock.Clock
}

// NewService returns the suggestions service.
func NewService(p ServiceParams) *Service {
	targets := make(map[string]content.Target, len(p.Targets))
	for _, t := range p.Targets {
		targets[t.Kind()] = t
	}
	return &Service{db: p.DB, store: p.Store, targets: targets, audit: p.Audit, clock: p.Clock}
}

// Kinds returns the kinds of suggestible items.
func (s *Service) Kinds() []string {
	out := make([]string, 0, len(s.targets))
	for k := range s.targets {
		out = append(out, k)
	}
	return out
}

// ValidateRationale checks the optional rationale.
func ValidateRationale(r string) error {
	if utf8.RuneCountInString(r) > 2000 {
		return ErrRationale
	}
	return nil
}

// Suggest records a PENDING suggestion for an item the principal may write; the item's previous
// PENDING suggestion becomes SUPERSEDED in the same transaction. The item is not changed.
func (s *Service) Suggest(ctx context.Context, p *auth.Principal, kind, itemID string, doc markdown.Doc, rationale string) (Suggestion, error) {
	target := s.targets[kind]
	suggested, err := markdown.Encode(doc)
	if err != nil {
		return Suggestion{}, err
	}
	var sg Suggestion
	err = db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		item, err := target.Lock(ctx, tx, p, itemID)
		if err != nil {
			return err
		}
		original, err := markdown.Encode(item.Content)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		if err := s.store.supersedePending(ctx, tx, kind, item.ID, p.UserID, now); err != nil {
			return err
		}
		sg = Suggestion{ID: ids.New(), ItemKind: kind, ItemID: item.ID, Status: StatusPending, OriginalContent: original,
			SuggestedContent: suggested, Rationale: rationale, CreatedByID: p.UserID, CreatedAt: now}
		if err := s.store.create(ctx, tx, &sg); err != nil {
			return err
		}
		return s.record(ctx, tx, p, kind+".suggest", item)
	})
	return sg, err
}

func (s *Service) record(ctx context.Context, tx *gorm.DB, p *auth.Principal, action string, item content.Item) error {
	return s.audit.Record(ctx, tx, p, auditlog.Entry{Action: action, ResourceType: item.Kind, ResourceID: item.ID, WorkspaceID: item.WorkspaceID, NotebookID: &item.NotebookID})
}

// Approve applies a PENDING suggestion: in one transaction, a snapshot of the item's current
// content, the suggested content (tags, hasDecision and updatedAt follow as for a PATCH), the
// APPROVED status and the audit entry.
func (s *Service) Approve(ctx context.Context, p *auth.Principal, id string) error {
	return s.resolve(ctx, p, id, StatusApproved)
}

// Reject marks a PENDING suggestion REJECTED; the content is unchanged.
func (s *Service) Reject(ctx context.Context, p *auth.Principal, id string) error {
	return s.resolve(ctx, p, id, StatusRejected)
}

// resolveVerbs are the audit verbs of the resolving statuses: note.approve, task.reject, ...
var resolveVerbs = map[string]string{StatusApproved: "approve", StatusRejected: "reject"}

func (s *Service) resolve(ctx context.Context, p *auth.Principal, id, status string) error {
	if !ids.Valid(id) {
		return ErrNotFound
	}
	first, err := s.store.get(ctx, nil, id, false)
	if err != nil {
		return err
	}
	target, ok := s.targets[first.ItemKind]
	if !ok {
		return ErrNotFound
	}
	return db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		item, err := target.Lock(ctx, tx, p, first.ItemID)
		if err != nil {
			// A suggestion of an item the caller cannot reach, or of a deleted item, is not found.
			var ae *apierr.Error
			if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
				return ErrNotFound
			}
			return err
		}
		sg, err := s.store.get(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if sg.Status != StatusPending {
			return ErrAlreadyResolved
		}
		verb := resolveVerbs[status]
		if status == StatusApproved {
			doc, err := markdown.Decode(sg.SuggestedContent)
			if err != nil {
				return err
			}
			if err := target.Replace(ctx, tx, p, item, doc, items.ReasonSuggestion, item.Kind+"."+verb); err != nil {
				return err
			}
		} else if err := s.record(ctx, tx, p, item.Kind+"."+verb, item); err != nil {
			return err
		}
		resolved, err := s.store.resolve(ctx, tx, id, status, p.UserID, s.clock.Now())
		if err != nil {
			return err
		}
		if !resolved {
			return ErrAlreadyResolved
		}
		return nil
	})
}

// List returns a page of an item's suggestions, newest first.
func (s *Service) List(ctx context.Context, p *auth.Principal, kind, itemID string, page paginate.Params) ([]Suggestion, *string, error) {
	item, err := s.targets[kind].Get(ctx, p, itemID)
	if err != nil {
		return nil, nil, err
	}
	return s.store.list(ctx, kind, item.ID, page)
}

// PendingFor implements content.Pending for GET /notes/:id.
func (s *Service) PendingFor(ctx context.Context, kind, itemID string) (*content.Suggestion, error) {
	sg, err := s.store.pending(ctx, kind, itemID)
	if err != nil || sg == nil {
		return nil, err
	}
	resp, err := toSuggestionResponse(*sg)
	if err != nil {
		return nil, err
	}
	return &resp, nil
}
