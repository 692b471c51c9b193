package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"folio/modules/document"
	"folio/modules/items"
	"folio/modules/search"
	"folio/platform/auth"
	"folio/platform/config"
	"folio/platform/db"
	"folio/platform/httpx"
	"folio/platform/ids"
	"folio/platform/markdown"
	"folio/tests/apitest"
)

// The floor (issue 17): a bare net/http server over pgx/v5 that answers GET /notes/:id, GET /notes,
// GET /notes?cursor= and POST /notes with exactly the statements folio sends for them
// (TestFloorMatchesFolio compares both, statement by statement, the response bodies, and for a
// create the rows it wrote), with the caller's key known in memory, the same session settings,
// the stored text sent as it is on reads (no Markdown work), the same Markdown codec on a create
// (markdown.ParseCanonical, markdown.Encode) and the same JSON shape. What
// folio spends beyond it is its own Go: routing, middleware, auth and rate limit, GORM, the item
// flows. BenchmarkFloor measures both, interleaved, on one database.

// The statements, as folio sends them (placeholders numbered as pgx receives them from GORM).
const (
	floorNoteSQL = `SELECT notes.id, notes.notebook_id, notes.content, notes.content_markdown, notes.content_codec, notes.has_decision, notes.archived, notes.target_at, notes.follow_up_at, notes.created_by_id, notes.created_at, notes.updated_at, notes.deleted_at, notes.version FROM notes WHERE notes.id = $1 AND notes.deleted_at IS NULL AND notes.notebook_id IN (SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IS NULL AND notebooks.owner_id = $2 UNION ALL SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IN (SELECT memberships.workspace_id FROM memberships WHERE memberships.user_id = $3)) LIMIT 1`

	floorPendingSQL = `SELECT id, item_kind, item_id, status, CASE WHEN suggestions.original_content_codec = 1 THEN NULL ELSE suggestions.original_content END, CASE WHEN suggestions.suggested_content_codec = 1 THEN NULL ELSE suggestions.suggested_content END, original_content_markdown, original_content_codec, suggested_content_markdown, suggested_content_codec, rationale, created_by_id, created_by_key_name, created_by_key_prefix, created_at, resolved_at, resolved_by_id, version, item_version FROM suggestions WHERE item_kind = $1 AND item_id = $2 AND status = $3 LIMIT 1`

	floorListSQL = `SELECT notes.id, notes.notebook_id, CASE WHEN notes.content_codec = 1 THEN NULL ELSE notes.content END, notes.content_markdown, notes.content_codec, notes.has_decision, notes.archived, notes.target_at, notes.follow_up_at, notes.created_by_id, notes.created_at, notes.updated_at, notes.deleted_at, notes.version FROM "notes" WHERE notes.id IN (SELECT page.id FROM (SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IS NULL AND notebooks.owner_id = $1 UNION ALL SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IN (SELECT memberships.workspace_id FROM memberships WHERE memberships.user_id = $2)) AS nb CROSS JOIN LATERAL (SELECT notes.id, notes.created_at FROM "notes" WHERE notes.notebook_id = nb.id AND notes.deleted_at IS NULL AND notes.archived = $3 ORDER BY notes.created_at DESC,notes.id DESC LIMIT $4) AS page ORDER BY page.created_at DESC,page.id DESC LIMIT $5) ORDER BY notes.created_at DESC,notes.id DESC LIMIT $6`

	floorCursorSQL = `SELECT notes.id, notes.notebook_id, CASE WHEN notes.content_codec = 1 THEN NULL ELSE notes.content END, notes.content_markdown, notes.content_codec, notes.has_decision, notes.archived, notes.target_at, notes.follow_up_at, notes.created_by_id, notes.created_at, notes.updated_at, notes.deleted_at, notes.version FROM "notes" WHERE notes.id IN (SELECT page.id FROM (SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IS NULL AND notebooks.owner_id = $1 UNION ALL SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IN (SELECT memberships.workspace_id FROM memberships WHERE memberships.user_id = $2)) AS nb CROSS JOIN LATERAL (SELECT notes.id, notes.created_at FROM "notes" WHERE (notes.notebook_id = nb.id AND notes.deleted_at IS NULL AND notes.archived = $3) AND (notes.created_at, notes.id) < ((SELECT notes.created_at FROM "notes" WHERE notes.notebook_id IN (SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IS NULL AND notebooks.owner_id = $4 UNION ALL SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IN (SELECT memberships.workspace_id FROM memberships WHERE memberships.user_id = $5)) AND notes.id = $6), $7) ORDER BY notes.created_at DESC,notes.id DESC LIMIT $8) AS page ORDER BY page.created_at DESC,page.id DESC LIMIT $9) ORDER BY notes.created_at DESC,notes.id DESC LIMIT $10`

	floorPageSize = 20
)

