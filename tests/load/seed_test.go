package load

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"folio/modules/document"
	"folio/modules/search"
	"folio/platform/auth"
	"folio/platform/markdown"
	"folio/tests/apitest"
)

// Scenario is the data a run is measured on. The caller (the user whose key drives the load)
// reaches CallerNotebooks notebooks: one personal notebook and the rest in a workspace it shares
// with four other members. Those notebooks hold CallerNotes notes between them; the rest of the
// Total notes belong to other users: personal notebooks and notebooks of other workspaces, about
// OtherPerNotebook notes each, so the notebooks table grows with the notes table as it would in
// production. Every note has 3 tags (two #tags and one @person of its space); one note in 10 is
// archived and one in 50 is deleted (soft), and createdAt is spread over the last year, so the
// caller's notes are interleaved with everyone else's in time and on disk.
type Scenario struct {
	Name             string
	Total            int
	CallerNotes      int
	CallerNotebooks  int
	OtherPerNotebook int
}

// Scenarios are the two table sizes the list latency is compared at. The caller's own share grows
// with the table (2,500 of 10,000; 50,000 of 1,000,000), so the comparison is the harder one.
var Scenarios = []Scenario{
	{Name: "notes=10k", Total: 10_000, CallerNotes: 2_500, CallerNotebooks: 10, OtherPerNotebook: 200},
	{Name: "notes=1M", Total: 1_000_000, CallerNotes: 50_000, CallerNotebooks: 10, OtherPerNotebook: 200},
}

// Seeded is what a benchmark needs to know about the data.
type Seeded struct {
	UserID          string   // the caller
	Key             string   // read-write key of the caller, unrestricted
	Session         string   // a web session of the caller (its folio_session cookie), for the web app's pages
	CallerNotebooks []string // the caller's notebooks
	VisibleIDs      []string // live, unarchived notes the caller sees
	// Focus20 is the query of a Focus view whose answer holds about 20 notes (the 20 oldest
	// follow-ups and the next ones within the hour), the size of GET /notes' page: the Focus
	// view's cost beside a list of the same size.
	Focus20 string
}

// seedMarkdown is the content of the seeded notes (about 500 bytes of Markdown); each note's
// heading carries its number, so that no two notes have the same document (a cache of rendered
// documents must not make every read a hit).
const seedMarkdown = `## Weekly sync with the platform team

Discussed the **Q3 roadmap** with @alice and @bob. Key points:

- Migrate the billing service to the new queue
- Review the *on-call* rotation before the next release
- Budget for load testing (` + "`k6`" + ` or our own harness)

> **Decision:** ship the new pagination behind a flag first.

Follow-up next week with the [design doc](https://example.com/design). #roadmap #meeting`

// SearchWord is in the indexed text of about 100 of the caller's notes (see seed).
const SearchWord = "zephyrquartz"

var tagNames = []string{"roadmap", "meeting", "hiring", "budget", "oncall", "release", "design",
	"incident", "retro", "planning", "customer", "security", "infra", "billing", "growth", "legal",
	"sales", "support", "quality", "perf", "mobile", "web", "data", "ml", "ops", "okr", "risk",
	"vendor", "travel", "training"}

var personNames = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi",
	"ivan", "judy", "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor",
	"walter", "zoe"}

// Seed fills the server's (fresh, migrated, PostgreSQL) database with the scenario, directly in
// SQL (INSERT ... SELECT FROM generate_series), keeps notebooks.item_count exact, and runs VACUUM
// ANALYZE as autovacuum would have on a production table.
func Seed(t testing.TB, s *apitest.Server, sc Scenario) Seeded {
	t.Helper()
	start := time.Now()
	ann := s.NewUser(t, "Ann Load")
	var d Seeded
	// One connection for the whole seed, so that its session settings hold.
	err := s.DB.WithContext(context.Background()).Connection(func(conn *gorm.DB) error {
		d = seed(t, conn, ann, sc)
		return nil
	})
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
	d.Key = s.NewKey(t, ann, auth.ScopeReadWrite)
	d.Session = s.OpenSession(t, ann).Token // as the sign-in page does, through the accounts module
	t.Logf("seeded %s in %v: %d notes (%d in the caller's %d notebooks, %d visible live)",
		sc.Name, time.Since(start).Round(time.Millisecond), sc.Total, sc.CallerNotes, sc.CallerNotebooks, len(d.VisibleIDs))
	return d
}

