package imports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// A Markdown file becomes one note or one task. What folio's export writes reads back exactly: its
// front matter holds the API's fields (CONTRACT.md section 17), and what the API derives (id,
// tags, hasDecision) is derived again from the Markdown. Other tools' files (Obsidian vaults,
// Notion and Bear exports) carry front matter of their own: the fields below are mapped where
// their meaning is known, and every field that is not is named in the answer (changed).

// item is a Markdown file read: a note, or a task when the file says it is one.
type item struct {
	task      bool
	title     string // a task's
	text      string // the Markdown: a note's content, a task's notes
	status    string // a task's, "" for the default
	priority  string
	dueAt     *time.Time
	targetAt  *time.Time
	followUp  *time.Time
	archived  bool
	createdAt time.Time // zero: now
	updatedAt time.Time
	tags      []string // front matter tags, added to the text as #tags when it lacks them
	changes   []string // what was altered, for the answer
	// lineOffset turns a line of text into the file's line: the front matter's lines before it,
	// less the lines put at its top (a heading).
	lineOffset int
}

// Fields of front matter, by their normalised key (lower case, without "_", "-" and spaces).
const (
	fieldIgnored  = "ignored" // folio's derived fields: read back from the Markdown
	fieldTitle    = "title"
	fieldTags     = "tags"
	fieldCreated  = "created"
	fieldUpdated  = "updated"
	fieldDue      = "due"
	fieldTarget   = "target"
	fieldFollowUp = "followUp"
	fieldStatus   = "status"
	fieldPriority = "priority"
	fieldArchived = "archived"
	fieldDone     = "done"
	fieldType     = "type"
)

var fields = map[string]string{
	"id": fieldIgnored, "notebookid": fieldIgnored, "hasdecision": fieldIgnored, "pendingsuggestion": fieldIgnored,
	"title": fieldTitle,
	"tags":  fieldTags, "tag": fieldTags,
	"created": fieldCreated, "createdat": fieldCreated, "date": fieldCreated, "creationdate": fieldCreated, "createdtime": fieldCreated, "datecreated": fieldCreated,
	"updated": fieldUpdated, "updatedat": fieldUpdated, "modified": fieldUpdated, "lastmodified": fieldUpdated, "lastmod": fieldUpdated,
	"updatedtime": fieldUpdated, "lastedited": fieldUpdated, "lasteditedtime": fieldUpdated, "datemodified": fieldUpdated,
	"due": fieldDue, "dueat": fieldDue, "duedate": fieldDue, "deadline": fieldDue,
	"target": fieldTarget, "targetat": fieldTarget, "targetdate": fieldTarget,
	"followup": fieldFollowUp, "followupat": fieldFollowUp, "followupdate": fieldFollowUp,
	"status": fieldStatus, "priority": fieldPriority, "archived": fieldArchived,
	"done": fieldDone, "completed": fieldDone,
	"type": fieldType,
}

// statuses and priorities: what other tools write (normalised as keys are), as folio's values.
var statuses = map[string]string{
	"todo": "TODO", "open": "TODO", "notstarted": "TODO", "new": "TODO", "backlog": "TODO",
	"inprogress": "IN_PROGRESS", "doing": "IN_PROGRESS", "started": "IN_PROGRESS", "active": "IN_PROGRESS", "wip": "IN_PROGRESS",
	"blocked": "BLOCKED", "waiting": "BLOCKED", "onhold": "BLOCKED",
	"done": "DONE", "completed": "DONE", "complete": "DONE", "closed": "DONE", "finished": "DONE", "resolved": "DONE",
}

var priorities = map[string]string{
	"low": "LOW", "minor": "LOW",
	"medium": "MEDIUM", "normal": "MEDIUM", "med": "MEDIUM",
	"high": "HIGH", "major": "HIGH", "important": "HIGH",
	"urgent": "URGENT", "critical": "URGENT", "highest": "URGENT", "asap": "URGENT",
}

