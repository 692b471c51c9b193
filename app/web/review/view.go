package review

import (
	"strings"
	"time"

	udiff "github.com/aymanbagabas/go-udiff"

	"folio/app/web"
	"folio/platform/textmerge"
)

// suggestionRow is a suggestion as the review list and page show it.
type suggestionRow struct {
	ID         string
	Kind       string // note or task
	ItemPath   string // /review/notes/<id>, the prefix of the item's history pages
	Item       string // the note's first line or the task's title
	Notebook   string
	ProposedBy string // the key's name and prefix, or the person
	Created    time.Time
	Stale      bool // the item changed since the suggestion was made
	Status     string
	Rationale  string
}

type reviewView struct {
	web.View
	Rows []suggestionRow
	Next string // the next page's URL, or ""
}

type suggestionView struct {
	web.View
	Row      suggestionRow
	Diff     []diffLine // a resolved suggestion's diff from the current content
	ItemETag string
	Pending  bool
	// A pending suggestion's hunks, each chosen with a checkbox, and its conflicts.
	Hunks     []hunkView
	Conflicts []conflictRow
}

// hunkView is one hunk of a suggestion: its removed, then its added lines, changed words marked
// where a removed line and an added line pair up.
type hunkView struct {
	Index, Number, Line int // Number is Index + 1, as the page counts
	Lines               []diffLine
}

// conflictRow is one conflict side by side: the lines when the suggestion was made, now, and
// suggested; Line is where it starts in the current content.
type conflictRow struct {
	Number, Line             int
	Base, Current, Suggested []string
}

type historyView struct {
	web.View
	Kind, ItemID, ItemPath, Item string
	Versions                     []versionRow
	Next                         string
}

type versionRow struct {
	ID      string
	Reason  string // what replaced this content: an edit, an approved suggestion, a restore
	By      string
	Created time.Time
}

type versionView struct {
	web.View
	Kind, ItemPath, Item string
	Version              versionRow
	Text                 string // the version's Markdown
	Diff                 []diffLine
	ItemETag             string
}

type conflictView struct {
	web.View
	Kind  string
	Again string // the page to open again, with the current content
}

// diffLine is one line of a unified diff as the page shows it: the marker is written out (+, −)
// and the line is in an ins or del element, so the change does not rest on colour alone.
type diffLine struct {
	Op   string // "add", "del", "same" or "hunk" (a gap between changed regions)
	Text string
	// Words, when not nil, is Text cut into segments, those the paired line lacks marked.
	Words []textmerge.Segment
}

// hunkLines are a hunk's lines as the page shows them: the removed, then the added ones; the
// i-th removed line and the i-th added line are compared word by word.
func hunkLines(removed, added []string) []diffLine {
	out := make([]diffLine, 0, len(removed)+len(added))
	for i, r := range removed {
		l := diffLine{Op: "del", Text: r}
		if i < len(added) {
			l.Words, _ = textmerge.Words(r, added[i])
		}
		out = append(out, l)
	}
	for i, a := range added {
		l := diffLine{Op: "add", Text: a}
		if i < len(removed) {
			_, l.Words = textmerge.Words(removed[i], a)
		}
		out = append(out, l)
	}
	return out
}

// diffLines parses a unified diff (a suggestion's InboxEntry.Diff, or versionDiff) into lines,
// without its two file header lines ("--- current", "+++ suggested"). Only the lines before the first hunk are headers: a
// removed Markdown rule is "----" further down, and must show.
func diffLines(unified string) []diffLine {
	var out []diffLine
	inHunks := false
	for line := range strings.Lines(unified) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case !inHunks && !strings.HasPrefix(line, "@@"):
		case strings.HasPrefix(line, "@@"):
			inHunks = true
			if len(out) > 0 {
				out = append(out, diffLine{Op: "hunk"})
			}
		case strings.HasPrefix(line, "+"):
			out = append(out, diffLine{Op: "add", Text: line[1:]})
		case strings.HasPrefix(line, "-"):
			out = append(out, diffLine{Op: "del", Text: line[1:]})
		case strings.HasPrefix(line, " "):
			out = append(out, diffLine{Op: "same", Text: line[1:]})
		}
	}
	return out
}

// versionDiff is the unified diff from an item's current Markdown to a version's, made as a
// suggestion's (suggestions.InboxEntry.Diff): both texts end with a newline first.
func versionDiff(current, version string) string {
	return udiff.Unified("current", "version", current+"\n", version+"\n")
}
