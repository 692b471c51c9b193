package suggestions

import (
	"bytes"
	"context"
	"unicode/utf8"

	"go.uber.org/fx"
	"gorm.io/gorm"

	"folio/modules/content"
	"folio/modules/document"
	"folio/modules/items"
	"folio/modules/journal"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/db"
	"folio/platform/etag"
	"folio/platform/ids"
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
	db        *gorm.DB
	store     *Store
	targets   map[string]content.Target
	notebooks items.Notebooks
	audit     journal.Recorder
	clock     clock.Clock
}

// ServiceParams are the dependencies of NewService.
type ServiceParams struct {
	fx.In
	DB        *gorm.DB
	Store     *Store
	Targets   []content.Target `group:"contentTargets"`
	Notebooks items.Notebooks
	Audit     journal.Recorder
	Clock     clock.Clock
}

// NewService returns the suggestions service.
func NewService(p ServiceParams) *Service {
	targets := make(map[string]content.Target, len(p.Targets))
	for _, t := range p.Targets {
		targets[t.Kind()] = t
	}
	return &Service{db: p.DB, store: p.Store, targets: targets, notebooks: p.Notebooks, audit: p.Audit, clock: p.Clock}
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
// PENDING suggestion becomes SUPERSEDED in the same transaction. The item is not changed. The
// suggestion comes back with its answer built, the data of its event, with doc's Markdown.
func (s *Service) Suggest(ctx context.Context, p *auth.Principal, kind, itemID string, doc document.Parsed, rationale string) (Suggestion, error) {
	target := s.targets[kind]
	suggested, err := document.Encode(doc)
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
		// The item's content as it stands, read as a GET reads it (its stored text).
		originalText := item.Text
		now := s.clock.Now()
		// The previous pending suggestion, read under the item's lock, is superseded: its event
		// comes before the new one's.
		prev, err := s.store.pending(ctx, tx, kind, item.ID)
		if err != nil {
			return err
		}
		if err := s.store.supersedePending(ctx, tx, kind, item.ID, p.UserID, now); err != nil {
			return err
		}
		var events []journal.Event
		if prev != nil {
			prev.Status, prev.ResolvedAt, prev.ResolvedByID, prev.Version = StatusSuperseded, &now, &p.UserID, prev.Version+1
			ev, _, err := suggestionEvent(EventSuperseded, item, *prev)
			if err != nil {
				return err
			}
			events = append(events, ev)
		}
		sg = Suggestion{ID: ids.New(), ItemKind: kind, ItemID: item.ID, Status: StatusPending, OriginalContent: original,
			SuggestedContent: suggested, OriginalText: document.Current(originalText), SuggestedText: doc.Written(), Rationale: rationale, CreatedByID: p.UserID, CreatedAt: now, Version: 1, ItemVersion: &item.Version}
		if p.Credential == auth.CredentialKey {
			sg.CreatedByKeyName, sg.CreatedByKeyPrefix = &p.KeyName, &p.KeyPrefix
		}
		if err := s.store.create(ctx, tx, &sg); err != nil {
			return err
		}
		resp := suggestionOf(sg, originalText, doc.Markdown)
		sg.response = &resp
		// The item's pending suggestion changed: a note's ETag must change with it.
		if err := target.Touch(ctx, tx, item); err != nil {
			return err
		}
		created, _, err := suggestionEvent(EventCreated, item, sg)
		if err != nil {
			return err
		}
		// Its data is the suggestion as the suggest answers it, mergeable included.
		created.Data = Proposed{Suggestion: resp, Mergeable: true}
		return s.record(ctx, tx, p, kind+".suggest", item, append(events, created)...)
	})
	return sg, err
}

// record writes the audit entry action on the item, with the suggestion events it emits.
func (s *Service) record(ctx context.Context, tx *gorm.DB, p *auth.Principal, action string, item content.Item, events ...journal.Event) error {
	return s.audit.Record(ctx, tx, p, journal.Entry{Action: action, ResourceType: item.Kind, ResourceID: item.ID, WorkspaceID: item.WorkspaceID, NotebookID: &item.NotebookID, Events: events})
}

