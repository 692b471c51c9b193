package items

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/go-gormigrate/gormigrate/v2"

	"folio/modules/document"
	"folio/modules/search"
	"folio/platform/auth"
	"folio/platform/db"
)

// The queries every kind of item runs on its own table alike; GORM names the table after Row.
// Lists stay in the modules' stores (their filters and their query plans differ) but share
// ListFilter.Where.

// ListFilter is what every item list filters on: the query parameters notebookId and archived,
// and the search filters of CONTRACT.md section 14 (q, tag, person, targetFrom, targetTo) with the
// module's own (Conditions). Everything combines with AND.
type ListFilter struct {
	NotebookID *string
	Archived   bool
	Text       *search.Query // q
	Tags       []string      // tag (repeatable): #tag names, any case, the item has them all
	People     []string      // person (repeatable): @person names
	TargetFrom *time.Time    // targetAt on or after
	TargetTo   *time.Time    // targetAt before (the end of the day of targetTo, made exclusive)
	Conditions []Condition   // the module's own filters (a note's hasDecision, a task's priority)
	// TagSpaces, set by Service.List, is a subquery of the caller's tag spaces: a tag name is
	// looked up there only (a name like "roadmap" has a tag in every space of the database).
	TagSpaces *clause.Expr
}

// Condition is one SQL condition with its arguments.
type Condition struct {
	SQL  string
	Args []any
}

// Where narrows q, a query on table, to the live items the filter asks for.
func (f ListFilter) Where(q *gorm.DB, table string) *gorm.DB {
	q = q.Where(table+".deleted_at IS NULL AND "+table+".archived = ?", f.Archived)
	if f.NotebookID != nil {
		q = q.Where(table+".notebook_id = ?", *f.NotebookID)
	}
	return f.Narrow(q, table)
}

// Searching reports whether the filter has a text query: lists then start from the search index.
func (f ListFilter) Searching() bool { return f.Text != nil }

// Narrow adds the search filters and the module's conditions (not archived, deleted or notebook)
// to q, a query on table.
func (f ListFilter) Narrow(q *gorm.DB, table string) *gorm.DB {
	kind := strings.TrimSuffix(table, "s")
	if f.Text != nil {
		cond, args := search.Matching(q, table, kind, *f.Text)
		q = q.Where(cond, args...)
	}
	for _, t := range [...]struct {
		kind  string
		names []string
	}{{"TAG", f.Tags}, {"PERSON", f.People}} {
		for _, name := range t.names {
			// One EXISTS per name: the item carries them all. The ids of the tags of that name in
			// the caller's spaces (one per space: a few, where the database has thousands) are read
			// once per statement (ARRAY of an uncorrelated subquery: an
			// InitPlan on PostgreSQL), from the identity index, whose key leads with name_key (see
			// modules/tags); each candidate item is then one probe of item_tags' key (item_kind,
			// item_id, tag_id). Written as IN (SELECT ...), PostgreSQL re-read the tags for every
			// candidate row (SQLite, which has no arrays, keeps that form). OFFSET 0 keeps the
			// EXISTS a per-row probe under the per-notebook LIMIT: PostgreSQL may otherwise make
			// it a semi-join that hashes every item_tags row of the tag, once per notebook.
			tagIDs := "IN (?)"
			if db.IsPostgres(q) {
				tagIDs = "= ANY (ARRAY(?)) OFFSET 0"
			}
			q = q.Where("EXISTS (SELECT 1 FROM item_tags it WHERE it.item_kind = ? AND it.item_id = "+table+".id AND it.tag_id "+tagIDs+")",
				kind, f.TagIDs(q, name, t.kind))
		}
	}
	if f.TargetFrom != nil {
		q = q.Where(table+".target_at >= ?", *f.TargetFrom)
	}
	if f.TargetTo != nil {
		q = q.Where(table+".target_at < ?", *f.TargetTo)
	}
	for _, c := range f.Conditions {
		q = q.Where(c.SQL, c.Args...)
	}
	return q
}

// TagIDs is a subquery of the ids of the tags named name (of sigil kind, TAG or PERSON) in the
// caller's tag spaces (TagSpaces; every space when it is not set): one per space.
func (f ListFilter) TagIDs(q *gorm.DB, name, kind string) *gorm.DB {
	tags := q.Session(&gorm.Session{NewDB: true}).Table("tags").Select("tags.id").
		Where("tags.name_key = ? AND tags.kind = ?", TagKey(name), kind)
	if f.TagSpaces != nil {
		tags = tags.Where("tags.space_id IN (?)", *f.TagSpaces)
	}
	return tags
}

// TagKey is the identity key of a tag name: the SHA-256 (hex) of the lower-cased name. The tags
// module stores it; list filters look tags up by it.
func TagKey(name string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(name)))
	return hex.EncodeToString(sum[:])
}

