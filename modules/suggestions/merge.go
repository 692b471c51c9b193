package suggestions

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"folio/modules/document"
	"folio/platform/apierr"
	"folio/platform/markdown"
	"folio/platform/textmerge"
)

// Approving a suggestion made against content that has changed since (CONTRACT.md section 22)
// merges three ways, by lines of canonical Markdown: the base is the suggestion's
// originalContent, ours the item's current content, theirs the suggestedContent
// (platform/textmerge, conservative: changes to the same or neighbouring lines conflict). The
// changes approving would make to the current content are its hunks, which a reviewer may
// approve in part. A merged or partial result is stored only when it is a fixed point of the
// codec: the Markdown it makes reads back as exactly those lines. Otherwise lines joined by the
// merge would mean something else than either side wrote (a list item that joins the list above,
// a paragraph that becomes a table row), and approving refuses instead of guessing.

// Hunk is one change approving would make to the item's current content: the current lines it
// removes and the lines it adds, at line Line (1-based: its first removed line, or for an
// insertion the line the added lines go before; one past the last line to append). Index is its
// place in the suggestion's hunks, which a partial approval names.
type Hunk struct {
	Index   int      `json:"index"`
	Removed []string `json:"removed"`
	Added   []string `json:"added"`
	Line    int      `json:"line"`
}

// Conflict is a place where the suggestion and a change made since it was proposed overlap: the
// current lines there (from line Line, 1-based, of the current content) and the suggested ones.
// Base, the lines when the suggestion was made, is for the review page's view (not on the wire).
type Conflict struct {
	Line      int      `json:"line"`
	Current   []string `json:"current"`
	Suggested []string `json:"suggested"`
	Base      []string `json:"-"`
	// why, for a merge the codec refuses or reads back otherwise rather than overlapping
	// changes, is why (for the message; not on the wire).
	why string
}

// Plan is what approving a suggestion would do to its item's current content.
type Plan struct {
	// Stale: the current content is not the one the suggestion was made against.
	Stale bool
	// Hunks are the changes approving would make; with conflicts, those that conflict with none.
	Hunks []Hunk
	// Conflicts: overlapping changes, or a merge the codec would read back otherwise. Approving it
	// all is refused (SUGGESTION_CONFLICT); approving some of its hunks is not.
	Conflicts []Conflict
	current   []string
	changes   []textmerge.Change // Hunks, as changes of current
	merged    *document.Parsed   // the whole merge, read by the codec when plan checked it
}

// Mergeable says whether approving the whole suggestion would succeed: false only when it is
// stale and its changes overlap changes made since (or would merge into Markdown that reads back
// otherwise).
func (pl Plan) Mergeable() bool { return len(pl.Conflicts) == 0 }

// plan is what approving a suggestion whose three documents read as original, current and
// suggested (Markdown as responses carry it) would do.
func plan(original, current, suggested string) Plan {
	pl := Plan{Stale: current != original, current: textmerge.Lines(current)}
	merged := textmerge.Lines(suggested)
	if pl.Stale {
		m := textmerge.Merge(textmerge.Lines(original), pl.current, merged)
		merged = m.Lines
		for _, c := range m.Conflicts {
			pl.Conflicts = append(pl.Conflicts, Conflict{Line: c.OursStart + 1, Current: orEmpty(c.Ours), Suggested: orEmpty(c.Theirs), Base: c.Base})
		}
	}
	pl.changes = textmerge.Diff(pl.current, merged)
	for i, c := range pl.changes {
		pl.Hunks = append(pl.Hunks, Hunk{Index: i, Removed: orEmpty(c.Removed(pl.current)), Added: orEmpty(c.Lines), Line: c.Start + 1})
	}
	if pl.Stale && len(pl.Conflicts) == 0 {
		// The suggested content alone is canonical (it was parsed); a merge may not be.
		doc, err := pl.read(nil)
		if err != nil {
			pl.Conflicts = append(pl.Conflicts, pl.unreadable(err))
		} else {
			pl.merged = &doc
		}
	}
	return pl
}

// orEmpty is lines, never nil: hunks and conflicts are written with [] for no lines.
func orEmpty(lines []string) []string {
	if lines == nil {
		return []string{}
	}
	return lines
}

// read is the document of the current content with the chosen hunks applied (all when chosen is
// nil), if the codec reads its Markdown back exactly: else an *unreadable.
func (pl Plan) read(chosen []int) (document.Parsed, error) {
	var pick func(int) bool
	if chosen != nil {
		pick = func(i int) bool { return slices.Contains(chosen, i) }
	}
	lines := textmerge.Apply(pl.current, pl.changes, pick)
	text := textmerge.Join(lines)
	doc, err := document.Parse("content", text)
	if err != nil {
		line := 1
		var me *markdown.Error
		if errors.As(err, &me) && me.Line > 0 {
			line = me.Line
		}
		return document.Parsed{}, &unreadable{line: line, why: "the codec refuses it: " + apierr.From(err).Message}
	}
	if doc.Markdown != text {
		read := textmerge.Lines(doc.Markdown)
		line := 1
		for line <= len(lines) && line <= len(read) && lines[line-1] == read[line-1] {
			line++
		}
		return document.Parsed{}, &unreadable{line: line, why: "it would read back differently"}
	}
	return doc, nil
}

