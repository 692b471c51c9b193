package calendar

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"go.uber.org/fx"

	"folio/modules/items"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/holdings"
	"folio/platform/ids"
	"folio/platform/paginate"
)

// Limits of the calendar feeds (CONTRACT.md section 21; docs/api.md, "Calendar feeds").
const (
	// MaxPerUser is how many feeds a user may have.
	MaxPerUser = 10
	// MaxName is the longest name, in characters (a workspace's bound: a calendar app shows it).
	MaxName = 80
	// MaxEvents bounds a feed: it shows the events of the most recently changed items, whole
	// items only, up to this many events.
	MaxEvents = 500
)

// Service manages calendar feeds and reads them.
type Service struct {
	store  *Store
	clock  clock.Clock
	hasher auth.Hasher
	// rule is the access rule (CONTRACT.md section 20): a feed's credential is resolved at every
	// fetch (Rule.Hold), and what it reads is read as that credential (the sources).
	rule      *auth.Rule
	notebooks items.Notebooks
	// sources are the kinds of item a feed shows (notes, tasks), each read through its lists'
	// own checks (items.CalendarSource, joined by those modules).
	sources []items.CalendarSource
}

// ServiceParams are the dependencies of NewService.
type ServiceParams struct {
	fx.In
	Store     *Store
	Clock     clock.Clock
	Hasher    auth.Hasher
	Rule      *auth.Rule
	Notebooks items.Notebooks
	Sources   []items.CalendarSource `group:"calendarSources"`
}

// NewService returns the calendar service.
func NewService(p ServiceParams) *Service {
	return &Service{store: p.Store, clock: p.Clock, hasher: p.Hasher, rule: p.Rule, notebooks: p.Notebooks, sources: p.Sources}
}

// NewFeed is a create request.
type NewFeed struct {
	Name       string
	NotebookID *string
}

// View is a feed as its owner sees it: its status decided now from its credential and its
// notebook, and the key it belongs to (nil for a web session's).
type View struct {
	Feed
	// Holder is its credential; Holder.Dead says why the feed shows nothing (its address answers
	// 404): auth.DeadKeyRevoked, auth.DeadKeyExpired or auth.DeadAccessLost.
	holdings.Holder
}

// Created is a new feed with its token, which only the create answer shows.
type Created struct {
	View
	Token string
}

// MayCreate checks the principal's scope for creating a feed, before the request's body is read
// (CONTRACT.md section 6: 403 before 400). A feed reads what it serves, so it needs read scope,
// and POST needs write scope: read and write, as for a webhook (section 20). A write-only key's
// feed would read nothing from its first fetch.
func MayCreate(p *auth.Principal) error {
	if !p.Can(auth.ScopeReadWrite) {
		return apierr.ErrInsufficient.WithMessage("creating a calendar feed needs a key with read and write scope (3): a feed reads what it shows")
	}
	return nil
}

// Create validates and stores a feed that belongs to the principal's credential, with a new
// token; the answer is the only place the token is shown. The name is 1 to MaxName characters and
// not blank; notebookId names a notebook the principal can read (the item lists' check and
// codes); a user has at most MaxPerUser feeds.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in NewFeed) (Created, error) {
	if err := MayCreate(p); err != nil {
		return Created{}, err
	}
	if strings.TrimSpace(in.Name) == "" || utf8.RuneCountInString(in.Name) > MaxName {
		return Created{}, ErrName
	}
	if in.NotebookID != nil {
		if _, err := s.notebooks.ItemNotebook(ctx, nil, p, *in.NotebookID); err != nil {
			return Created{}, err
		}
	}
	token := rand.Text()
	ref := p.Ref()
	f := Feed{ID: ids.New(), UserID: p.UserID, Name: in.Name, NotebookID: in.NotebookID, TokenHash: s.hasher.Hash(token),
		KeyWorkspaceID: p.WorkspaceID, KeyNotebookID: p.NotebookID, CredentialKind: string(ref.Kind), CredentialID: ref.ID,
		CreatedAt: s.clock.Now()}
	if err := s.store.Create(ctx, f.UserID, &f, MaxPerUser, ErrLimit, "calendar feeds"); err != nil {
		return Created{}, err
	}
	return Created{View: View{Feed: f, Holder: holdings.HolderOfPrincipal(p)}, Token: token}, nil
}