// get loads a live item among the notebooks of visible (a subquery of notebook ids). With tx and
// lock, the row stays locked until tx ends. The hot case, a read outside a transaction on
// PostgreSQL, is one constant statement sent natively and scanned by the shape's RowScan.
func (s *Service[Row]) get(ctx context.Context, tx *gorm.DB, id string, visible clause.Expr, lock bool) (Row, error) {
	if sc := s.shape.Scan; sc != nil && tx == nil && !lock {
		var (
			row   Row
			found bool
		)
		sql := s.getTexts.Of(visible.SQL, func(visible string) string {
			return "SELECT " + sc.Select + " FROM " + sc.Table + " WHERE " + sc.Table + ".id = ? AND " +
				sc.Table + ".deleted_at IS NULL AND " + sc.Table + ".notebook_id IN (" + visible + ") LIMIT 1"
		})
		ok, err := db.Query(ctx, s.db, sql,
			append([]any{id}, visible.Vars...), func(r db.RowScanner) (err error) {
				row, err = sc.Scan(r)
				found = true
				return err
			})
		if ok {
			if err == nil && !found {
				err = s.shape.NotFound
			}
			return row, err
		}
	}
	if tx == nil {
		tx = s.db
	}
	q := tx.WithContext(ctx).Where("id = ? AND deleted_at IS NULL AND notebook_id IN (?)", id, visible)
	return db.Take[Row](q, lock, s.shape.NotFound)
}

// getInNotebook loads a live item as get does, and the notebook that holds it if the principal
// may use that notebook.
func (s *Service[Row]) getInNotebook(ctx context.Context, tx *gorm.DB, p *auth.Principal, id string, visible clause.Expr, lock bool) (Row, Notebook, error) {
	row, err := s.get(ctx, tx, id, visible, lock)
	if err != nil {
		return row, Notebook{}, err
	}
	nb, err := s.notebooks.ItemNotebook(ctx, tx, p, s.shape.Columns(&row).NotebookID)
	return row, nb, err
}

// create inserts row (db.Insert: natively in the transaction on PostgreSQL, as GORM's Create writes it).
func (s *Service[Row]) create(ctx context.Context, tx *gorm.DB, row *Row) error {
	return db.Insert(ctx, tx, row)
}

// save writes every column of row but those that never change, and the next version. The row was
// read under its lock in this transaction, so the version read plus one is the row's next one.
func (s *Service[Row]) save(ctx context.Context, tx *gorm.DB, row *Row) error {
	s.shape.Columns(row).Version++
	return tx.WithContext(ctx).Select("*").Omit("id", "created_at", "created_by_id").Updates(row).Error
}

// touch increments the version of the item id alone (its row is locked by the caller's transaction).
func (s *Service[Row]) touch(ctx context.Context, tx *gorm.DB, id string) error {
	var row Row
	return tx.WithContext(ctx).Model(&row).Where("id = ?", id).UpdateColumn("version", gorm.Expr("version + 1")).Error
}

// IndexExisting is a migration step that writes the text of every live item of table to the search
// index (search_index), a page of rows at a time: the items made before the index existed. Later
// writes keep it current (Service.index).
func IndexExisting[Row any](id, table string, shape Shape[Row]) *gormigrate.Migration {
	return &gormigrate.Migration{
		ID: id,
		Migrate: func(tx *gorm.DB) error {
			s := &Service[Row]{shape: shape}
			var rows []Row
			return tx.Table(table).Where("deleted_at IS NULL").FindInBatches(&rows, 500, func(batch *gorm.DB, _ int) error {
				for i := range rows {
					// Rows older than their stored text: the text rendered from the tree.
					text, err := document.Render(*shape.Document(&rows[i]))
					if err != nil {
						return err
					}
					if err := s.index(context.Background(), tx, &rows[i], text); err != nil {
						return err
					}
				}
				return nil
			}).Error
		},
		Rollback: func(tx *gorm.DB) error {
			return tx.Exec("DELETE FROM search_index WHERE item_kind = ?", shape.Name).Error
		},
	}
}

// StampTagTimes is a migration step that copies the created_at of every item of table (kind) to
// its tag links (item_tags.item_created_at, see the tags module), for the links made before the
// column existed. table is written into the SQL as it is: pass a constant.
func StampTagTimes(id, table, kind string) *gormigrate.Migration {
	return &gormigrate.Migration{
		ID: id,
		Migrate: func(tx *gorm.DB) error {
			return tx.Exec("UPDATE item_tags SET item_created_at = (SELECT t.created_at FROM "+table+" t WHERE t.id = item_tags.item_id)"+
				" WHERE item_kind = ? AND item_created_at IS NULL", kind).Error
		},
		Rollback: func(tx *gorm.DB) error { return nil },
	}
}