// The statements of POST /notes, in the order folio sends them in its transaction; the tags'
// statements, whose length depends on the content, are floorInsertTagsSQL, floorTagIDsSQL and
// floorLinkTagsSQL.
const (
	floorNotebookSQL = `SELECT notebooks.id, notebooks.name, notebooks.color, notebooks.workspace_id, notebooks.owner_id, notebooks.item_count, notebooks.created_at, notebooks.updated_at, notebooks.version, m.role FROM notebooks LEFT JOIN memberships m ON m.workspace_id = notebooks.workspace_id AND m.user_id = $1 WHERE notebooks.id = $2 LIMIT 1`

	floorInsertNoteSQL = `INSERT INTO "notes" ("id","notebook_id","archived","target_at","follow_up_at","follow_up_fired_at","created_by_id","created_at","updated_at","deleted_at","version","content","content_markdown","content_codec","has_decision") VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15)`

	floorIndexSQL = `INSERT INTO search_index (item_kind, item_id, body) VALUES ($1, $2, $3) ON CONFLICT (item_kind, item_id) DO UPDATE SET body = excluded.body`

	floorUntagSQL = `DELETE FROM "item_tags" WHERE item_kind = $1 AND item_id = $2`

	floorAuditSQL = `INSERT INTO "audit_entries" ("action","resource_type","resource_id","actor_user_id","api_key_id","api_key_name","api_key_prefix","workspace_id","notebook_id","created_at") VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`

	floorEventSQL = `INSERT INTO "events" ("type","resource_type","resource_id","notebook_id","workspace_id","actor_user_id","api_key_name","api_key_prefix","data","created_at") VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`

	floorReserveSQL = `UPDATE "notebooks" SET "item_count"=item_count + $1 WHERE id = $2 AND item_count + $3 <= $4`

	// floorTagBatch is folio's batch of tag rows and names per statement (modules/tags): the floor
	// answers only contents with at most that many tags, whose statements are one each.
	floorTagBatch = 1000
)

// floorTagsSQL is folio's tags query for n items.
func floorTagsSQL(n int) string {
	return `SELECT it.item_id, t.id, t.name, t.kind FROM item_tags it JOIN tags t ON t.id = it.tag_id WHERE it.item_kind = $1 AND it.item_id IN (` +
		placeholders(2, n) + ")"
}

// floorInsertTagsSQL creates n tags of a space, as folio's tags module does.
func floorInsertTagsSQL(n int) string {
	return `INSERT INTO "tags" ("id","space_id","kind","name_key","name") VALUES ` + valueRows(5, n) + " ON CONFLICT DO NOTHING"
}

// floorTagIDsSQL reads the ids of n tags of one kind of a space, by name key.
func floorTagIDsSQL(n int) string {
	return `SELECT "id" FROM "tags" WHERE space_id = $1 AND kind = $2 AND name_key IN (` + placeholders(3, n) + ")"
}

// floorLinkTagsSQL attaches n tags to an item.
func floorLinkTagsSQL(n int) string {
	return `INSERT INTO "item_tags" ("item_kind","item_id","tag_id","item_created_at") VALUES ` + valueRows(4, n)
}

// placeholders is "$from,...,$(from+n-1)".
func placeholders(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("$" + strconv.Itoa(from+i))
	}
	return b.String()
}

// valueRows is n rows of cols placeholders each: "($1,$2),($3,$4)".
func valueRows(cols, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(" + placeholders(1+i*cols, cols) + ")")
	}
	return b.String()
}

