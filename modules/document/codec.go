// Package document is an item's document (a note's content, a task's notes, a suggestion's texts,
// a version's snapshot) between the API's Markdown and its stored form, over the codec
// (platform/markdown). A row keeps two columns per document: the codec's tree (db.JSON), the
// source of truth, and beside it the canonical Markdown written from that tree when the row was
// written (Written: the text and the codec version that wrote it). Parse reads a body field with
// the API's errors and keeps the Markdown it wrote (Parsed); Encode is the stored tree; Read is the
// Markdown of a response, the stored text, read without any Markdown work. rerender.go brings the
// texts of older rows, or of rows written by an older codec, up to date in the background.
package document

import (
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

// Codec is the version of the canonical Markdown the codec writes, stored beside every text
// (Written.Codec). Raise it with any change to platform/markdown that alters Render's output for
// some stored document: rows written by an older version are then read from their tree (rendered
// at read, as before this column existed) until the background re-render (rerender.go) has
// written their text again, in batches, while the server serves. 0 is a row whose text was never
// written (rows older than the column).
const Codec int16 = 1

// Parsed is a document with its Markdown as responses carry it (Text). A write carries it from
// the request to every reader of the document's text (the stored text, the search index, the
// event's data, the response), so that it renders the document once: Parse has the Markdown
// anyway (the length check writes it), and Of renders a document that comes decoded (a restored
// version, an approved suggestion) once.
type Parsed struct {
	Doc      markdown.Doc
	Markdown string // Text(Doc)
}

// Of is doc with its Markdown, rendered now.
func Of(doc markdown.Doc) Parsed { return Parsed{Doc: doc, Markdown: Text(doc)} }

// Written is the Markdown a row stores beside a document's tree: the text as the codec version
// Codec wrote it when the row was written. A row embeds it with the tree's column name and an
// underscore as the prefix (the tree in content: `gorm:"embedded;embeddedPrefix:content_"`, the
// columns content_markdown and content_codec), which the re-render and the suggestions' join rely
// on.
type Written struct {
	Markdown string `gorm:"not null;default:''"`
	Codec    int16  `gorm:"not null;default:0"`
}

// Written is the text a write stores beside p's tree.
func (p Parsed) Written() Written { return Current(p.Markdown) }

// Current is text as this codec wrote it: the canonical Markdown of a document, rendered by this
// codec (Text, a Parsed's Markdown, or a current stored text read back).
func Current(text string) Written { return Written{Markdown: text, Codec: Codec} }

// Current reports whether w was written by this codec: then it is what rendering the tree gives.
func (w Written) Current() bool { return w.Codec == Codec }

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

// Encode is the stored tree of a document being written; p.Written() is the text stored beside
// it. The codec's tests hold Decode(Encode(d)) to render as d does, and TestStoredTextIsTheRender
// holds p.Markdown to be that render over the codec's corpus, so the text read back later is what
// rendering the tree would give.
func Encode(p Parsed) ([]byte, error) { return markdown.Encode(p.Doc) }

// Decode reads a stored tree.
func Decode(stored []byte) (markdown.Doc, error) { return markdown.Decode(stored) }

// Read is the Markdown of a response for a stored document: its stored text when this codec wrote
// it (no Markdown work at all), else the tree rendered now (a row the background re-render has
// not reached yet; see Codec).
func Read(tree []byte, w Written) (string, error) {
	if w.Current() {
		return w.Markdown, nil
	}
	return Render(tree)
}

// TreeIfStale is a SELECT list's expression for a document's tree (column tree of table) in a
// read of many rows: the tree only where the stored text is not current, NULL
// elsewhere, so that a page does not carry every note's tree besides its text. Read needs no tree
// for a current text.
func TreeIfStale(table, tree string) string {
	return fmt.Sprintf("CASE WHEN %s.%s_codec = %d THEN NULL ELSE %s.%s END", table, tree, Codec, table, tree)
}

// Render turns a stored tree back into the Markdown of a response: for a row whose text is not
// current (Read), and for the re-render that writes it.
func Render(tree []byte) (string, error) {
	doc, err := markdown.Decode(tree)
	if err != nil {
		return "", fmt.Errorf("decode stored document: %w", err)
	}
	return Text(doc), nil
}

// Text is the Markdown of a document as responses carry it: the codec's canonical form without
// its final newline, so that a client sending "Buy milk" reads back "Buy milk", and sending back
// what it read changes nothing.
func Text(doc markdown.Doc) string { return strings.TrimSuffix(markdown.Render(doc), "\n") }
