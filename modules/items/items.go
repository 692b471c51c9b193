// Package items runs what notes and tasks do alike. Each is an item: a row in a notebook that
// carries one Markdown document (a note's content, a task's notes) stored as the codec's document.
// Both create within the notebook's item limit, snapshot the document before a PATCH overwrites it,
// keep the document's tags, move between notebooks, archive, soft-delete, write the audit entry in
// the same transaction as the change, and offer the document to the suggestions module as a
// content.Target. One Service per kind of item holds those flows, so that the two modules cannot
// drift apart.
//
// A module keeps its own row type, request and response types, the validation of its own fields
// and its errors; it describes its row to this package with a Shape. The flows reach the notebooks,
// tags, versions and audit modules only through the narrow interfaces below (platform never
// imports modules), which those modules bind in their module.go.
package items

import (
	"context"
	"sync"
	"time"

	"go.uber.org/fx"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"folio/modules/document"
	"folio/modules/journal"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/db"
	"folio/platform/etag"
	"folio/platform/markdown"
)

// Shape describes one kind of item, whose rows are of type Row, to the shared flows.
type Shape[Row any] struct {
	// Name is the item kind in tags, snapshots, suggestions and the audit log ("note", "task"); the
	// audit actions are Name+".create", ".update" and ".delete".
	Name string
	// NotFound is the kind's 404 error (NOTE_NOT_FOUND, TASK_NOT_FOUND).
	NotFound error
	// Columns returns the row's embedded Columns: pass (*Note).ItemColumns.
	Columns func(row *Row) *Columns
	// Document returns the row's document column (a note's content, a task's notes): the
	// codec's tree, the source of truth.
	Document func(row *Row) *db.JSON
	// Text returns the row's stored text of that document (document.Written): its canonical
	// Markdown as written with the tree, which reads serve (document.Read).
	Text func(row *Row) *document.Written
	// Derive, when not nil, sets the columns a module computes from the document (a note's
	// hasDecision) whenever the document is written.
	Derive func(row *Row, doc markdown.Doc)
	// ShowsPending says that a single read of the item shows its pending suggestion (a note's
	// pendingSuggestion): then suggesting and rejecting bump the item's version too, so that its
	// ETag changes whenever what a GET shows does (see Target's Touch).
	ShowsPending bool
	// SearchText, when not nil, is the item's text for full-text search given its document's
	// Markdown (a task adds its title); nil: the Markdown alone.
	SearchText func(row *Row, markdown string) string
	// Label, when not nil, is how a person recognises the item in a list (a task's title); nil:
	// the first line of the document's text (a note).
	Label func(row *Row) string
	// Scan, when not nil, reads the module's rows by hand on the hot single-item read (get, on
	// PostgreSQL): one constant statement and no reflection, instead of GORM's query builder and
	// scanner. See RowScan.
	Scan *RowScan[Row]
	// Reminders are the kind's reminder times (FollowUp for every kind; a task's due date too).
	Reminders []Reminder[Row]
	// Remindable, when not nil, says whether the item may be reminded of besides being live and
	// not archived (a task: not DONE); RemindableSQL is the same condition in SQL ("status <>
	// 'DONE'"), for the loop's query.
	Remindable    func(row *Row) bool
	RemindableSQL string
	// Response is the module's response conversion, given the Markdown of the item's document:
	// the item as the API returns it, the data of its events in the change feed (modules/journal).
	// A write builds it once (View.Response).
	Response func(v View[Row], text string) any
}

// RowScan is what a module gives for its hot reads to bypass GORM (db.WithNative, the one pattern
// for that): the module's table and SELECT list as constants, and a scan of one row of that list
// without reflection (the notes list's FetchScan uses the same pair). PostgreSQL only: SQLite's
// driver returns times as text, which only GORM's scanner converts.
type RowScan[Row any] struct {
	Table  string // "notes"
	Select string // "notes.id, notes.notebook_id, ..."
	// Many is Select for a read of many rows (the Focus lists): the same columns, the tree only
	// where the stored text is not current (document.TreeIfStale), which is all such a read uses.
	Many string
	Scan func(db.RowScanner) (Row, error)
}

// Columns are the columns every item row has besides its document. Notes and tasks embed it (GORM
// flattens an embedded struct into the row's table), and the shared flows read and set it through
// Shape.Columns.
type Columns struct {
	ID         string     `gorm:"primaryKey;size:24"`
	NotebookID string     `gorm:"size:24;not null"`
	Archived   bool       `gorm:"not null"`
	TargetAt   *time.Time // the Focus view's date
	FollowUpAt *time.Time // the follow-up reminder
	// FollowUpFiredAt is the follow-up reminder's state (see Reminder): the time it fired for or
	// was disarmed at, NULL while armed. Never on the wire.
	FollowUpFiredAt *time.Time
	CreatedByID     string `gorm:"size:24;not null"`
	CreatedAt       time.Time
	// UpdatedAt is set by the service, from its clock (GORM's autoUpdateTime would overwrite it
	// with the wall clock on every save).
	UpdatedAt time.Time `gorm:"autoUpdateTime:false"`
	// DeletedAt is set by a delete: the row stays so that cursors and audit entries naming it stay
	// valid; every read filters it out.
	DeletedAt *time.Time
	// Version counts the row's writes: 1 when created, incremented by every UPDATE of the row, in
	// that UPDATE (the row is locked when it is read for the write). The item's ETag is made of it.
	Version int64 `gorm:"not null;default:1"`
}