// normKey is a key or a value as the tables above spell it.
func normKey(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// readItem reads one Markdown file: name is its path in the archive, folio says that it lies in a
// notebook folder of folio's export, where tasks/ holds tasks and notes/ notes. why is not empty
// when the file cannot be imported.
func readItem(name string, data []byte, folio bool) (it item, why string) {
	if !utf8.Valid(data) {
		return item{}, "is not UTF-8 text"
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return item{}, "holds NUL bytes: not a text file"
	}
	text := strings.ReplaceAll(strings.TrimPrefix(string(data), "\ufeff"), "\r\n", "\n")
	front, body, hasFront := splitFrontMatter(text)
	it.text = body
	it.lineOffset = strings.Count(text[:len(text)-len(body)], "\n")
	var meta map[string]any
	if hasFront {
		if err := yaml.Unmarshal([]byte(front), &meta); err != nil {
			it.text, it.lineOffset = text, 0
			why := "is not valid YAML"
			var typeErr *yaml.TypeError
			if errors.As(err, &typeErr) {
				why = "is not a YAML mapping of fields"
			}
			it.changes = append(it.changes, "its front matter "+why+"; it was kept as text at the top of the note")
			meta = nil
		}
	}
	dir := path.Base(path.Dir(name))
	it.task = folio && dir == "tasks"
	fm := frontMatter{it: &it}
	fm.read(meta)
	if !folio || dir != "notes" {
		it.task = it.task || fm.makesTask()
	}
	fm.apply()
	// YAML's escapes ("\0", "\x00") put a NUL in a title that the file's bytes did not hold:
	// PostgreSQL's text cannot store one, and the API refuses it in a title (platform/httpx/bind.go).
	if strings.ContainsRune(it.title, 0) {
		it.title = strings.ReplaceAll(it.title, "\x00", "\uFFFD")
		it.changes = append(it.changes, "its front matter title held NUL characters; each became U+FFFD")
	}
	stem := fileTitle(name)
	switch {
	case it.task && strings.TrimSpace(it.title) == "":
		it.title = stem
	case !it.task && !folio:
		heading := it.title
		what := "its front matter title"
		if heading == "" {
			heading, what = stem, "its file name"
		}
		if heading != "" && !startsWithHeading(it.text) {
			it.text = "# " + heading + "\n\n" + it.text
			it.lineOffset -= 2
			it.changes = append(it.changes, what+" became the note's first heading")
		} else if it.title != "" && !strings.EqualFold(firstHeading(it.text), it.title) {
			it.changes = append(it.changes, fmt.Sprintf("its front matter title %q was not imported: the note begins with a heading of its own", it.title))
		}
	}
	if it.task {
		if n := utf8.RuneCountInString(it.title); n > maxTitle {
			it.title = string([]rune(it.title)[:maxTitle])
			it.changes = append(it.changes, fmt.Sprintf("its title was cut to %d characters", maxTitle))
		}
		if strings.TrimSpace(it.title) == "" {
			it.title = "Untitled"
		}
	}
	return it, ""
}

// maxTitle is the longest task title (CONTRACT.md section 1).
const maxTitle = 500

// splitFrontMatter separates a leading YAML block between "---" lines (closed by "---" or "...")
// from the Markdown after it, without the blank line folio's export writes there.
func splitFrontMatter(text string) (front, body string, ok bool) {
	rest, found := strings.CutPrefix(text, "---\n")
	if !found {
		return "", text, false
	}
	for _, end := range []string{"---", "..."} {
		if strings.HasPrefix(rest, end+"\n") || rest == end {
			return "", strings.TrimPrefix(strings.TrimPrefix(rest, end), "\n"), true
		}
		if i := strings.Index(rest, "\n"+end+"\n"); i >= 0 {
			return rest[:i+1], strings.TrimPrefix(rest[i+len(end)+2:], "\n"), true
		}
		if strings.HasSuffix(rest, "\n"+end) {
			return rest[:len(rest)-len(end)], "", true
		}
	}
	return "", text, false
}

// notionID is the id Notion appends to the name of every exported page.
var notionID = regexp.MustCompile(`\s+[0-9a-f]{32}$`)

// fileTitle is a file's name as a title: without its folder, its extension and a Notion id.
func fileTitle(name string) string {
	base := path.Base(name)
	base = strings.TrimSuffix(base, path.Ext(base))
	return strings.TrimSpace(notionID.ReplaceAllString(base, ""))
}

// startsWithHeading reports whether the Markdown's first non-blank line is an ATX heading.
func startsWithHeading(text string) bool { return isHeadingLine(firstLine(text)) }

func firstLine(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) != "" {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

func isHeadingLine(line string) bool {
	hashes := len(line) - len(strings.TrimLeft(line, "#"))
	return hashes >= 1 && hashes <= 6 && (len(line) == hashes || line[hashes] == ' ' || line[hashes] == '\t')
}

// firstHeading is the text of the Markdown's first line when it is a heading, else "".
func firstHeading(text string) string {
	line := firstLine(text)
	if !isHeadingLine(line) {
		return ""
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimLeft(line, "#"), "# "))
}

// frontMatter maps a file's front matter onto its item.
type frontMatter struct {
	it               *item
	status, priority string // as written
	done             bool
	typeTask         bool
	dueSet           bool
	unknown          []string
}

func (fm *frontMatter) read(meta map[string]any) {
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		v := meta[key]
		if v == nil {
			continue
		}
		switch fields[normKey(key)] {
		case fieldIgnored:
		case fieldTitle:
			if compound(v) {
				fm.bad(key, v, "is not text")
				continue
			}
			fm.it.title = strings.TrimSpace(scalar(v))
		case fieldTags:
			fm.readTags(key, v)
		case fieldCreated:
			fm.date(key, v, &fm.it.createdAt)
		case fieldUpdated:
			fm.date(key, v, &fm.it.updatedAt)
		case fieldDue:
			fm.dueSet = fm.datePtr(key, v, &fm.it.dueAt)
		case fieldTarget:
			fm.datePtr(key, v, &fm.it.targetAt)
		case fieldFollowUp:
			fm.datePtr(key, v, &fm.it.followUp)
		case fieldStatus:
			fm.status = scalar(v)
		case fieldPriority:
			fm.priority = scalar(v)
		case fieldArchived:
			b, ok := boolean(v)
			if !ok {
				fm.bad(key, v, "is not true or false")
			}
			fm.it.archived = b
		case fieldDone:
			if b, ok := boolean(v); ok {
				fm.done = b
			} else if _, ok := date(v); ok {
				fm.done = true // completed: <the day it was done>
			} else {
				fm.bad(key, v, "is not true, false or a date")
			}
		case fieldType:
			fm.typeTask = normKey(scalar(v)) == "task"
			if !fm.typeTask {
				fm.unknown = append(fm.unknown, key)
			}
		default:
			fm.unknown = append(fm.unknown, key)
		}
	}
}