type floorTag struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// floorNote is a note on the wire, field for field as folio writes it.
type floorNote struct {
	ID          string     `json:"id"`
	Content     string     `json:"content"`
	NotebookID  string     `json:"notebookId"`
	HasDecision bool       `json:"hasDecision"`
	Archived    bool       `json:"archived"`
	TargetAt    *string    `json:"targetAt"`
	FollowUpAt  *string    `json:"followUpAt"`
	Tags        []floorTag `json:"tags"`
	CreatedAt   string     `json:"createdAt"`
	UpdatedAt   string     `json:"updatedAt"`
	version     int64
}

type floorNoteWithPending struct {
	floorNote
	PendingSuggestion *struct{} `json:"pendingSuggestion"`
}

type floorPage struct {
	Data       []floorNote `json:"data"`
	NextCursor *string     `json:"nextCursor"`
}

// floorCaller is the principal of a key, as folio's key cache holds it.
type floorCaller struct {
	UserID, KeyID, KeyName, KeyPrefix string
}

// floorCallerOf looks the key up once, before the floor serves it.
func floorCallerOf(t testing.TB, s *apitest.Server, raw string) floorCaller {
	t.Helper()
	prefix, _, err := auth.ParseKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	c := floorCaller{KeyPrefix: auth.DisplayPrefix(prefix)}
	if err := s.DB.Raw(`SELECT id, user_id, name FROM api_keys WHERE prefix = ?`, prefix).Row().Scan(&c.KeyID, &c.UserID, &c.KeyName); err != nil {
		t.Fatal(err)
	}
	return c
}

// Floor is the floor server.
type Floor struct {
	URL       string
	pool      *pgxpool.Pool
	callers   map[string]floorCaller // by raw key
	itemLimit int                    // the notebooks' item limit, folio's
	srv       *httptest.Server
	mu        sync.Mutex
	sql       map[floorSQLKey]string // the statements whose text depends on a count, by count
	// Sent records the statements the floor sends (TestFloorMatchesFolio).
	Sent *sentStatements
}

type floorSQLKey struct {
	name string
	n    int
}

// startFloor starts the floor on the database of folio's configuration cfg, knowing the callers.
func startFloor(t testing.TB, cfg config.Config, conns int, callers map[string]floorCaller) *Floor {
	t.Helper()
	pcfg, err := pgxpool.ParseConfig(db.SessionURL(cfg.DatabaseURL))
	if err != nil {
		t.Fatal(err)
	}
	pcfg.MaxConns, pcfg.MinConns = int32(conns), int32(conns)
	sent := &sentStatements{}
	pcfg.ConnConfig.Tracer = sent
	pool, err := pgxpool.NewWithConfig(context.Background(), pcfg)
	if err != nil {
		t.Fatal(err)
	}
	f := &Floor{pool: pool, callers: callers, itemLimit: cfg.NotebookItemLimit, sql: map[floorSQLKey]string{}, Sent: sent}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/notes/{id}", f.getNote)
	mux.HandleFunc("GET /api/v1/notes", f.listNotes)
	mux.HandleFunc("POST /api/v1/notes", f.createNote)
	f.srv = httptest.NewServer(mux)
	f.URL = f.srv.URL
	t.Cleanup(func() { f.srv.Close(); pool.Close() })
	return f
}

// statement returns build(n), built once per builder (named by name) and count.
func (f *Floor) statement(name string, build func(int) string, n int) string {
	k := floorSQLKey{name, n}
	f.mu.Lock()
	defer f.mu.Unlock()
	q, ok := f.sql[k]
	if !ok {
		q = build(n)
		f.sql[k] = q
	}
	return q
}

// sentStatements is a pgx tracer that records the text of every statement the floor sends
// (begin and commit included) while it is on. The floor always has it: off, it costs one atomic
// load per statement.
type sentStatements struct {
	on  atomic.Bool
	mu  sync.Mutex
	got []string
}

func (s *sentStatements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if s.on.Load() {
		s.mu.Lock()
		s.got = append(s.got, data.SQL)
		s.mu.Unlock()
	}
	return ctx
}

