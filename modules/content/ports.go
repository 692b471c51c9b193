// Package content declares the plugin points between the modules that hold Markdown content
// (notes, tasks) and the modules that read and replace it (suggestions, versions), so that none
// imports another:
//
//   - each content module registers a Target in the fx value group "contentTargets" (AsTarget);
//     the suggestions and versions modules (and the review pages) look targets up by Kind, so a
//     third kind of suggestible content is one more registration;
//   - the suggestions module provides Pending, which the notes module uses (optionally) to show
//     the pending suggestion on GET /notes/:id, as a Suggestion, the wire type both answer with.
//
// The documents themselves, Markdown in and out, are modules/document's.
package content

import (
	"context"

	"go.uber.org/fx"
	"gorm.io/gorm"

	"folio/modules/document"
	"folio/modules/journal"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/markdown"
)

// Item is a content item as a Target shows it to the suggestions module.
type Item struct {
	Kind        string // "note" or "task"
	ID          string
	NotebookID  string
	WorkspaceID *string
	Content     markdown.Doc
	Text        string // Content's Markdown as a GET reads it (its stored text)
	ETag        string // the item's ETag as loaded (an approval's If-Match is checked against it)
	Version     int64  // the item's version as loaded, of which ETag is made (a suggestion records it)
	Label       string // how a person recognises the item in a list: a note's first line, a task's title
}

// Target is one kind of item whose content can be proposed and replaced.
type Target interface {
	// Kind names the items: "note" or "task".
	Kind() string
	// NotFound is the kind's 404 error (NOTE_NOT_FOUND, TASK_NOT_FOUND).
	NotFound() error
	// Get loads the item for reading, after checking that the principal may see it.
	Get(ctx context.Context, p *auth.Principal, id string) (Item, error)
	// Lock loads the item inside tx and locks its row until tx ends, after checking that the
	// principal may write it. An item the principal cannot reach, or a deleted one, is NotFound.
	Lock(ctx context.Context, tx *gorm.DB, p *auth.Principal, id string) (Item, error)
	// Replace makes doc the item's content inside tx, exactly as a PATCH of the content would:
	// snapshot of the previous content (with the given reason), tags, hasDecision, updatedAt and
	// the audit entry named action (e.g. "note.approve") with the item's updated event (note.updated)
	// and then the events also. doc's Markdown is the text of the search index and the event. The
	// row must be locked by Lock first.
	Replace(ctx context.Context, tx *gorm.DB, p *auth.Principal, item Item, doc document.Parsed, reason, action string, also ...journal.Event) error
	// Touch records inside tx that the item's pending suggestion changed (suggested, superseded or
	// rejected) without a change of its own fields: an item whose single read shows the pending
	// suggestion gets a new version, and so a new ETag. The row must be locked by Lock first.
	Touch(ctx context.Context, tx *gorm.DB, item Item) error
	// Readable is a subquery of the live items of this kind that the principal may read, with
	// the columns id, notebook_id and content (the stored document): the suggestion inbox joins
	// it, so that one query applies the same access rules as the item's own list.
	Readable(db *gorm.DB, p *auth.Principal) *gorm.DB
	// Restore makes doc (an earlier version's document) the item's content, as a change of its
	// own after checking write access and ifMatch: snapshot (reason restore), tags, audit entry
	// <kind>.restore and event <kind>.restored. It answers the item as the API renders it, and
	// its ETag.
	Restore(ctx context.Context, p *auth.Principal, id string, doc markdown.Doc, ifMatch etag.IfMatch) (any, string, error)
}

// AsTarget annotates a constructor whose result implements Target so that it joins the
// "contentTargets" value group that the suggestions and versions modules and the review pages read:
// fx.Provide(content.AsTarget(NewTarget)).
func AsTarget(constructor any) any {
	return fx.Annotate(constructor, fx.As(new(Target)), fx.ResultTags(`group:"contentTargets"`))
}

// Suggestion is a suggestion on the wire, its documents rendered: the suggestions module's answer
// to a suggest, and an item's pendingSuggestion in the notes module.
type Suggestion struct {
	ID               string `json:"id"`
	Status           string `json:"status"`
	OriginalContent  string `json:"originalContent"`
	SuggestedContent string `json:"suggestedContent"`
	Rationale        string `json:"rationale"`
	CreatedAt        string `json:"createdAt"`
}

// Pending finds the pending suggestion of an item (provided by the suggestions module).
type Pending interface {
	PendingFor(ctx context.Context, kind, itemID string) (*Suggestion, error)
}
