// Package search is full-text search over items' text (CONTRACT.md section 14), in the database:
// the search_index table holds each live item's text, normalised in Go (lower case, accents
// removed), and the database's own text index answers queries: on PostgreSQL a GIN index over
// to_tsvector('simple', body), on SQLite an FTS5 table kept in step by triggers.
//
// A query is parsed here, never by the database's query parser: words and quoted phrases are
// reduced to tokens of letters and digits, and the database query is built from those tokens
// only, so any input is valid syntax and no input can reach the query language.
package search

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
	"gorm.io/gorm"

	"folio/platform/apierr"
	"folio/platform/db"
)

// MaxQueryLength is the longest q, in characters.
const MaxQueryLength = 200

// Query is a parsed q: every phrase must match (AND). A phrase is one or more tokens that must
// follow each other; the last token of each phrase matches the start of a word (a lone word is a
// phrase of one token).
type Query struct {
	Phrases [][]string
}

// Empty reports whether the query has no token: it matches nothing.
func (q Query) Empty() bool { return len(q.Phrases) == 0 }

// Parse reads q: words separated by spaces, and phrases in double quotes (an unclosed quote runs
// to the end). Anything but letters and digits separates tokens; a word such as "e-mail" is the
// phrase "e mail". Words are AND-ed.
func Parse(q string) (Query, error) {
	if utf8.RuneCountInString(q) > MaxQueryLength {
		return Query{}, apierr.Validation("query parameter \"q\" must be at most %d characters", MaxQueryLength)
	}
	var out Query
	for i, part := range strings.Split(q, `"`) {
		if i%2 == 1 { // inside quotes: one phrase
			if toks := tokens(part); len(toks) > 0 {
				out.Phrases = append(out.Phrases, toks)
			}
			continue
		}
		for _, word := range strings.Fields(part) {
			if toks := tokens(word); len(toks) > 0 {
				out.Phrases = append(out.Phrases, toks)
			}
		}
	}
	return out, nil
}

// tokens are the normalised runs of letters and digits of s.
func tokens(s string) []string {
	return strings.FieldsFunc(Normalize(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

// Normalize lower-cases s and removes its accents (Café → cafe): the form both the index and
// queries are made of, the same on both databases.
func Normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Set writes the item's text to the index inside tx (the write's own transaction).
func Set(ctx context.Context, tx *gorm.DB, itemKind, itemID, text string) error {
	_, err := db.Exec(ctx, tx, "INSERT INTO search_index (item_kind, item_id, body) VALUES (?, ?, ?) "+
		"ON CONFLICT (item_kind, item_id) DO UPDATE SET body = excluded.body", itemKind, itemID, Normalize(text))
	return err
}

// Matching is a condition on table (an items table with the column id): the item's text matches q.
// An empty q matches nothing.
func Matching(gdb *gorm.DB, table, itemKind string, q Query) (string, []any) {
	if q.Empty() {
		return "1 = 0", nil
	}
	if db.IsPostgres(gdb) {
		// ARRAY of an uncorrelated subquery is an InitPlan: the GIN index finds the matching ids
		// once, then the list filters those. Written as IN (SELECT ...), PostgreSQL turned it
		// into a semi-join driven from the caller's notes, probing search_index by key and
		// computing to_tsvector for each of them: 1.7 s of database CPU per request with 50,000
		// visible notes among a million, instead of a few milliseconds.
		return table + ".id = ANY (ARRAY(SELECT s.item_id FROM search_index s WHERE s.item_kind = ? AND " +
			"to_tsvector('simple', s.body) @@ to_tsquery('simple', ?)))", []any{itemKind, tsquery(q)}
	}
	return table + ".id IN (SELECT s.item_id FROM search_index s WHERE s.item_kind = ? AND s.rowid IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ?))",
		[]any{itemKind, ftsQuery(q)}
}

// tsquery is q in PostgreSQL's to_tsquery syntax: a <-> b <-> c:* for a phrase, & between them.
// Tokens are letters and digits only, so nothing in them is syntax.
func tsquery(q Query) string {
	parts := make([]string, len(q.Phrases))
	for i, ph := range q.Phrases {
		parts[i] = "(" + strings.Join(ph, " <-> ") + ":*)"
	}
	return strings.Join(parts, " & ")
}

// ftsQuery is q in SQLite FTS5 syntax: "a b c"* for a phrase, AND between them. Tokens are letters
// and digits only, so a double quote never occurs inside one.
func ftsQuery(q Query) string {
	parts := make([]string, len(q.Phrases))
	for i, ph := range q.Phrases {
		parts[i] = `"` + strings.Join(ph, " ") + `"*`
	}
	return strings.Join(parts, " AND ")
}