func (s *sentStatements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// Recording returns the statements the floor sent while fn ran.
func (s *sentStatements) Recording(fn func()) []string {
	s.mu.Lock()
	s.got = nil
	s.mu.Unlock()
	s.on.Store(true)
	fn()
	s.on.Store(false)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got
}

func (f *Floor) caller(w http.ResponseWriter, r *http.Request) (floorCaller, bool) {
	key, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	c, ok := f.callers[key]
	if !ok {
		http.Error(w, `{"error":{"code":"UNAUTHENTICATED"}}`, http.StatusUnauthorized)
	}
	return c, ok
}

// scanNotes reads rows of folio's note columns (its single read and its lists select the same
// list, notes.noteColumns, in the same order).
func scanNotes(rows pgx.Rows) ([]floorNote, error) {
	defer rows.Close()
	var out []floorNote
	for rows.Next() {
		var (
			n                         floorNote
			tree                      []byte
			codec                     int16
			target, followUp, deleted *time.Time
			created, updated          time.Time
			createdBy                 string
		)
		if err := rows.Scan(&n.ID, &n.NotebookID, &tree, &n.Content, &codec, &n.HasDecision, &n.Archived, &target, &followUp,
			&createdBy, &created, &updated, &deleted, &n.version); err != nil {
			return nil, err
		}
		// The raw floor does no Markdown work on a read: it sends the stored text. A text an older
		// codec wrote (which folio would render from the tree) would make the two differ.
		if codec != document.Codec {
			return nil, fmt.Errorf("note %s: stored text of codec %d, not %d", n.ID, codec, document.Codec)
		}
		n.TargetAt, n.FollowUpAt = httpx.TimePtr(target), httpx.TimePtr(followUp)
		n.CreatedAt, n.UpdatedAt = httpx.Time(created), httpx.Time(updated)
		out = append(out, n)
	}
	return out, rows.Err()
}

// floorQuerier is the pool, or a transaction.
type floorQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// withTags fills the notes' tags with folio's tags query on db, sorted as folio sorts them.
func (f *Floor) withTags(ctx context.Context, db floorQuerier, notes []floorNote) error {
	if len(notes) == 0 {
		return nil
	}
	q := f.statement("tags", floorTagsSQL, len(notes))
	args := make([]any, 0, len(notes)+1)
	args = append(args, "note")
	at := make(map[string]int, len(notes))
	for i, n := range notes {
		args = append(args, n.ID)
		at[n.ID] = i
	}
	rows, err := db.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	type row struct {
		item, key string
		tag       floorTag
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.item, &r.tag.ID, &r.tag.Name, &r.tag.Kind); err != nil {
			rows.Close()
			return err
		}
		r.key = strings.ToLower(r.tag.Name)
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.tag.Kind != b.tag.Kind {
			return a.tag.Kind == "TAG"
		}
		if a.key != b.key {
			return a.key < b.key
		}
		return a.tag.ID < b.tag.ID
	})
	for i := range notes {
		notes[i].Tags = []floorTag{}
	}
	for _, r := range all {
		notes[at[r.item]].Tags = append(notes[at[r.item]].Tags, r.tag)
	}
	return nil
}

func (f *Floor) getNote(w http.ResponseWriter, r *http.Request) {
	c, ok := f.caller(w, r)
	if !ok {
		return
	}
	ctx, id := r.Context(), r.PathValue("id")
	rows, err := f.pool.Query(ctx, floorNoteSQL, id, c.UserID, c.UserID)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	notes, err := scanNotes(rows)
	if err != nil || len(notes) == 0 {
		http.Error(w, `{"error":{"code":"NOTE_NOT_FOUND"}}`, http.StatusNotFound)
		return
	}
	if err := f.withTags(ctx, f.pool, notes); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	pending, err := f.pool.Query(ctx, floorPendingSQL, "note", id, "PENDING")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	has := pending.Next()
	pending.Close()
	if has {
		http.Error(w, "the floor does not render pending suggestions", http.StatusInternalServerError)
		return
	}
	w.Header().Set("ETag", `"v`+strconv.FormatInt(notes[0].version, 10)+`"`)
	f.write(w, floorNoteWithPending{floorNote: notes[0]})
}