// suggestionEvent is the event evType of sg, a suggestion of item, with the suggestion as the
// suggest endpoint answers it (content.Suggestion) as its data, which it returns too.
func suggestionEvent(evType string, item content.Item, sg Suggestion) (journal.Event, content.Suggestion, error) {
	data, err := toSuggestionResponse(sg)
	if err != nil {
		return journal.Event{}, content.Suggestion{}, err
	}
	return journal.Event{Type: evType, ResourceType: "suggestion", ResourceID: sg.ID, NotebookID: &item.NotebookID, WorkspaceID: item.WorkspaceID, Data: data}, data, nil
}

// The module's event types (CONTRACT.md section 18), declared in module.go.
const (
	EventCreated    = "suggestion.created"
	EventApproved   = "suggestion.approved"
	EventRejected   = "suggestion.rejected"
	EventSuperseded = "suggestion.superseded"
)

// resolveEvents are the event types of the resolving statuses.
var resolveEvents = map[string]string{StatusApproved: EventApproved, StatusRejected: EventRejected}

// ApproveRequest is an approval as the client asked for it.
type ApproveRequest struct {
	// IfMatch carries the ETag of the item as the reviewer saw it.
	IfMatch etag.IfMatch
	// Choose: only the hunks named in Hunks are applied (a partial approval); else all are.
	Choose bool
	// Hunks are the chosen hunks' indexes as the client wrote them (JSON number literals, form
	// values), checked against the suggestion's hunks under the item's lock.
	Hunks []string
}

// Approval is an approval's outcome: the suggestion as resolved; Merged when its changes were
// merged with changes made to the item since it was proposed; Partial when only some of them
// were applied (some hunks chosen, or the conflicting ones left out).
type Approval struct {
	Suggestion
	Merged, Partial bool
}

// Approve applies a PENDING suggestion: in one transaction, a snapshot of the item's current
// content, the suggested content (tags, hasDecision and updatedAt follow as for a PATCH), the
// APPROVED status and the audit entry. req.IfMatch carries the ETag of the item as the reviewer
// saw it: checked under the item's lock, a stale one is 412 and the suggestion stays PENDING.
// When the item changed since the suggestion was made, its changes are merged into the current
// content (merge.go): overlapping changes are 409 SUGGESTION_CONFLICT and nothing changes.
// req.Hunks (with req.Choose) applies only those hunks.
func (s *Service) Approve(ctx context.Context, p *auth.Principal, id string, req ApproveRequest) (Approval, error) {
	var a Approval
	sg, err := s.resolve(ctx, p, id, StatusApproved, req.IfMatch, func(item content.Item, sg Suggestion, texts content.Suggestion) (document.Parsed, error) {
		doc, merged, partial, err := approved(item, sg, texts, req)
		a.Merged, a.Partial = merged, partial
		return doc, err
	})
	a.Suggestion = sg
	return a, err
}

// approved is the content approving sg makes of item's (texts is sg on the wire: its two
// documents' Markdown), whether it was merged, and whether it is partial.
func approved(item content.Item, sg Suggestion, texts content.Suggestion, req ApproveRequest) (doc document.Parsed, merged, partial bool, err error) {
	suggested := func() (document.Parsed, bool, bool, error) {
		// Made against the content as it stands: the suggested document, as SPEC.md has it.
		d, err := markdown.Decode(sg.SuggestedContent)
		return document.Parsed{Doc: d, Markdown: texts.SuggestedContent}, false, false, err
	}
	if !req.Choose {
		// The common case, told without rendering the current content.
		unchanged, err := sameDocument(item.Content, sg.OriginalContent)
		if err != nil {
			// Never the suggested content in place of one that could not be compared: it would
			// throw away an edit made since without a word.
			return document.Parsed{}, false, false, err
		}
		if unchanged {
			return suggested()
		}
	}
	pl := plan(texts.OriginalContent, item.Text, texts.SuggestedContent)
	if !req.Choose {
		switch {
		case !pl.Stale:
			return suggested()
		case !pl.Mergeable():
			return document.Parsed{}, false, false, pl.conflictError(item.Kind)
		}
		return *pl.merged, true, false, nil
	}
	chosen, err := pl.choose(req.Hunks)
	if err != nil {
		return document.Parsed{}, false, false, err
	}
	d, err := pl.read(chosen)
	if err != nil {
		return document.Parsed{}, false, false, partialError(chosen, err)
	}
	return d, pl.Stale, len(chosen) < len(pl.Hunks) || !pl.Mergeable(), nil
}