// ETag is the item's strong ETag (CONTRACT.md section 12).
func (c *Columns) ETag() string { return etag.Of(c.Version) }

// ItemColumns returns c; embedded in a row type, it is the row's Shape.Columns.
func (c *Columns) ItemColumns() *Columns { return c }

// Notebook is the notebook that holds an item, as the shared flows need it.
type Notebook struct {
	ID          string
	WorkspaceID *string
	// TagSpace is where the item's tags live: the workspace, or the owner of a personal notebook.
	TagSpace string
}

// Notebooks answers whether a principal may use a notebook and keeps the notebooks' item counts
// (the notebooks module's Access provides it).
type Notebooks interface {
	// ItemNotebook returns the notebook if the principal may use it, with the access codes of
	// CONTRACT.md section 6 otherwise. tx may be nil.
	ItemNotebook(ctx context.Context, tx *gorm.DB, p *auth.Principal, id string) (Notebook, error)
	// VisibleIDs is a subquery of the ids of the notebooks the principal may see, as constant SQL
	// text (placeholders ?) with its arguments: GORM embeds it as `IN (?)` without building
	// anything, and a native read (db.WithNative) sends it as text.
	VisibleIDs(p *auth.Principal) clause.Expr
	// VisibleSpaces is a subquery of the tag spaces of those notebooks (a superset will do), in the
	// same form: the tag filters look up a name's tags in these spaces only, not in every space
	// of the database.
	VisibleSpaces(p *auth.Principal) clause.Expr
	// NotebookOf returns an item's notebook whoever asks: for the work no principal does (a
	// reminder's event names the notebook's workspace). tx may be nil.
	NotebookOf(ctx context.Context, tx *gorm.DB, id string) (Notebook, error)
	// Reserve takes n item slots in a notebook inside tx, or fails with ITEM_LIMIT_REACHED.
	Reserve(ctx context.Context, tx *gorm.DB, notebookID string, n int) error
	// Release gives n item slots back inside tx.
	Release(ctx context.Context, tx *gorm.DB, notebookID string, n int) error
}

// Tag is a tag as an item shows it, on the wire too (SPEC's Tag object).
type Tag struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Kind string `json:"kind"` // TAG or PERSON
}

// TagList is an item's tags for a response: always an array, never null.
func TagList(tags []Tag) []Tag {
	if tags == nil {
		return []Tag{}
	}
	return tags
}

// Tags keeps an item's tags (the tags module provides it).
type Tags interface {
	// Replace makes found the item's tags in the space, inside tx. itemCreatedAt is the item's
	// created_at, kept beside each link so that a tag's items can be walked newest first.
	Replace(ctx context.Context, tx *gorm.DB, spaceID, itemKind, itemID string, itemCreatedAt time.Time, found []markdown.Tag) error
	// ForItems returns the tags of each item, in one query, in tx (nil: outside a transaction).
	ForItems(ctx context.Context, tx *gorm.DB, itemKind string, itemIDs []string) (map[string][]Tag, error)
}

// Versions saves a snapshot of an item's document before it is overwritten (the versions module
// provides it).
type Versions interface {
	// Save stores tree, with its stored text, as a snapshot of the item, inside tx; p is who
	// replaced it.
	Save(ctx context.Context, tx *gorm.DB, itemKind, itemID string, tree []byte, text document.Written, reason string, p *auth.Principal) error
}

// Reasons a snapshot is taken (Versions.Save's reason).
const (
	ReasonUpdate     = "update"     // a PATCH overwrote the document (Update takes it)
	ReasonSuggestion = "suggestion" // an approved suggestion replaced it
	ReasonRestore    = "restore"    // a restore of an earlier version replaced it
)

// ServiceParams are what the shared flows use from the rest of the application: an fx parameter object, so
// fx fills it for a constructor that takes it; without fx, fill it by hand.
type ServiceParams struct {
	fx.In
	DB        *gorm.DB
	Notebooks Notebooks
	Tags      Tags
	Versions  Versions
	Audit     journal.Recorder
	Clock     clock.Clock
}

// View is an item with its tags, as reads return it.
type View[Row any] struct {
	Item Row
	Tags []Tag
	// Response, set by a write, is the item as the API returns it (Shape.Response), built with the
	// Markdown the write had in hand: its event's data, and the answer the module's conversion
	// gives back as it is. nil on reads, whose conversion reads the stored text.
	Response any
}

// Service runs the shared flows of one kind of item.
type Service[Row any] struct {
	shape     Shape[Row]
	db        *gorm.DB
	notebooks Notebooks
	tags      Tags
	versions  Versions
	audit     journal.Recorder
	clock     clock.Clock

	// docColumn is the column of Shape.Document, found once (documentColumn).
	docColumnOnce sync.Once
	docColumn     string
	docColumnErr  error

	// getTexts are get's statement texts, one per text of the visible notebooks' subquery.
	getTexts db.Texts
}

// NewService returns the flows of the items shape describes.
func NewService[Row any](shape Shape[Row], d ServiceParams) *Service[Row] {
	return &Service[Row]{shape: shape, db: d.DB, notebooks: d.Notebooks, tags: d.Tags, versions: d.Versions, audit: d.Audit, clock: d.Clock}
}
