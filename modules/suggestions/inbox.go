package suggestions

import (
	"context"
	"errors"
	"net/http"

	udiff "github.com/aymanbagabas/go-udiff"
	"gorm.io/gorm"

	"folio/modules/document"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/db"
	"folio/platform/ids"
	"folio/platform/paginate"
)

// InboxFilter narrows the suggestion inbox (GET /suggestions, CONTRACT.md section 16).
type InboxFilter struct {
	Status     string  // PENDING by default
	ItemKind   *string // note or task; nil: both
	NotebookID *string
}

// InboxEntry is a suggestion with its item as the inbox shows it: the item's notebook and its
// current content (Current, the stored document, with its stored text CurrentText), from which
// stale and the diff are made.
type InboxEntry struct {
	Suggestion  `gorm:"embedded"`
	NotebookID  string
	Current     db.JSON          `gorm:"column:item_content"`
	CurrentText document.Written `gorm:"embedded;embeddedPrefix:item_content_"`
}

// texts are the Markdown of the suggestion's original, the item's current content and the
// suggested content, as GETs read them (their stored texts).
func (e InboxEntry) texts() (original, current, suggested string, err error) {
	if original, err = document.Read(e.OriginalContent, e.OriginalText); err != nil {
		return "", "", "", err
	}
	if current, err = document.Read(e.Current, e.CurrentText); err != nil {
		return "", "", "", err
	}
	suggested, err = document.Read(e.SuggestedContent, e.SuggestedText)
	return original, current, suggested, err
}

// Stale says whether the item's content changed since the suggestion was made.
func (e InboxEntry) Stale() (bool, error) {
	original, current, _, err := e.texts()
	return current != original, err
}

// Plan is what approving the suggestion would do to the item's current content (merge.go):
// whether it is stale and mergeable, its hunks and its conflicts. As stale and the diff, it is
// made whatever the suggestion's status.
func (e InboxEntry) Plan() (Plan, error) {
	original, current, suggested, err := e.texts()
	if err != nil {
		return Plan{}, err
	}
	return plan(original, current, suggested), nil
}

// Diff is the unified diff, lines of Markdown, from the item's current content to the suggested
// one; empty when they are the same. Both texts get a final newline first, so that the diff has
// no "\ No newline at end of file" markers: responses carry Markdown without its final newline.
// The inbox's diff and the review pages show it.
func (e InboxEntry) Diff() (string, error) {
	_, current, suggested, err := e.texts()
	if err != nil {
		return "", err
	}
	return udiff.Unified("current", "suggested", current+"\n", suggested+"\n"), nil
}

// Inbox returns a page of the suggestions on every item the principal can read, newest first.
// One query: per kind of item, the suggestions joined to the items the principal may read
// (content.Target.Readable, the same rules as the item's own list), all kinds in one UNION ALL,
// sorted and paged by the keyset of every list.
func (s *Service) Inbox(ctx context.Context, p *auth.Principal, f InboxFilter, page paginate.Params) ([]InboxEntry, *string, error) {
	if f.NotebookID != nil {
		// As the item lists do: an unknown or unreachable notebook is its 404, a notebook outside
		// a key's restriction its 403.
		if _, err := s.notebooks.ItemNotebook(ctx, nil, p, *f.NotebookID); err != nil {
			return nil, nil, err
		}
	}
	kinds := s.Kinds()
	if f.ItemKind != nil {
		kinds = []string{*f.ItemKind}
	}
	list := s.store.inbox(ctx, s.readable(p, kinds)).Where("suggestions.status = ?", f.Status)
	if f.NotebookID != nil {
		list = list.Where("suggestions.notebook_id = ?", *f.NotebookID)
	}
	// The cursor is located among every suggestion the principal can read, whatever the filters.
	scope := s.store.inbox(ctx, s.readable(p, s.Kinds()))
	return paginate.Find(list, scope, keyset, page, func(e InboxEntry) string { return e.ID })
}

// readable maps each kind to the subquery of its items the principal may read.
func (s *Service) readable(p *auth.Principal, kinds []string) map[string]*gorm.DB {
	out := make(map[string]*gorm.DB, len(kinds))
	for _, k := range kinds {
		out[k] = s.targets[k].Readable(s.db, p)
	}
	return out
}

// Get returns one suggestion with its item, if the principal may read the item: a suggestion of
// an item it cannot reach is SUGGESTION_NOT_FOUND; a restricted key's 403 stays what it is for
// the item (as for approve and reject).
func (s *Service) Get(ctx context.Context, p *auth.Principal, id string) (InboxEntry, error) {
	if !ids.Valid(id) {
		return InboxEntry{}, ErrNotFound
	}
	sg, err := s.store.get(ctx, nil, id, false)
	if err != nil {
		return InboxEntry{}, err
	}
	target, ok := s.targets[sg.ItemKind]
	if !ok {
		return InboxEntry{}, ErrNotFound
	}
	item, err := target.Get(ctx, p, sg.ItemID)
	if err != nil {
		return InboxEntry{}, asSuggestionNotFound(err)
	}
	rows, _, err := paginate.Find(s.store.inbox(ctx, s.readable(p, []string{sg.ItemKind})).Where("suggestions.id = ?", id),
		nil, keyset, paginate.Params{Limit: 1}, func(e InboxEntry) string { return e.ID })
	if err != nil {
		return InboxEntry{}, err
	}
	if len(rows) == 0 { // the item was deleted between the two reads
		return InboxEntry{}, ErrNotFound
	}
	rows[0].NotebookID = item.NotebookID
	return rows[0], nil
}

// parseStatus checks the status filter.
func parseStatus(v string) (string, error) {
	switch v {
	case StatusPending, StatusApproved, StatusRejected, StatusSuperseded:
		return v, nil
	}
	return "", apierr.Validation("query parameter \"status\" must be one of PENDING, APPROVED, REJECTED, SUPERSEDED")
}

// asSuggestionNotFound turns the item's 404 into the suggestion's: a suggestion of an item the
// caller cannot reach, or of a deleted item, is not found. Other errors (a restricted key's 403)
// stay.
func asSuggestionNotFound(err error) error {
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return ErrNotFound
	}
	return err
}
