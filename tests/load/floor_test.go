package load

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"folio/platform/content"
	"folio/platform/db"
	"folio/platform/httpx"
)

// The floor (issue 17): a bare net/http server over pgx/v5 that answers GET /notes/:id, GET /notes
// and GET /notes?cursor= with exactly the statements folio sends for them (TestFloorMatchesFolio
// compares both, statement by statement, and the response bodies byte for byte), with the caller's
// key known in memory, the same session settings, the same Markdown rendering (content.Render) and
// the same JSON shape. What folio spends beyond it is its own Go: routing, middleware, auth and
// rate limit, GORM, the item flows. BenchmarkFloor measures both, interleaved, on one database.

// The statements, as folio sends them (placeholders numbered as pgx receives them from GORM).
const (
	floorNoteSQL = `SELECT notes.id, notes.notebook_id, notes.content, notes.has_decision, notes.archived, notes.target_at, notes.follow_up_at, notes.created_by_id, notes.created_at, notes.updated_at, notes.deleted_at, notes.version FROM notes WHERE notes.id = $1 AND notes.deleted_at IS NULL AND notes.notebook_id IN (SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IS NULL AND notebooks.owner_id = $2 UNION ALL SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IN (SELECT memberships.workspace_id FROM memberships WHERE memberships.user_id = $3)) LIMIT 1`

	floorPendingSQL = `SELECT id, item_kind, item_id, status, original_content, suggested_content, rationale, created_by_id, created_by_key_name, created_by_key_prefix, created_at, resolved_at, resolved_by_id, version FROM suggestions WHERE item_kind = $1 AND item_id = $2 AND status = $3 LIMIT 1`

	floorListSQL = `SELECT notes.id, notes.notebook_id, notes.content, notes.has_decision, notes.archived, notes.target_at, notes.follow_up_at, notes.created_by_id, notes.created_at, notes.updated_at, notes.deleted_at, notes.version FROM "notes" WHERE notes.id IN (SELECT page.id FROM (SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IS NULL AND notebooks.owner_id = $1 UNION ALL SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IN (SELECT memberships.workspace_id FROM memberships WHERE memberships.user_id = $2)) AS nb CROSS JOIN LATERAL (SELECT notes.id, notes.created_at FROM "notes" WHERE notes.notebook_id = nb.id AND notes.deleted_at IS NULL AND notes.archived = $3 ORDER BY notes.created_at DESC,notes.id DESC LIMIT $4) AS page ORDER BY page.created_at DESC,page.id DESC LIMIT $5) ORDER BY notes.created_at DESC,notes.id DESC LIMIT $6`

	floorCursorSQL = `SELECT notes.id, notes.notebook_id, notes.content, notes.has_decision, notes.archived, notes.target_at, notes.follow_up_at, notes.created_by_id, notes.created_at, notes.updated_at, notes.deleted_at, notes.version FROM "notes" WHERE notes.id IN (SELECT page.id FROM (SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IS NULL AND notebooks.owner_id = $1 UNION ALL SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IN (SELECT memberships.workspace_id FROM memberships WHERE memberships.user_id = $2)) AS nb CROSS JOIN LATERAL (SELECT notes.id, notes.created_at FROM "notes" WHERE (notes.notebook_id = nb.id AND notes.deleted_at IS NULL AND notes.archived = $3) AND (notes.created_at, notes.id) < ((SELECT notes.created_at FROM "notes" WHERE notes.notebook_id IN (SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IS NULL AND notebooks.owner_id = $4 UNION ALL SELECT notebooks.id FROM notebooks WHERE notebooks.workspace_id IN (SELECT memberships.workspace_id FROM memberships WHERE memberships.user_id = $5)) AND notes.id = $6), $7) ORDER BY notes.created_at DESC,notes.id DESC LIMIT $8) AS page ORDER BY page.created_at DESC,page.id DESC LIMIT $9) ORDER BY notes.created_at DESC,notes.id DESC LIMIT $10`

	floorPageSize = 20
)

