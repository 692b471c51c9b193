package items

import (
	"context"

	"gorm.io/gorm"

	"folio/platform/auth"
	"folio/platform/db"
)

// Reader answers the access rule (auth.Reader) for one kind of item: an item is readable when it
// is not deleted and its notebook is one the principal may see (Notebooks.VisibleIDs, the decision
// every read of the API makes). One constant statement per kind of principal for any number of
// ids (db.InIDs), sent natively on PostgreSQL: the feed asks it for every page.
type Reader struct {
	kind, table string
	db          *gorm.DB
	notebooks   Notebooks
	texts       db.Texts
}

// ReaderOf returns the constructor of the Reader of a kind of item stored in table, for
// fx.Provide(auth.AsReader(items.ReaderOf("note", "notes"))).
func ReaderOf(kind, table string) func(gdb *gorm.DB, nb Notebooks) *Reader {
	return func(gdb *gorm.DB, nb Notebooks) *Reader {
		return &Reader{kind: kind, table: table, db: gdb, notebooks: nb}
	}
}

// ResourceType implements auth.Reader.
func (r *Reader) ResourceType() string { return r.kind }

// Readable implements auth.Reader.
func (r *Reader) Readable(ctx context.Context, _ *auth.Rule, p *auth.Principal, ids []string) (map[string]bool, error) {
	visible := r.notebooks.VisibleIDs(p)
	text := r.texts.Of(visible.SQL, func(part string) string {
		return "SELECT t.id FROM " + r.table + " t WHERE " + db.InIDs(r.db, "t.id") +
			" AND t.deleted_at IS NULL AND t.notebook_id IN (" + part + ")"
	})
	out := make(map[string]bool, len(ids))
	err := db.Read(ctx, r.db, text, append([]any{db.IDsArg(r.db, ids)}, visible.Vars...), func(row db.RowScanner) error {
		var id string
		if err := row.Scan(&id); err != nil {
			return err
		}
		out[id] = true
		return nil
	})
	return out, err
}
