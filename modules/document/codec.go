// Package document is an item's document (a note's content, a task's notes) between the API's
// Markdown and its stored form, over the codec (platform/markdown): Parse reads a body field with
// the API's errors and keeps the Markdown it wrote (Parsed, which a write hands to every reader of
// its text), Encode and Decode are the stored form, and Render turns a stored document back into
// the Markdown of a response, memoized by the render cache (render_cache.go) for reads; module.go
// wires the cache's bound and metrics.
package document

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"folio/platform/apierr"
	"folio/platform/markdown"
)

// MaxLength is the longest note content or task notes, in characters: the codec's limit, which
// applies to the canonical Markdown the service stores and returns (CONTRACT section 1).
const MaxLength = markdown.MaxLength

// Parsed is a document with its Markdown as responses carry it (Text). A write carries it from
// the request to every reader of the document's text (the search index, the event's data, the
// response), so that it renders the document once: Parse has the Markdown anyway (the length
// check writes it), and Of renders a document that comes decoded (a restored version, an approved
// suggestion) once.
type Parsed struct {
	Doc      markdown.Doc
	Markdown string // Text(Doc)
}

// Of is doc with its Markdown, rendered now.
func Of(doc markdown.Doc) Parsed { return Parsed{Doc: doc, Markdown: Text(doc)} }

// Parse validates Markdown sent in a body field. The input may have at most MaxLength characters
// (a cheap first bound on the codec's work), and so may the canonical Markdown the service will
// store and return: reference links are written out at every use, special characters escaped,
// table rows padded, so that a short input can read back much longer. The codec finds that out
// without building the document (markdown.ParseCanonical); over the limit is 400
// VALIDATION_ERROR naming the field and saying why, like an input over the limit. Other codec
// errors become 400 INVALID_MARKDOWN naming the construct and line. The document comes with
// that Markdown, the text the write hands on (Parsed).
func Parse(field, src string) (Parsed, error) {
	if utf8.RuneCountInString(src) > MaxLength {
		return Parsed{}, apierr.Validation("field %q must be at most %d characters", field, MaxLength)
	}
	doc, text, err := markdown.ParseCanonical(src)
	if err != nil {
		var me *markdown.Error
		if errors.As(err, &me) {
			if me.Construct == markdown.ConstructLength {
				msg := me.Error()
				if strings.HasPrefix(msg, "would") {
					return Parsed{}, apierr.Validation("field %q %s", field, msg).Wrap(err)
				}
				return Parsed{}, apierr.Validation("field %q: %s", field, msg).Wrap(err)
			}
			return Parsed{}, apierr.New(http.StatusBadRequest, apierr.CodeInvalidMarkdown, fmt.Sprintf("field %q: %s", field, me.Error())).Wrap(err)
		}
		return Parsed{}, err
	}
	return Parsed{Doc: doc, Markdown: text}, nil
}

// Encode is the stored form of a document being written. Its Markdown goes into the render cache
// under those bytes (the one hash of the write), so that the next read of the item, often the
// next request (the client reading back what it wrote, the first page of a list), finds it
// rendered. The write itself reads nothing from the cache: its readers take p.Markdown. The
// codec's tests hold Decode(Encode(d)) to render as d does, so the entry is what Render would
// compute.
func Encode(p Parsed) ([]byte, error) {
	stored, err := markdown.Encode(p.Doc)
	if err != nil {
		return nil, err
	}
	if len(stored) >= renderCacheMinLen && rendered.enabled() {
		rendered.put(sha256.Sum256(stored), strings.Clone(p.Markdown)) // an exact copy, as Render keeps
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