// checkSeededTexts holds the seeded notes' stored texts to what rendering their trees gives, on a
// few of them: the reads serve the stored texts, so a seed that wrote them otherwise would
// measure answers the server never gives.
func checkSeededTexts(t testing.TB, conn *gorm.DB) {
	t.Helper()
	rows, err := conn.Raw(`SELECT content, content_markdown FROM notes ORDER BY id LIMIT 5`).Rows()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var tree []byte
		var text string
		if err := rows.Scan(&tree, &text); err != nil {
			t.Fatal(err)
		}
		rendered, err := document.Render(tree)
		if err != nil || rendered != text {
			t.Fatalf("seeded text %q, the tree renders %q (%v)", text, rendered, err)
		}
	}
}

func seed(t testing.TB, conn *gorm.DB, ann apitest.User, sc Scenario) Seeded {
	t.Helper()
	exec := func(sql string, args ...any) {
		t.Helper()
		t0 := time.Now()
		if err := conn.Exec(sql, args...).Error; err != nil {
			t.Fatalf("seed: %v\n%s", err, sql)
		}
		if d := time.Since(t0); d > 2*time.Second {
			t.Logf("seed: %v: %.80s", d.Round(time.Millisecond), strings.Join(strings.Fields(sql), " "))
		}
	}
	exec("SET synchronous_commit = off")
	exec("SET maintenance_work_mem = '256MB'")
	defer exec("RESET ALL") // the connection goes back to the server's pool

	others := sc.Total - sc.CallerNotes
	otherNotebooks := max(10, others/sc.OtherPerNotebook)
	otherUsers := max(5, otherNotebooks/2)
	otherWorkspaces := max(1, otherNotebooks/20)

	doc, err := markdown.Parse(seedMarkdown)
	if err != nil {
		t.Fatalf("seed content: %v", err)
	}
	content, err := markdown.Encode(doc)
	if err != nil {
		t.Fatalf("seed content: %v", err)
	}

	// Users and workspaces. ids are 24 characters: a letter and 23 hex digits of an md5.
	exec(`INSERT INTO users (id, email, name, password_hash, created_at, updated_at)
		SELECT 'u'||substr(md5('u'||g), 1, 23), 'load'||g||'@example.com', 'Load User '||g, '', now(), now()
		FROM generate_series(1, ?) g`, otherUsers)
	exec(`INSERT INTO workspaces (id, name, created_by_id, created_at, updated_at)
		SELECT 'w'||substr(md5('w'||g), 1, 23), 'Workspace '||g, 'u'||substr(md5('u'||(g % ? + 1)), 1, 23), now(), now()
		FROM generate_series(0, ?) g`, otherUsers, otherWorkspaces)
	callerWS := "w" + md5hex("w0")[:23]
	// Workspace 0 is the caller's: Ann owns it, users 1 to 4 are members.
	exec(`INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES (?, ?, 'OWNER', now())`, callerWS, ann.ID)
	exec(`INSERT INTO memberships (workspace_id, user_id, role, created_at)
		SELECT ?, 'u'||substr(md5('u'||g), 1, 23), 'MEMBER', now() FROM generate_series(1, 4) g`, callerWS)
	// Other workspaces: three members each, the first an owner.
	exec(`INSERT INTO memberships (workspace_id, user_id, role, created_at)
		SELECT 'w'||substr(md5('w'||g), 1, 23), 'u'||substr(md5('u'||((g + m) % ? + 1)), 1, 23),
		       CASE WHEN m = 0 THEN 'OWNER' ELSE 'MEMBER' END, now()
		FROM generate_series(1, ?) g, generate_series(0, 2) m`, otherUsers, otherWorkspaces)

	// Notebooks: the caller's personal one, the caller's workspace notebooks, then the others
	// (every second one in another workspace, the rest personal).
	callerNBs := make([]string, sc.CallerNotebooks)
	for i := range callerNBs {
		callerNBs[i] = "b" + md5hex(fmt.Sprintf("caller%d", i))[:23]
	}
	exec(`INSERT INTO notebooks (id, name, color, workspace_id, owner_id, item_count, created_at, updated_at)
		VALUES (?, 'Personal', 'gray', NULL, ?, 0, now(), now())`, callerNBs[0], ann.ID)
	exec(`INSERT INTO notebooks (id, name, color, workspace_id, owner_id, item_count, created_at, updated_at)
		SELECT 'b'||substr(md5('caller'||g), 1, 23), 'Team '||g, 'blue', ?, ?, 0, now(), now()
		FROM generate_series(1, ?) g`, callerWS, ann.ID, sc.CallerNotebooks-1)
	exec(`INSERT INTO notebooks (id, name, color, workspace_id, owner_id, item_count, created_at, updated_at)
		SELECT 'b'||substr(md5('other'||g), 1, 23), 'Notebook '||g, 'green',
		       CASE WHEN g % 2 = 0 THEN 'w'||substr(md5('w'||(g % ? + 1)), 1, 23) END,
		       'u'||substr(md5('u'||(g % ? + 1)), 1, 23), 0, now(), now()
		FROM generate_series(0, ? - 1) g`, otherWorkspaces, otherUsers, otherNotebooks)

	// Tags: 30 #tags and 20 @persons in every space (a workspace, or a personal notebook's owner);
	// name_key is the tags module's identity key, the SHA-256 of the lower-cased name.
	exec(`INSERT INTO tags (id, space_id, kind, name_key, name)
		SELECT 'g'||substr(md5(sp||':'||k.kind||':'||i), 1, 23), sp, k.kind,
		       encode(sha256(convert_to(lower(k.names[i + 1]), 'UTF8')), 'hex'), k.names[i + 1]
		FROM (SELECT DISTINCT COALESCE(workspace_id, owner_id) AS sp FROM notebooks) s,
		     (VALUES ('TAG', ?::text[], 30), ('PERSON', ?::text[], 20)) k(kind, names, n),
		     LATERAL generate_series(0, k.n - 1) i`, pgArray(tagNames), pgArray(personNames))

	rebuild := dropIndexes(t, conn, "notes", "item_tags", "search_index")

	// Notes, inserted in createdAt order as a live table grows. Note g <= CallerNotes goes to the
	// caller's notebook g % CallerNotebooks, the others round-robin over the other notebooks.
	// createdAt: a hash of g spread over about a year, at 15 ms steps (so some ties, broken by id).
	// Each note's stored text (content_markdown) is its document's, written as the server writes
	// it (document.Codec); the seed checks a few against rendering the tree below.
	exec(`INSERT INTO notes (id, notebook_id, content, content_markdown, content_codec, has_decision, archived, created_by_id, created_at, updated_at, deleted_at)
		SELECT id, notebook_id, jsonb_set(?::jsonb, '{content,0,content,0,text}', to_jsonb('Weekly sync '||g||' with the platform team'))::json,
		       replace(?, '## Weekly sync with', '## Weekly sync '||g||' with'), ?,
		       ?, (hashtext('a'||g) & 1023) % 10 = 3, created_by_id, ts, ts,
		       CASE WHEN (hashtext('d'||g) & 1023) % 50 = 7 THEN ts + interval '1 day' END
		FROM (
			SELECT g, 'n'||substr(md5('n'||g), 1, 23) AS id,
			       CASE WHEN g <= ? THEN 'b'||substr(md5('caller'||(g % ?)), 1, 23)
			            ELSE 'b'||substr(md5('other'||(g % ?)), 1, 23) END AS notebook_id,
			       CASE WHEN g <= ? THEN ?
			            ELSE 'u'||substr(md5('u'||((g % ?) % ? + 1)), 1, 23) END AS created_by_id,
			       date_trunc('milliseconds', now() - interval '1 hour'
			            - ((hashtext('t'||g)::bigint & 2147483647) * 15) * interval '1 millisecond') AS ts
			FROM generate_series(1, ?) g
		) x ORDER BY ts`,
		string(content), document.Text(doc), document.Codec, doc.HasDecision(),
		sc.CallerNotes, sc.CallerNotebooks, otherNotebooks,
		sc.CallerNotes, ann.ID, otherNotebooks, otherUsers,
		sc.Total)
	// Dates (CONTRACT.md section 21, the Focus view and reminders): one note in ten has a target
	// date within 60 days either side of now, one in ten a follow-up between 120 days ago and 30
	// days ahead; a follow-up already past is disarmed, as the migration that added reminders left
	// the past (items.AddReminders).
	exec(`UPDATE notes SET
		target_at = CASE WHEN (hashtext('ta'||id) & 1023) % 10 = 0
			THEN date_trunc('milliseconds', now() + ((hashtext('tt'||id) % 5184000) * interval '1 second')) END,
		follow_up_at = CASE WHEN (hashtext('fa'||id) & 1023) % 10 = 0
			THEN date_trunc('milliseconds', now() - interval '45 days' + ((hashtext('ft'||id) % 6480000) * interval '1 second')) END`)
	exec(`UPDATE notes SET follow_up_fired_at = follow_up_at WHERE follow_up_at <= now()`)
	exec(`UPDATE notebooks nb SET item_count = c.n
		FROM (SELECT notebook_id, count(*) AS n FROM notes WHERE deleted_at IS NULL GROUP BY notebook_id) c
		WHERE nb.id = c.notebook_id`)

	// Three tags per note: two #tags and one @person of the note's space.
	exec(`INSERT INTO item_tags (item_kind, item_id, tag_id, item_created_at)
		SELECT 'note', n.id, 'g'||substr(md5(COALESCE(nb.workspace_id, nb.owner_id)||':'||t.kind||':'||t.i), 1, 23), n.created_at
		FROM notes n JOIN notebooks nb ON nb.id = n.notebook_id,
		     LATERAL (SELECT hashtext(n.id) & 1023 AS h) x,
		     LATERAL (VALUES ('TAG', x.h % 30), ('TAG', (x.h + 7) % 30), ('PERSON', x.h % 20)) t(kind, i)`)
	// The search index: each note's text as the server indexes it (modules/search), its heading
	// numbered like its content. One caller note in CallerNotes/100 also carries SearchWord, so a
	// search for it matches about 100 of the caller's notes among the million.
	exec(`INSERT INTO search_index (item_kind, item_id, body)
		SELECT 'note', 'n'||substr(md5('n'||g), 1, 23),
		       replace(?, 'weekly sync with', 'weekly sync '||g||' with') ||
		       CASE WHEN g <= ? AND g % ? = 0 THEN ' '||? ELSE '' END
		FROM generate_series(1, ?) g`,
		search.Normalize(markdown.Render(doc)), sc.CallerNotes, max(1, sc.CallerNotes/100), SearchWord, sc.Total)
	rebuild()
	checkSeededTexts(t, conn)
	for _, table := range []string{"users", "workspaces", "memberships", "notebooks", "tags", "notes", "item_tags", "search_index"} {
		exec("VACUUM ANALYZE " + table)
	}

	var visible []string
	if err := conn.Raw(`SELECT id FROM notes WHERE notebook_id IN ? AND deleted_at IS NULL AND NOT archived`, callerNBs).
		Scan(&visible).Error; err != nil {
		t.Fatalf("seed: %v", err)
	}
	var oldest []time.Time
	if err := conn.Raw(`SELECT follow_up_at FROM notes WHERE notebook_id IN ? AND deleted_at IS NULL AND NOT archived
		AND follow_up_at IS NOT NULL ORDER BY follow_up_at LIMIT 20`, callerNBs).Scan(&oldest).Error; err != nil {
		t.Fatalf("seed: %v", err)
	}
	focus20 := "/focus"
	if len(oldest) > 0 {
		focus20 = focusEndingAfter(oldest[len(oldest)-1])
	}
	t.Logf("seed: the Focus view of about 20 notes is %s", focus20)
	return Seeded{UserID: ann.ID, CallerNotebooks: callerNBs, VisibleIDs: visible, Focus20: focus20}
}