// unreadable is a result of merged lines that is no fixed point of the codec: at line (1-based,
// of the result), for the reason why.
type unreadable struct {
	line int
	why  string
}

func (u *unreadable) Error() string { return fmt.Sprintf("line %d: %s", u.line, u.why) }

// unreadable is the conflict answer to a merge the codec would not read back as merged: the hunk
// at or before the line where it reads otherwise.
func (pl Plan) unreadable(err error) Conflict {
	var u *unreadable
	line := 1
	if errors.As(err, &u) {
		line = u.line
	}
	at, shift := 0, 0
	for i, c := range pl.changes {
		if c.Start+shift+1 > line && i > 0 {
			break
		}
		at = i
		shift += len(c.Lines) - (c.End - c.Start)
	}
	why := "the codec refuses it"
	if u != nil {
		why = u.why
	}
	if len(pl.Hunks) == 0 { // not reached: with no hunk the result is the current content, which reads back
		return Conflict{Line: line, Current: []string{}, Suggested: []string{}, Base: []string{}, why: why}
	}
	h := pl.Hunks[at]
	return Conflict{Line: h.Line, Current: h.Removed, Suggested: h.Added, Base: []string{}, why: why}
}

// choose checks a partial approval's hunk indexes (as the client wrote them: JSON numbers, form
// values) against the plan's hunks and returns them.
func (pl Plan) choose(raw []string) ([]int, error) {
	if len(raw) == 0 {
		return nil, apierr.Validation("field \"hunks\" must list at least one hunk index (to approve every change, send no body)")
	}
	var out []int
	for _, r := range raw {
		i, err := strconv.Atoi(strings.TrimSpace(r))
		if err != nil {
			return nil, apierr.Validation("field \"hunks\": %s is not a hunk index (a whole number from GET /suggestions/{id}'s hunks)", shortened(r))
		}
		if i < 0 || i >= len(pl.Hunks) {
			return nil, apierr.Validation("field \"hunks\": %d is not the index of one of this suggestion's hunks (%s)", i, pl.hunkRange())
		}
		if slices.Contains(out, i) {
			return nil, apierr.Validation("field \"hunks\": %d is listed twice", i)
		}
		out = append(out, i)
	}
	return out, nil
}

// shortened is a value the client sent, as an error message quotes it: at most 40 characters (a
// body of up to 1 MiB is not echoed back whole).
func shortened(raw string) string {
	const most = 40
	if utf8.RuneCountInString(raw) <= most {
		return raw
	}
	return string([]rune(raw)[:most]) + "…"
}

func (pl Plan) hunkRange() string {
	switch len(pl.Hunks) {
	case 0:
		return "it has none"
	case 1:
		return "its only hunk is 0"
	}
	return fmt.Sprintf("its hunks are 0 to %d", len(pl.Hunks)-1)
}

// ConflictDetails is SUGGESTION_CONFLICT's error.details.
type ConflictDetails struct {
	Conflicts []Conflict `json:"conflicts"`
}

// conflictError is the 409 answer to approving a suggestion with conflicts: nothing changed.
func (pl Plan) conflictError(kind string) error {
	c := pl.Conflicts[0]
	where := fmt.Sprintf("line %d", c.Line)
	if n := len(pl.Conflicts); n > 1 {
		where = fmt.Sprintf("%d places, the first at line %d", n, c.Line)
	}
	if c.why != "" {
		// Nothing overlaps: the merge as a whole would not be stored as merged.
		return ErrConflict.WithMessage("merged with the changes made to the %s since it was proposed, this suggestion's changes make Markdown that the codec does not keep as merged (line %d: %s); nothing was changed: approve only some of its hunks, or reject it and propose again against the current content", kind, c.Line, c.why).
			WithDetails(ConflictDetails{Conflicts: pl.Conflicts})
	}
	return ErrConflict.WithMessage("this suggestion's changes overlap changes made to the %s since it was proposed (%s); nothing was changed: approve only the hunks that do not conflict, or reject it and propose again against the current content", kind, where).
		WithDetails(ConflictDetails{Conflicts: pl.Conflicts})
}

// partialError is the 400 answer to a choice of hunks that, applied without the others, makes
// Markdown that would not read back as written.
func partialError(chosen []int, err error) error {
	names := make([]string, len(chosen))
	for i, c := range chosen {
		names[i] = strconv.Itoa(c)
	}
	return apierr.Validation("field \"hunks\": hunks %s applied without the others would make Markdown that does not read back as written (%v); choose the hunks next to them too", strings.Join(names, ", "), err)
}