// makesTask reports whether the front matter describes a task: a due date, a task status or
// priority, done, or type: task.
func (fm *frontMatter) makesTask() bool {
	_, status := statuses[normKey(fm.status)]
	_, priority := priorities[normKey(fm.priority)]
	return fm.dueSet || fm.done || fm.typeTask || (fm.status != "" && status) || (fm.priority != "" && priority)
}

// apply sets what depends on whether the item is a task, and records the fields left out.
func (fm *frontMatter) apply() {
	it := fm.it
	if it.task {
		it.status = fm.taskValue("status", fm.status, statuses, "TODO, IN_PROGRESS, BLOCKED or DONE", "TODO")
		it.priority = fm.taskValue("priority", fm.priority, priorities, "LOW, MEDIUM, HIGH or URGENT", "MEDIUM")
		if fm.done && it.status == "" {
			it.status = "DONE"
		}
	} else {
		for _, f := range []struct {
			key, value string
		}{{"status", fm.status}, {"priority", fm.priority}} {
			if f.value != "" {
				fm.unknown = append(fm.unknown, f.key)
			}
		}
	}
	if !it.createdAt.IsZero() && it.updatedAt.IsZero() {
		it.updatedAt = it.createdAt
	}
	if !it.updatedAt.IsZero() && it.updatedAt.Before(it.createdAt) {
		it.updatedAt = it.createdAt
	}
	if len(fm.unknown) > 0 {
		slices.Sort(fm.unknown)
		it.changes = append(it.changes, "front matter fields not imported (folio has no place for them): "+strings.Join(fm.unknown, ", "))
	}
}