// dropIndexes removes the tables' indexes and constraints (keys, uniques, foreign keys) and
// returns the function that puts exactly them back, as the migrations made them: building an
// index once over a million rows is many times faster than maintaining it row by row (the ids are
// random), and a foreign key is then checked in one pass.
func dropIndexes(t testing.TB, conn *gorm.DB, tables ...string) (rebuild func()) {
	t.Helper()
	var cons []struct{ Tbl, Name, Def, Kind string }
	if err := conn.Raw(`SELECT conrelid::regclass::text AS tbl, conname AS name, pg_get_constraintdef(oid) AS def, contype AS kind
		FROM pg_constraint WHERE conrelid::regclass::text IN ? AND contype IN ('p', 'u', 'f')
		ORDER BY contype = 'f' DESC`, tables).Scan(&cons).Error; err != nil {
		t.Fatalf("seed: %v", err)
	}
	var idx []struct{ Name, Def string }
	if err := conn.Raw(`SELECT indexname AS name, indexdef AS def FROM pg_indexes
		WHERE schemaname = current_schema() AND tablename IN ? AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
		tables).Scan(&idx).Error; err != nil {
		t.Fatalf("seed: %v", err)
	}
	run := func(sql string) {
		t.Helper()
		if err := conn.Exec(sql).Error; err != nil {
			t.Fatalf("seed: %v\n%s", err, sql)
		}
	}
	for _, c := range cons { // foreign keys first
		run(fmt.Sprintf("ALTER TABLE %s DROP CONSTRAINT %s", c.Tbl, c.Name))
	}
	for _, i := range idx {
		run("DROP INDEX " + i.Name)
	}
	return func() {
		for _, i := range idx {
			run(i.Def)
		}
		for k := len(cons) - 1; k >= 0; k-- { // keys before the foreign keys that need them
			run(fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s %s", cons[k].Tbl, cons[k].Name, cons[k].Def))
		}
	}
}

// pgArray renders a PostgreSQL text array literal of simple words.
func pgArray(words []string) string { return "{" + strings.Join(words, ",") + "}" }

func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// focusEndingAfter is the GET /focus query of the day that ends at the first full hour after at,
// in the fixed-offset zone (Etc/GMT±h) whose midnight that hour is: its follow-up list holds the
// follow-ups up to at and those of the hour after it.
func focusEndingAfter(at time.Time) string {
	end := at.UTC().Truncate(time.Hour).Add(time.Hour)
	h := end.Hour() // local midnight at end: offset -h hours, or 24-h hours east
	zone, offset := "Etc/GMT+"+strconv.Itoa(h), -h
	switch {
	case h == 0:
		zone, offset = "UTC", 0
	case h > 12:
		zone, offset = "Etc/GMT-"+strconv.Itoa(24-h), 24-h
	}
	date := end.Add(time.Duration(offset)*time.Hour - time.Nanosecond).Format(time.DateOnly)
	return "/focus?date=" + date + "&tz=" + url.QueryEscape(zone)
}

// TestFocusEndingAfter checks the Focus20 query for every hour of the day: the day it names ends
// at the first full hour after the instant.
func TestFocusEndingAfter(t *testing.T) {
	for h := range 24 {
		at := time.Date(2026, 7, 14, h, 17, 0, 0, time.UTC)
		u, err := url.Parse(focusEndingAfter(at))
		if err != nil {
			t.Fatal(err)
		}
		loc, err := time.LoadLocation(u.Query().Get("tz"))
		if err != nil {
			t.Fatal(err)
		}
		date, err := time.ParseInLocation(time.DateOnly, u.Query().Get("date"), loc)
		if err != nil {
			t.Fatal(err)
		}
		if end, want := date.AddDate(0, 0, 1), at.Truncate(time.Hour).Add(time.Hour); !end.Equal(want) {
			t.Errorf("%v: %s ends at %v, want %v", at, u, end.UTC(), want)
		}
	}
}