func (f *Floor) listNotes(w http.ResponseWriter, r *http.Request) {
	c, ok := f.caller(w, r)
	if !ok {
		return
	}
	ctx, user := r.Context(), c.UserID
	var (
		rows pgx.Rows
		err  error
	)
	if cursor := r.URL.Query().Get("cursor"); cursor != "" {
		rows, err = f.pool.Query(ctx, floorCursorSQL, user, user, false, user, user, cursor, cursor, floorPageSize+1, floorPageSize+1, floorPageSize+1)
	} else {
		rows, err = f.pool.Query(ctx, floorListSQL, user, user, false, floorPageSize+1, floorPageSize+1, floorPageSize+1)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	notes, err := scanNotes(rows)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	page := floorPage{Data: notes}
	if len(notes) > floorPageSize {
		page.Data = notes[:floorPageSize]
		next := page.Data[floorPageSize-1].ID
		page.NextCursor = &next
	}
	if page.Data == nil {
		page.Data = []floorNote{}
	}
	if err := f.withTags(ctx, f.pool, page.Data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	f.write(w, page)
}

func (f *Floor) write(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(b)
}

// floorCreateRequest is POST /notes's body; the floor takes no dates.
type floorCreateRequest struct {
	Content    string  `json:"content"`
	NotebookID string  `json:"notebookId"`
	TargetAt   *string `json:"targetAt"`
	FollowUpAt *string `json:"followUpAt"`
}

// floorTagRow is a tag the content names, as folio's tags module creates it.
type floorTagRow struct {
	id, kind, key, name string
}

// createNote sends folio's statements for a create in one transaction: the notebook and the
// caller's role in it, the note, its search text, its tags (the old links removed, missing tags
// created, their ids read per kind, the links written), the note's tags read back, the audit entry
// and its event, and last the notebook's item slot. The Markdown that ParseCanonical returns is
// the stored document's (Render∘Parse is a fixed point): it is the response's content and, once
// normalised, the search text, so the floor renders the document once (folio renders it for the
// check of the length, for the index and for the response). The response's JSON is the event's
// data, marshalled once.
func (f *Floor) createNote(w http.ResponseWriter, r *http.Request) {
	c, ok := f.caller(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	var req floorCreateRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Content == "" || req.NotebookID == "" {
		http.Error(w, `{"error":{"code":"VALIDATION_ERROR"}}`, http.StatusBadRequest)
		return
	}
	if req.TargetAt != nil || req.FollowUpAt != nil {
		http.Error(w, "the floor does not set dates", http.StatusInternalServerError)
		return
	}
	if !ids.Valid(req.NotebookID) {
		http.Error(w, `{"error":{"code":"NOTEBOOK_NOT_FOUND"}}`, http.StatusNotFound)
		return
	}
	if utf8.RuneCountInString(req.Content) > markdown.MaxLength {
		http.Error(w, `{"error":{"code":"VALIDATION_ERROR"}}`, http.StatusBadRequest)
		return
	}
	doc, text, err := markdown.ParseCanonical(req.Content)
	if err != nil {
		http.Error(w, `{"error":{"code":"INVALID_MARKDOWN"}}`, http.StatusBadRequest)
		return
	}
	stored, err := markdown.Encode(doc)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	now := time.Now().UTC()
	note := floorNote{ID: ids.New(), Content: text, NotebookID: req.NotebookID, HasDecision: doc.HasDecision(),
		CreatedAt: httpx.Time(now), UpdatedAt: httpx.Time(now)}
	status, body, err := f.create(ctx, c, &note, stored, doc.Tags(), now)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if status != http.StatusCreated {
		http.Error(w, string(body), status)
		return
	}
	w.Header().Set("Location", httpx.APIBase+"/notes/"+note.ID)
	w.Header().Set("ETag", `"v1"`)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}

// create runs createNote's transaction; it answers the status and body, or an error (a 500).
func (f *Floor) create(ctx context.Context, c floorCaller, note *floorNote, stored []byte, found []markdown.Tag, now time.Time) (int, []byte, error) {
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = tx.Rollback(ctx) }() // nothing once committed
	rows, err := tx.Query(ctx, floorNotebookSQL, c.UserID, note.NotebookID)
	if err != nil {
		return 0, nil, err
	}
	var (
		workspaceID  *string
		owner        string
		role         *string
		notebookRows int
	)
	dest := make([]any, len(rows.FieldDescriptions())) // nil: the columns the floor does not use
	for i, fd := range rows.FieldDescriptions() {
		switch fd.Name {
		case "workspace_id":
			dest[i] = &workspaceID
		case "owner_id":
			dest[i] = &owner
		case "role":
			dest[i] = &role
		}
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return 0, nil, err
		}
		notebookRows++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, nil, err
	}
	if notebookRows == 0 || workspaceID == nil && owner != c.UserID || workspaceID != nil && role == nil {
		return http.StatusNotFound, []byte(`{"error":{"code":"NOTEBOOK_NOT_FOUND"}}`), nil
	}
	space := owner
	if workspaceID != nil {
		space = *workspaceID
	}
	if _, err := tx.Exec(ctx, floorInsertNoteSQL, note.ID, note.NotebookID, false, nil, nil, nil, c.UserID, now, now, nil, 1, stored, note.Content, document.Codec, note.HasDecision); err != nil {
		return 0, nil, err
	}
	if _, err := tx.Exec(ctx, floorIndexSQL, "note", note.ID, search.Normalize(note.Content)); err != nil {
		return 0, nil, err
	}
	if err := f.tag(ctx, tx, space, note.ID, found, now); err != nil {
		return 0, nil, err
	}
	notes := []floorNote{*note}
	if err := f.withTags(ctx, tx, notes); err != nil {
		return 0, nil, err
	}
	*note = notes[0]
	body, err := json.Marshal(note)
	if err != nil {
		return 0, nil, err
	}
	if _, err := tx.Exec(ctx, floorAuditSQL, "note.create", "note", note.ID, c.UserID, c.KeyID, c.KeyName, c.KeyPrefix,
		workspaceID, note.NotebookID, time.Now().UTC()); err != nil {
		return 0, nil, err
	}
	if _, err := tx.Exec(ctx, floorEventSQL, "note.created", "note", note.ID, note.NotebookID, workspaceID, c.UserID,
		c.KeyName, c.KeyPrefix, body, time.Now().UTC()); err != nil {
		return 0, nil, err
	}
	reserved, err := tx.Exec(ctx, floorReserveSQL, 1, note.NotebookID, 1, f.itemLimit)
	if err != nil {
		return 0, nil, err
	}
	if reserved.RowsAffected() == 0 {
		return http.StatusForbidden, []byte(`{"error":{"code":"ITEM_LIMIT_REACHED"}}`), nil
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, body, nil
}

// tag makes found the tags of the note in the space, with folio's statements: the old links
// removed, the missing tags created, the ids read per kind (in the kinds' order, as folio reads
// them), the links written.
func (f *Floor) tag(ctx context.Context, tx pgx.Tx, space, noteID string, found []markdown.Tag, createdAt time.Time) error {
	if _, err := tx.Exec(ctx, floorUntagSQL, "note", noteID); err != nil {
		return err
	}
	var (
		tags  []floorTagRow
		kinds []string
		seen  = map[string]bool{}
	)
	for _, t := range found {
		tr := floorTagRow{kind: string(t.Sigil), key: items.TagKey(t.Name), name: t.Name}
		if seen[tr.kind+":"+tr.key] {
			continue
		}
		seen[tr.kind+":"+tr.key] = true
		if !slices.Contains(kinds, tr.kind) {
			kinds = append(kinds, tr.kind)
		}
		tr.id = ids.New()
		tags = append(tags, tr)
	}
	if len(tags) == 0 {
		return nil
	}
	slices.Sort(kinds)
	if len(tags) > floorTagBatch {
		return errors.New("the floor does not batch tags")
	}
	args := make([]any, 0, 5*len(tags))
	for _, t := range tags {
		args = append(args, t.id, space, t.kind, t.key, t.name)
	}
	if _, err := tx.Exec(ctx, f.statement("insert tags", floorInsertTagsSQL, len(tags)), args...); err != nil {
		return err
	}
	var links []any
	for _, kind := range kinds {
		args = append(args[:0], space, kind)
		for _, t := range tags {
			if t.kind == kind {
				args = append(args, t.key)
			}
		}
		rows, err := tx.Query(ctx, f.statement("tag ids", floorTagIDsSQL, len(args)-2), args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			links = append(links, "note", noteID, id, createdAt)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	if len(links) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, f.statement("link tags", floorLinkTagsSQL, len(links)/4), links...)
	return err
}