// taskValue maps a task's status or priority: "" (the default) when absent, or not known (said).
func (fm *frontMatter) taskValue(field, written string, known map[string]string, allowed, dflt string) string {
	if written == "" {
		return ""
	}
	if v, ok := known[normKey(written)]; ok {
		return v
	}
	fm.it.changes = append(fm.it.changes, fmt.Sprintf("its %s %q is not one of %s; the task is %s", field, written, allowed, dflt))
	return ""
}

func (fm *frontMatter) bad(key string, v any, why string) {
	fm.it.changes = append(fm.it.changes, fmt.Sprintf("front matter %s %q %s; not imported", key, scalar(v), why))
}

func (fm *frontMatter) date(key string, v any, to *time.Time) bool {
	t, ok := date(v)
	if !ok {
		fm.bad(key, v, "is not a date")
		return false
	}
	*to = t
	return true
}

func (fm *frontMatter) datePtr(key string, v any, to **time.Time) bool {
	var t time.Time
	if !fm.date(key, v, &t) {
		return false
	}
	*to = &t
	return true
}

// readTags reads tags written as a list or as one string ("a, b" or "a b"); folio's own tags (a
// list of {id, name, kind}) are left to the Markdown they come from.
func (fm *frontMatter) readTags(key string, v any) {
	var names []string
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			if _, folio := e.(map[string]any); folio {
				continue
			}
			if compound(e) {
				fm.bad(key, e, "is not a tag name")
				continue
			}
			names = append(names, scalar(e))
		}
	case map[string]any:
		fm.bad(key, v, "is not a list of tags")
		return
	default:
		names = strings.FieldsFunc(scalar(v), func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	}
	var dropped []string
	for _, n := range names {
		tag := tagName(n)
		if tag == "" {
			if strings.TrimSpace(n) != "" {
				dropped = append(dropped, n)
			}
			continue
		}
		if !slices.Contains(fm.it.tags, tag) {
			fm.it.tags = append(fm.it.tags, tag)
		}
	}
	if len(dropped) > 0 {
		fm.it.changes = append(fm.it.changes, fmt.Sprintf("front matter %s %q not imported: a tag needs a letter", key, strings.Join(dropped, ", ")))
	}
}

// tagName writes a tag of another tool as folio's #tag grammar takes it (letters, digits, _ and
// -, with a letter): other characters (Obsidian's nested a/b, spaces) become "-". "" when no
// letter is left.
func tagName(s string) string {
	s = strings.TrimLeft(strings.TrimSpace(s), "#")
	var b strings.Builder
	letter := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letter = true
			b.WriteRune(r)
		case unicode.IsDigit(r) || r == '_' || r == '-':
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	if !letter {
		return ""
	}
	return strings.Trim(b.String(), "-")
}

// scalar is a front matter value as text (a list or a mapping as JSON, for a message).
func scalar(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case time.Time:
		return t.UTC().Format(time.RFC3339)
	case nil:
		return ""
	}
	if compound(v) {
		if b, err := json.Marshal(v); err == nil {
			return string(b)
		}
	}
	return fmt.Sprint(v)
}

// compound reports whether a front matter value is a list or a mapping.
func compound(v any) bool {
	switch v.(type) {
	case []any, map[string]any:
		return true
	}
	return false
}

func boolean(v any) (bool, bool) {
	switch t := v.(type) {
	case bool:
		return t, true
	case string:
		switch strings.ToLower(strings.TrimSpace(t)) {
		case "true", "yes":
			return true, true
		case "false", "no":
			return false, true
		}
	}
	return false, false
}

// dateLayouts are the date forms read in front matter: the API's, then what other tools write.
var dateLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05",
	"2006-01-02 15:04", "2006-01-02", "January 2, 2006 3:04 PM", "January 2, 2006", "Jan 2, 2006 3:04 PM", "Jan 2, 2006",
}

// date reads a front matter date (a YAML timestamp, or text in one of dateLayouts: a time without
// a zone is UTC), between the years 1 and 9999.
func date(v any) (time.Time, bool) {
	switch t := v.(type) {
	case time.Time:
		return t.UTC(), t.Year() >= 1 && t.Year() <= 9999
	case string:
		s := strings.TrimSpace(t)
		for _, layout := range dateLayouts {
			if d, err := time.Parse(layout, s); err == nil {
				return d.UTC(), d.Year() >= 1 && d.Year() <= 9999
			}
		}
	}
	return time.Time{}, false
}