// hold resolves the feeds' credentials now (auth.Rule.Hold, from the database): a feed reads as
// its credential's principal, unless the credential is dead, or the feed's notebook is out of
// that principal's reach (then it is dead too, auth.DeadAccessLost).
func (s *Service) hold(ctx context.Context, feeds []Feed) ([]auth.Held, error) {
	refs := holdings.Refs(feeds, Feed.Credential)
	byRef, err := s.rule.Hold(ctx, refs)
	if err != nil {
		return nil, err
	}
	out := make([]auth.Held, len(feeds))
	for i, f := range feeds {
		h := byRef[refs[i]]
		if h.Principal != nil && f.NotebookID != nil {
			_, err := s.notebooks.ItemNotebook(ctx, nil, h.Principal, *f.NotebookID)
			var ae *apierr.Error
			switch {
			case err == nil:
			case errors.As(err, &ae) && ae.Status < 500:
				h.Principal, h.Dead = nil, auth.DeadAccessLost
			default:
				return nil, err
			}
		}
		out[i] = h
	}
	return out, nil
}

// views decides each feed's status now (hold).
func (s *Service) views(ctx context.Context, feeds []Feed) ([]View, error) {
	hs, err := s.hold(ctx, feeds)
	if err != nil {
		return nil, err
	}
	out := make([]View, len(feeds))
	for i, f := range feeds {
		out[i] = View{Feed: f, Holder: holdings.HolderOf(f.Credential(), hs[i])}
	}
	return out, nil
}

// List returns a page of the feeds the principal manages (holdings.Table.Owned), with their
// status decided now.
func (s *Service) List(ctx context.Context, p *auth.Principal, page paginate.Params) ([]View, *string, error) {
	return holdings.Page(s.store.Store, s.views)(ctx, p, page)
}

// Delete removes one of the feeds the principal manages; its address answers 404 at once.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id string) error {
	return s.store.Remove(ctx, table.OwnedBy(p), id, nil)
}

// ForUser lists every feed of a user, whatever credential made it, newest first, with its status:
// the settings UI shows them beside the keys.
func (s *Service) ForUser(ctx context.Context, userID string) ([]View, error) {
	feeds, err := s.store.OfUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	return s.views(ctx, feeds)
}

// DeleteForUser deletes one of a user's feeds, whatever credential made it (the settings UI);
// another user's is ErrNotFound.
func (s *Service) DeleteForUser(ctx context.Context, userID, id string) error {
	return s.store.Remove(ctx, table.ByUser(userID), id, nil)
}

// TokenShape reports whether s has the shape of a feed's token (crypto/rand.Text: 26 characters
// of the base32 alphabet), so that a malformed address costs no query.
func TokenShape(s string) bool {
	if len(s) != 26 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// Open resolves a token to its live feed and the principal it reads as now (hold). An unknown
// token and a dead feed are both ErrNotFound (the address tells nothing more); dead is then the
// reason for the failure count: one of the auth.Failure* reasons.
func (s *Service) Open(ctx context.Context, token string) (f Feed, p *auth.Principal, dead string, err error) {
	if !TokenShape(token) {
		return Feed{}, nil, auth.FailureMalformed, ErrNotFound
	}
	f, err = s.store.byTokenHash(ctx, s.hasher.Hash(token))
	if errors.Is(err, ErrNotFound) {
		return Feed{}, nil, auth.FailureInvalid, ErrNotFound
	}
	if err != nil {
		return Feed{}, nil, "", err
	}
	hs, err := s.hold(ctx, []Feed{f})
	if err != nil {
		return Feed{}, nil, "", err
	}
	switch h := hs[0]; {
	case h.Principal != nil:
		return f, h.Principal, "", nil
	case h.Dead == auth.DeadKeyExpired:
		return Feed{}, nil, auth.FailureExpired, ErrNotFound
	case h.Dead == auth.DeadKeyRevoked:
		return Feed{}, nil, auth.FailureRevoked, ErrNotFound
	default:
		return Feed{}, nil, auth.FailureInvalid, ErrNotFound
	}
}

// Entries reads what feed f shows, as principal p (Open's): the dated items of every source, the
// most recently changed first (then by id, so that the order is stable), whole items only, up to
// MaxEvents events. An item is shown through its source, which reads it as the item lists do.
func (s *Service) Entries(ctx context.Context, f Feed, p *auth.Principal) ([]items.CalendarItem, error) {
	var all []items.CalendarItem
	for _, src := range s.sources {
		// An item has at least one event: no more than MaxEvents items of a kind can be shown.
		got, err := src.Calendar(ctx, p, f.NotebookID, MaxEvents)
		var ae *apierr.Error
		if errors.As(err, &ae) && ae.Status < 500 {
			return nil, ErrNotFound // the notebook left its reach since Open: dead, as Open would say
		}
		if err != nil {
			return nil, err
		}
		all = append(all, got...)
	}
	slices.SortFunc(all, func(a, b items.CalendarItem) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	n := 0
	for i, d := range all {
		if n += len(occasions(d)); n > MaxEvents {
			return all[:i], nil
		}
	}
	return all, nil
}
