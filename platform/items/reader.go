package items

import (
	"context"

	"gorm.io/gorm"

	"folio/platform/auth"
)

// Reader answers the access rule (auth.Reader) for one kind of item: an item is readable when it
// is not deleted and its notebook is one the principal may see (Notebooks.VisibleIDs, the decision
// every read of the API makes). One statement for any number of ids.
type Reader struct {
	kind, table string
	db          *gorm.DB
	notebooks   Notebooks
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
	var found []string
	err := r.db.WithContext(ctx).Table(r.table).
		Where(r.table+".id IN ? AND "+r.table+".deleted_at IS NULL AND "+r.table+".notebook_id IN (?)", ids, r.notebooks.VisibleIDs(p)).
		Pluck(r.table+".id", &found).Error
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(found))
	for _, id := range found {
		out[id] = true
	}
	return out, nil
}
