// Package content declares the plugin points between the modules that hold Markdown content
// (notes, tasks) and the suggestions module, so that neither imports the other:
//
//   - each content module registers a Target in the fx value group "contentTargets";
//     the suggestions module looks targets up by Kind, so a third kind of suggestible content is
//     one more registration;
//   - the suggestions module provides Pending, which the notes module uses (optionally) to show
//     the pending suggestion on GET /notes/:id.
package content

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"

	"gorm.io/gorm"

	"folio/modules/journal"
	"folio/platform/apierr"
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
	ETag        string // the item's ETag as loaded (an approval's If-Match is checked against it)
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
	// and then the events also. The row must be locked by Lock first.
	Replace(ctx context.Context, tx *gorm.DB, p *auth.Principal, item Item, doc markdown.Doc, reason, action string, also ...journal.Event) error
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

// MaxLength is the longest note content or task notes, in characters: the codec's limit, which
// applies to the canonical Markdown the service stores and returns (CONTRACT section 1).
const MaxLength = markdown.MaxLength

// Parse validates Markdown sent in a body field. The input may have at most MaxLength characters
// (a cheap first bound on the codec's work), and so may the canonical Markdown the service will
// store and return: reference links are written out at every use, special characters escaped,
// table rows padded, so that a short input can read back much longer. The codec finds that out
// without building the document (markdown.ParseCanonical); over the limit is 400
// VALIDATION_ERROR naming the field and saying why, like an input over the limit. Other codec
// errors become 400 INVALID_MARKDOWN naming the construct and line.
func Parse(field, src string) (markdown.Doc, error) {
	if utf8.RuneCountInString(src) > MaxLength {
		return markdown.Doc{}, apierr.Validation("field %q must be at most %d characters", field, MaxLength)
	}
	doc, _, err := markdown.ParseCanonical(src)
	if err != nil {
		var me *markdown.Error
		if errors.As(err, &me) {
			if me.Construct == markdown.ConstructLength {
				msg := me.Error()
				if strings.HasPrefix(msg, "would") {
					return markdown.Doc{}, apierr.Validation("field %q %s", field, msg).Wrap(err)
				}
				return markdown.Doc{}, apierr.Validation("field %q: %s", field, msg).Wrap(err)
			}
			return markdown.Doc{}, apierr.New(http.StatusBadRequest, apierr.CodeInvalidMarkdown, fmt.Sprintf("field %q: %s", field, me.Error())).Wrap(err)
		}
		return markdown.Doc{}, err
	}
	return doc, nil
}

// Encode is the stored form of a document being written. Its text is remembered with it (the
// render cache's entry for those bytes): the write's search index, its audit and event data and
// its response render the stored document next, and would otherwise decode what was just encoded
// and render it again (for a 2 KB note, a third of folio's CPU per create). The codec's tests
// hold Decode(Encode(d)) to render as d does, so the entry is what Render would compute.
func Encode(doc markdown.Doc) ([]byte, error) {
	stored, err := markdown.Encode(doc)
	if err != nil {
		return nil, err
	}
	if len(stored) >= renderCacheMinLen && rendered.enabled() {
		rendered.put(sha256.Sum256(stored), strings.Clone(Text(doc))) // an exact copy, as Render keeps
	}
	return stored, nil
}

// Decode reads a stored document.
func Decode(stored []byte) (markdown.Doc, error) { return markdown.Decode(stored) }

// Render turns a stored document back into the Markdown of a response. Results are memoized by
// the document's bytes (see render_cache.go).
func Render(stored []byte) (string, error) {
	var key [32]byte
	cached := len(stored) >= renderCacheMinLen && rendered.enabled()
	if cached {
		key = sha256.Sum256(stored)
		if text, ok := rendered.get(key); ok {
			return text, nil
		}
	}
	text, err := RenderOnce(stored)
	if err != nil {
		return "", err
	}
	if cached {
		// The rendered text shares the buffer it was written in, which has room to spare (about
		// as much again for a short note): the cache keeps an exact copy, so that the bytes it
		// counts against its bound are the bytes it holds.
		text = strings.Clone(text)
		rendered.put(key, text)
	}
	return text, nil
}

// RenderOnce is Render without the cache, for a reader that reads each document once (an export):
// caching its documents would only evict what the API's readers use.
func RenderOnce(stored []byte) (string, error) {
	doc, err := markdown.Decode(stored)
	if err != nil {
		return "", fmt.Errorf("decode stored document: %w", err)
	}
	return Text(doc), nil
}

// Text is the Markdown of a document as responses carry it: the codec's canonical form without
// its final newline, so that a client sending "Buy milk" reads back "Buy milk", and sending back
// what it read changes nothing.
func Text(doc markdown.Doc) string { return strings.TrimSuffix(markdown.Render(doc), "\n") }

// UnifiedDiff is the unified line diff from one Markdown text to another ("current" to
// "suggested"), empty when they are the same. Both texts get a final newline first, so that the
// diff has no "\ No newline at end of file" markers: responses carry Markdown without its final
// newline. The suggestion inbox's diff and the review pages use it.
func UnifiedDiff(from, to string) string {
	return udiff.Unified("current", "suggested", from+"\n", to+"\n")
}