// sameDocument says whether doc is the stored document: compared in the codec's stored form
// (the database may space a stored document its own way, so stored is read and written again
// when its bytes differ).
func sameDocument(doc markdown.Doc, stored []byte) (bool, error) {
	encoded, err := markdown.Encode(doc)
	if err != nil || bytes.Equal(encoded, stored) {
		return err == nil, err
	}
	other, err := markdown.Decode(stored)
	if err != nil {
		return false, err
	}
	again, err := markdown.Encode(other)
	return bytes.Equal(encoded, again), err
}

// Reject marks a PENDING suggestion REJECTED; the content is unchanged. It returns the suggestion
// as resolved.
func (s *Service) Reject(ctx context.Context, p *auth.Principal, id string) (Suggestion, error) {
	return s.resolve(ctx, p, id, StatusRejected, etag.IfMatch{}, nil)
}

// resolveVerbs are the audit verbs of the resolving statuses: note.approve, task.reject, ...
var resolveVerbs = map[string]string{StatusApproved: "approve", StatusRejected: "reject"}

// resolve moves a PENDING suggestion to status. An approval (apply not nil) makes the item's
// content what apply answers, given the item as locked, the suggestion and the suggestion on the
// wire (its documents' Markdown, rendered once for its event); an error of apply changes nothing.
func (s *Service) resolve(ctx context.Context, p *auth.Principal, id, status string, ifMatch etag.IfMatch,
	apply func(item content.Item, sg Suggestion, texts content.Suggestion) (document.Parsed, error)) (Suggestion, error) {
	if !ids.Valid(id) {
		return Suggestion{}, ErrNotFound
	}
	first, err := s.store.get(ctx, nil, id, false)
	if err != nil {
		return Suggestion{}, err
	}
	target, ok := s.targets[first.ItemKind]
	if !ok {
		return Suggestion{}, ErrNotFound
	}
	var sg Suggestion
	err = db.Transaction(ctx, s.db, func(tx *gorm.DB) error {
		item, err := target.Lock(ctx, tx, p, first.ItemID)
		if err != nil {
			return asSuggestionNotFound(err)
		}
		sg, err = s.store.get(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if sg.Status != StatusPending {
			return ErrAlreadyResolved
		}
		// After the state check: a resolved suggestion is 409 whatever the item's ETag.
		if err := ifMatch.Check(item.ETag); err != nil {
			return err
		}
		verb := resolveVerbs[status]
		// The suggestion is resolved first, so that its event carries it as resolved.
		now := s.clock.Now()
		resolving := sg
		resolving.Status, resolving.ResolvedAt, resolving.ResolvedByID, resolving.Version = status, &now, &p.UserID, sg.Version+1
		ev, data, err := suggestionEvent(resolveEvents[status], item, resolving)
		if err != nil {
			return err
		}
		var doc document.Parsed
		if apply != nil {
			// Before any write: a conflict or a refused choice of hunks changes nothing.
			if doc, err = apply(item, sg, data); err != nil {
				return err
			}
		}
		resolved, err := s.store.resolve(ctx, tx, id, status, p.UserID, now)
		if err != nil {
			return err
		}
		if !resolved {
			return ErrAlreadyResolved
		}
		sg = resolving
		if apply != nil {
			// The item's note.updated (task.updated) event, then suggestion.approved.
			return target.Replace(ctx, tx, p, item, doc, items.ReasonSuggestion, item.Kind+"."+verb, ev)
		}
		if err := s.record(ctx, tx, p, item.Kind+"."+verb, item, ev); err != nil {
			return err
		}
		// The pending suggestion is gone and the content stays: a note's ETag must change.
		return target.Touch(ctx, tx, item)
	})
	return sg, err
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
	sg, err := s.store.pending(ctx, nil, kind, itemID)
	if err != nil || sg == nil {
		return nil, err
	}
	resp, err := toSuggestionResponse(*sg)
	if err != nil {
		return nil, err
	}
	return &resp, nil
}