// floorTagsSQL is folio's tags query for n items.
func floorTagsSQL(n int) string {
	var b strings.Builder
	b.WriteString(`SELECT it.item_id, t.id, t.name, t.kind FROM item_tags it JOIN tags t ON t.id = it.tag_id WHERE it.item_kind = $1 AND it.item_id IN (`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("$" + strconv.Itoa(i+2))
	}
	b.WriteByte(')')
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

// Floor is the floor server.
type Floor struct {
	URL  string
	pool *pgxpool.Pool
	keys map[string]string // raw key → user id
	srv  *httptest.Server
	mu   sync.Mutex
	tags map[int]string // floorTagsSQL by item count
}

// startFloor starts the floor on databaseURL, knowing the keys (raw key → user id).
func startFloor(t testing.TB, databaseURL string, conns int, keys map[string]string) *Floor {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(db.SessionURL(databaseURL))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns, cfg.MinConns = int32(conns), int32(conns)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := &Floor{pool: pool, keys: keys, tags: map[int]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/notes/{id}", f.getNote)
	mux.HandleFunc("GET /api/v1/notes", f.listNotes)
	f.srv = httptest.NewServer(mux)
	f.URL = f.srv.URL
	t.Cleanup(func() { f.srv.Close(); pool.Close() })
	return f
}

func (f *Floor) user(w http.ResponseWriter, r *http.Request) (string, bool) {
	key, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	u, ok := f.keys[key]
	if !ok {
		http.Error(w, `{"error":{"code":"UNAUTHENTICATED"}}`, http.StatusUnauthorized)
	}
	return u, ok
}

// scanNotes reads rows of folio's note columns (its single read and its lists select the same
// list, notes.noteColumns, in the same order).
func scanNotes(rows pgx.Rows) ([]floorNote, error) {
	defer rows.Close()
	var out []floorNote
	for rows.Next() {
		var (
			n                         floorNote
			stored                    []byte
			target, followUp, deleted *time.Time
			created, updated          time.Time
			createdBy                 string
		)
		if err := rows.Scan(&n.ID, &n.NotebookID, &stored, &n.HasDecision, &n.Archived, &target, &followUp,
			&createdBy, &created, &updated, &deleted, &n.version); err != nil {
			return nil, err
		}
		text, err := content.Render(stored)
		if err != nil {
			return nil, err
		}
		n.Content, n.TargetAt, n.FollowUpAt = text, httpx.TimePtr(target), httpx.TimePtr(followUp)
		n.CreatedAt, n.UpdatedAt = httpx.Time(created), httpx.Time(updated)
		out = append(out, n)
	}
	return out, rows.Err()
}

// withTags fills the notes' tags with folio's tags query, sorted as folio sorts them.
func (f *Floor) withTags(ctx context.Context, notes []floorNote) error {
	if len(notes) == 0 {
		return nil
	}
	f.mu.Lock()
	q, ok := f.tags[len(notes)]
	if !ok {
		q = floorTagsSQL(len(notes))
		f.tags[len(notes)] = q
	}
	f.mu.Unlock()
	args := make([]any, 0, len(notes)+1)
	args = append(args, "note")
	at := make(map[string]int, len(notes))
	for i, n := range notes {
		args = append(args, n.ID)
		at[n.ID] = i
	}
	rows, err := f.pool.Query(ctx, q, args...)
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
	user, ok := f.user(w, r)
	if !ok {
		return
	}
	ctx, id := r.Context(), r.PathValue("id")
	rows, err := f.pool.Query(ctx, floorNoteSQL, id, user, user)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	notes, err := scanNotes(rows)
	if err != nil || len(notes) == 0 {
		http.Error(w, `{"error":{"code":"NOTE_NOT_FOUND"}}`, http.StatusNotFound)
		return
	}
	if err := f.withTags(ctx, notes); err != nil {
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
	user, ok := f.user(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	var (
		rows pgx.Rows
		err  error
	)
	if c := r.URL.Query().Get("cursor"); c != "" {
		rows, err = f.pool.Query(ctx, floorCursorSQL, user, user, false, user, user, c, c, floorPageSize+1, floorPageSize+1, floorPageSize+1)
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
	if err := f.withTags(ctx, page.Data); err != nil {
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
