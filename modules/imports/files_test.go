package imports

import (
	"strings"
	"testing"
	"time"
)

func day(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// hasChange reports whether one of changes mentions every word of want.
func hasChange(changes []string, want ...string) bool {
	for _, c := range changes {
		all := true
		for _, w := range want {
			all = all && strings.Contains(c, w)
		}
		if all {
			return true
		}
	}
	return false
}

// TestReadFolioExport: a note and a task as folio's export writes them read back with every
// field, and nothing is said to have changed.
func TestReadFolioExport(t *testing.T) {
	note := "---\nid: a1b2c3d4e5f6g7h8i9j0k1l2\nnotebookId: b1b2c3d4e5f6g7h8i9j0k1l2\nhasDecision: false\narchived: true\n" +
		"targetAt: \"2026-12-01T00:00:00.000Z\"\nfollowUpAt: null\ntags:\n  - id: t1\n    name: launch\n    kind: TAG\n" +
		"createdAt: \"2025-01-02T03:04:05.006Z\"\nupdatedAt: \"2025-02-03T04:05:06.007Z\"\n---\n\nShip it. #launch\n"
	it, why := readItem("team-notes-b1b2c3d4e5f6g7h8i9j0k1l2/notes/a1b2c3d4e5f6g7h8i9j0k1l2.md", []byte(note), true)
	if why != "" || it.task || !it.archived || it.targetAt == nil || !it.targetAt.Equal(day("2026-12-01T00:00:00Z")) || it.followUp != nil ||
		!it.createdAt.Equal(day("2025-01-02T03:04:05.006Z")) || !it.updatedAt.Equal(day("2025-02-03T04:05:06.007Z")) || it.text != "Ship it. #launch\n" || len(it.tags) != 0 {
		t.Fatalf("note: %+v %q", it, why)
	}
	if len(it.changes) != 0 {
		t.Fatalf("note: changes %v", it.changes)
	}
	task := "---\nid: c1b2c3d4e5f6g7h8i9j0k1l2\ntitle: \"2026-01-01\"\nnotebookId: b1b2c3d4e5f6g7h8i9j0k1l2\nstatus: BLOCKED\npriority: URGENT\narchived: false\n" +
		"dueAt: \"2026-12-24T00:00:00.000Z\"\ntargetAt: null\nfollowUpAt: \"2026-12-20T09:00:00.000Z\"\ntags: []\ncreatedAt: \"2025-01-02T03:04:05.006Z\"\nupdatedAt: \"2025-01-02T03:04:05.006Z\"\n---\n\n"
	it, why = readItem("x-b1b2c3d4e5f6g7h8i9j0k1l2/tasks/c1b2c3d4e5f6g7h8i9j0k1l2.md", []byte(task), true)
	if why != "" || !it.task || it.title != "2026-01-01" || it.status != "BLOCKED" || it.priority != "URGENT" || it.dueAt == nil || it.followUp == nil || it.text != "" || len(it.changes) != 0 {
		t.Fatalf("task: %+v %q", it, why)
	}
	// A task of the export with no status in its front matter is still a task (tasks/).
	it, _ = readItem("x-b1b2c3d4e5f6g7h8i9j0k1l2/tasks/c1.md", []byte("---\ntitle: t\n---\n\nbody"), true)
	if !it.task || it.title != "t" {
		t.Fatalf("a task without status: %+v", it)
	}
}

// TestReadOtherTools: front matter of other tools is mapped where its meaning is known; every
// alteration and every field left out is said.
func TestReadOtherTools(t *testing.T) {
	obsidian := "---\r\ntags: [project/alpha, meeting, \"#q3\", \"2024\"]\r\ncreated: 2024-01-05\r\naliases: [kickoff]\r\ncssclasses: wide\r\n---\r\nWe met.\r\n"
	it, why := readItem("Vault/Meetings/Kickoff 0123456789abcdef0123456789abcdef.md", []byte(obsidian), false)
	if why != "" || it.task || !it.createdAt.Equal(day("2024-01-05T00:00:00Z")) || !it.updatedAt.Equal(it.createdAt) {
		t.Fatalf("obsidian: %+v %q", it, why)
	}
	if it.text != "# Kickoff\n\nWe met.\n" {
		t.Errorf("obsidian text %q", it.text)
	}
	if strings.Join(it.tags, " ") != "project-alpha meeting q3" {
		t.Errorf("tags %v", it.tags)
	}
	for _, want := range [][]string{{"file name", "heading"}, {"not imported", "aliases, cssclasses"}, {"2024", "letter"}} {
		if !hasChange(it.changes, want...) {
			t.Errorf("no change saying %v in %v", want, it.changes)
		}
	}

	// A due date, a status or a priority that folio knows: a task.
	it, _ = readItem("Tasks/Call Bob.md", []byte("---\ndue: 2024-02-01 10:30\nstatus: doing\npriority: critical\ncompleted: false\n---\nAbout the budget.\n"), false)
	if !it.task || it.title != "Call Bob" || it.status != "IN_PROGRESS" || it.priority != "URGENT" || it.dueAt == nil || !it.dueAt.Equal(day("2024-02-01T10:30:00Z")) || len(it.changes) != 0 {
		t.Fatalf("task: %+v", it)
	}
	// A task with a status folio does not know: TODO, said.
	it, _ = readItem("t.md", []byte("---\ntitle: Plan\ndeadline: March 3, 2025\nstatus: someday\n---\n"), false)
	if !it.task || it.status != "" || it.title != "Plan" || !hasChange(it.changes, "someday", "TODO") {
		t.Fatalf("unknown status: %+v", it)
	}
	// done: true makes a DONE task.
	it, _ = readItem("d.md", []byte("---\ndone: true\n---\n"), false)
	if !it.task || it.status != "DONE" {
		t.Fatalf("done: %+v", it)
	}
	// A note's status that is no task status: a note, and the field is said to be left out.
	it, _ = readItem("Blog/Post.md", []byte("---\nstatus: draft\ntitle: Hello\n---\n# Hello\n\nText"), false)
	if it.task || it.text != "# Hello\n\nText" || !hasChange(it.changes, "not imported", "status") {
		t.Fatalf("draft note: %+v", it)
	}
	// A date that is no date: said, not guessed.
	it, _ = readItem("n.md", []byte("---\ncreated: yesterday\n---\n# n\n"), false)
	if !it.createdAt.IsZero() || !hasChange(it.changes, "created", "yesterday", "not a date") {
		t.Fatalf("bad date: %+v", it)
	}
	// Front matter that is not YAML stays, as text.
	it, _ = readItem("y.md", []byte("---\n: : [\n---\n# y\n"), false)
	if !strings.Contains(it.text, ": : [") || !hasChange(it.changes, "not valid YAML") {
		t.Fatalf("bad YAML: %+v", it)
	}
	// A title over 500 characters is cut, said.
	it, _ = readItem("long.md", []byte("---\ntype: task\ntitle: "+strings.Repeat("x", 600)+"\n---\n"), false)
	if !it.task || len([]rune(it.title)) != maxTitle || !hasChange(it.changes, "cut to 500") {
		t.Fatalf("long title: %d %v", len(it.title), it.changes)
	}
}

// TestUnreadable: a file that is not UTF-8 text is skipped with its reason.
func TestUnreadable(t *testing.T) {
	if _, why := readItem("a.md", []byte("caf\xe9"), false); !strings.Contains(why, "UTF-8") {
		t.Errorf("latin-1: %q", why)
	}
	if _, why := readItem("a.md", []byte("a\x00b"), false); !strings.Contains(why, "NUL") {
		t.Errorf("NUL: %q", why)
	}
}

// TestToDocument: images become links and foreign links text, each said; tags from front matter
// are added once; code is left alone; what cannot be stored is a reason to skip.
func TestToDocument(t *testing.T) {
	doc, changes, why := toDocument("content", "# Plan\n\n![diagram](img/d.png) and `![code](x.png)`\n\nSee [the vault](obsidian://open?vault=v) and ![[embed.png]].\n\n![two](b.png)\n", []string{"plan", "Alpha"}, 0)
	if why != "" {
		t.Fatal(why)
	}
	for _, want := range []string{"[diagram](img/d.png)", "`![code](x.png)`", "[two](b.png)", "the vault", "obsidian://open?vault=v", "#Alpha"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, doc.Markdown)
		}
	}
	if strings.Contains(doc.Markdown, "[the vault](obsidian:") { // escaped: text
		t.Errorf("the obsidian link is still a link:\n%s", doc.Markdown)
	}
	for _, want := range [][]string{{"2 images became links", "lines 3 and 7"}, {`"obsidian"`, "became text", "line 5"}, {"tags were added", "#plan #Alpha"}} {
		if !hasChange(changes, want...) {
			t.Errorf("no change saying %v in %v", want, changes)
		}
	}
	// A tag the text has already is not added again (case aside).
	if _, changes, _ := toDocument("content", "about #Plan", []string{"plan"}, 0); len(changes) != 0 {
		t.Errorf("a tag the text has: %v", changes)
	}
	// Over the length limit, or nested too deep: skipped, with the reason.
	if _, _, why := toDocument("content", strings.Repeat("x", 100_001), nil, 0); !strings.Contains(why, "100000") {
		t.Errorf("too long: %q", why)
	}
	if _, _, why := toDocument("content", strings.Repeat("> ", 20)+"deep", nil, 3); !strings.Contains(why, "nested") || !strings.Contains(why, "line 4") {
		t.Errorf("too deep: %q", why)
	}
}

// TestNULInTitle: a NUL that front matter's escapes put in a title (the file's bytes hold none)
// becomes U+FFFD, said; a notebook.yaml name with one is no name. PostgreSQL's text cannot hold
// a NUL, and the API refuses one in a title or a name.
func TestNULInTitle(t *testing.T) {
	for _, file := range []string{"---\ntype: task\ntitle: \"a\\0b\"\n---\n", "---\ntitle: \"a\\x00b\"\n---\nbody\n"} {
		it, why := readItem("n.md", []byte(file), false)
		if why != "" || strings.ContainsRune(it.title, 0) || strings.ContainsRune(it.text, 0) || !hasChange(it.changes, "NUL") {
			t.Errorf("%q: title %q, text %q, changes %v, why %q", file, it.title, it.text, it.changes, why)
		}
	}
	if validName("a\x00b") {
		t.Error("a notebook name with a NUL is valid")
	}
}
