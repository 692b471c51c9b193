package items

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-gormigrate/gormigrate/v2"
	"go.uber.org/fx"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"folio/platform/auth"
	"folio/platform/db"
)

// The Focus view (CONTRACT.md section 21, GET /focus) over one kind of item: for a local day, the
// items targeted on it, the follow-ups and the due items up to its end. A kind that shows there
// joins the "focusSources" value group with the source its Service makes (AsFocusSource,
// Service.FocusSource); the focus module merges the kinds' lists. What a principal sees is what
// its lists show: the notebooks of Notebooks.VisibleIDs.

// Day is a local calendar day as the instants it spans, [Start, End) in UTC: 24 hours, or 23 or
// 25 on the days the clocks change.
type Day struct{ Start, End time.Time }

// FocusList is one list of the Focus view.
type FocusList int

// The Focus view's lists, in the answer's order.
const (
	Targeted   FocusList = iota // targetAt within the day, by targetAt
	FollowUps                   // followUpAt before the day's end, oldest first
	Due                         // dueAt before the day's end, oldest first (the kinds with a due date)
	FocusCount                  // how many lists there are
)

// FocusLists are the Focus view's lists, by FocusList.
type FocusLists [FocusCount][]Dated

// Dated is an item in a Focus list: its kind, its id, the date it is listed by, and the item as
// the API returns it (Shape.Response: a note as GET /notes lists it, a task as GET /tasks/:id).
type Dated struct {
	Kind string
	ID   string
	At   time.Time
	Item any
}

// Compare orders the entries of a Focus list: by their date, ties by id.
func (d Dated) Compare(o Dated) int {
	if c := d.At.Compare(o.At); c != 0 {
		return c
	}
	return strings.Compare(d.ID, o.ID)
}

// FocusSource is a kind of item in the Focus view.
type FocusSource interface {
	// Focus returns, for each list, the first n items of the kind that the principal may see, in
	// the list's order (fewer when there are no more).
	Focus(ctx context.Context, p *auth.Principal, day Day, n int) (FocusLists, error)
}

// AsFocusSource annotates a constructor whose result implements FocusSource so that it joins the
// "focusSources" value group the focus module reads: fx.Provide(items.AsFocusSource(NewFocusSource)).
func AsFocusSource(constructor any) any {
	return fx.Annotate(constructor, fx.As(new(FocusSource)), fx.ResultTags(`group:"focusSources"`))
}

// Focus is how a kind of item shows in the Focus view, beyond the columns every item has. The
// same value describes its read (Service.FocusSource) and its indexes (FocusIndexes), so that the
// read states each index's predicate word for word.
type Focus[Row any] struct {
	// Table is the kind's table, written into the SQL as it is: a constant.
	Table string
	// Open, when not "", is the constant SQL condition (on Table's columns, unqualified) that an
	// item meets to be listed at all: a task's "status <> 'DONE'". It is part of the indexes'
	// predicates, so it is written with literals, never placeholders: SQLite uses a partial index
	// only when the query repeats its predicate's terms, and PostgreSQL's generic plans (which
	// folio's connections force) must prove the predicate without the values.
	Open string
	// DueColumn and DueAt, when set, put the kind in the due list: the column of its due date and
	// a row's due date.
	DueColumn string
	DueAt     func(row *Row) *time.Time
}

// focusColumn is a list's date column: targetAt is bounded on both sides, the others only by the
// day's end.
type focusColumn struct {
	list     FocusList
	name     string
	bothEnds bool
}

// columns are the kind's lists with their date columns.
func (f Focus[Row]) columns() []focusColumn {
	out := []focusColumn{{Targeted, "target_at", true}, {FollowUps, "follow_up_at", false}}
	if f.DueColumn != "" {
		out = append(out, focusColumn{Due, f.DueColumn, false})
	}
	return out
}

// listed is the condition of every list: a live item, not archived, open; written alike in the
// read and in the indexes' predicates.
func (f Focus[Row]) listed(table string) string {
	q := ""
	if table != "" {
		q = table + "."
	}
	cond := q + "deleted_at IS NULL AND " + q + "archived = false"
	if f.Open != "" {
		cond += " AND " + f.Open
	}
	return cond
}

// FocusIndexes is a migration step that adds the kind's Focus indexes: for each list, (notebook_id,
// its date, id) over the items the list can show (live, not archived, open, with the date). A
// Focus read is then, per visible notebook and list, one range scan of at most n entries of one
// index (PostgreSQL), or one range scan of each visible notebook's entries in the list's range
// (SQLite), and never a scan of the caller's items.
func FocusIndexes[Row any](id string, f Focus[Row]) *gormigrate.Migration {
	name := func(c focusColumn) string { return "idx_" + f.Table + "_focus_" + c.name }
	return &gormigrate.Migration{
		ID: id,
		Migrate: func(tx *gorm.DB) error {
			for _, c := range f.columns() {
				err := tx.Exec("CREATE INDEX " + name(c) + " ON " + f.Table + " (notebook_id, " + c.name + ", id) WHERE " +
					f.listed("") + " AND " + c.name + " IS NOT NULL").Error
				if err != nil {
					return err
				}
			}
			return nil
		},
		Rollback: func(tx *gorm.DB) error {
			for _, c := range f.columns() {
				if err := tx.Exec("DROP INDEX " + name(c)).Error; err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// FocusSource returns the kind's source for the Focus view, described by f.
func (s *Service[Row]) FocusSource(f Focus[Row]) FocusSource { return &focusSource[Row]{s: s, f: f} }

// focusSource reads a kind's Focus lists.
type focusSource[Row any] struct {
	s *Service[Row]
	f Focus[Row]
	// texts are the read's statements, one per text of the visible notebooks' subquery and n.
	texts db.Texts
	// selects are the native reads of the lists' rows, one per text of ids.
	selects db.Texts
}

// Focus implements FocusSource: two reads, the rows of every list at once and their tags.
func (fs *focusSource[Row]) Focus(ctx context.Context, p *auth.Principal, day Day, n int) (FocusLists, error) {
	rows, err := fs.rows(ctx, fs.s.notebooks.VisibleIDs(p), day, n)
	if err != nil {
		return FocusLists{}, err
	}
	views, err := fs.s.withTags(ctx, nil, rows)
	if err != nil {
		return FocusLists{}, err
	}
	var out FocusLists
	for _, v := range views {
		c := fs.s.shape.Columns(&v.Item)
		dates := [FocusCount]*time.Time{Targeted: c.TargetAt, FollowUps: c.FollowUpAt}
		if fs.f.DueAt != nil {
			dates[Due] = fs.f.DueAt(&v.Item)
		}
		var item any // the answer, built once for every list that shows the item
		for list, at := range dates {
			// An item read for one list is in another too when its date falls in that list's
			// range: past that list's first n (else the list's own branch read it), so the cut
			// below leaves it out.
			if at == nil || !at.Before(day.End) || (FocusList(list) == Targeted && at.Before(day.Start)) {
				continue
			}
			if item == nil {
				text, err := fs.s.text(&v.Item)
				if err != nil {
					return FocusLists{}, err
				}
				item = fs.s.shape.Response(v, text)
			}
			out[list] = append(out[list], Dated{Kind: fs.s.shape.Name, ID: c.ID, At: *at, Item: item})
		}
	}
	for list := range out {
		slices.SortFunc(out[list], Dated.Compare)
		out[list] = out[list][:min(len(out[list]), n)]
	}
	return out, nil
}

// rows reads the rows of the kind's Focus lists (ids): on PostgreSQL, for a kind with a RowScan,
// one constant statement sent natively and scanned without reflection, as a single item's read
// (Service.get); through GORM otherwise.
func (fs *focusSource[Row]) rows(ctx context.Context, visible clause.Expr, day Day, n int) ([]Row, error) {
	ids, args := fs.ids(visible, day, n)
	var rows []Row
	if sc := fs.s.shape.Scan; sc != nil {
		sql := fs.selects.Of(ids, func(ids string) string {
			return "SELECT " + sc.Many + " FROM " + sc.Table + " WHERE " + sc.Table + ".id IN (" + ids + ")"
		})
		ok, err := db.Query(ctx, fs.s.db, sql, args, func(r db.RowScanner) error {
			row, err := sc.Scan(r)
			rows = append(rows, row)
			return err
		})
		if ok {
			return rows, err
		}
	}
	err := fs.s.db.WithContext(ctx).Where(fs.f.Table+".id IN ("+ids+")", args...).Find(&rows).Error
	return rows, err
}

// ids is a subquery of the ids of the kind's items in the Focus lists of day, at most n per list
// (the first in the list's order), among the notebooks of visible; with its arguments.
//
// On PostgreSQL each list is read notebook by notebook: a LATERAL join takes, for each visible
// notebook, its first n entries in the list's range from the list's index (FocusIndexes), an
// index-only range scan, and the first n of those are the list's. "notebook_id IN (...) ORDER BY
// date" over the whole table cannot be served by an index sorted within each notebook: the
// planner would read every visible item in the range and sort them (every overdue follow-up,
// for example). SQLite has no LATERAL; there each visible notebook's range of the index is read
// and sorted.
func (fs *focusSource[Row]) ids(visible clause.Expr, day Day, n int) (string, []any) {
	columns := fs.f.columns()
	text := fs.texts.Of(visible.SQL+"|"+strconv.Itoa(n), func(string) string {
		t, limit := fs.f.Table, " LIMIT "+strconv.Itoa(n)
		var b strings.Builder
		for i, c := range columns {
			col := t + "." + c.name
			cond := fs.f.listed(t) + " AND " + col + " < ?"
			if c.bothEnds {
				cond = fs.f.listed(t) + " AND " + col + " >= ? AND " + col + " < ?"
			}
			if i > 0 {
				b.WriteString(" UNION ALL ")
			}
			b.WriteString("SELECT id FROM (")
			if db.IsPostgres(fs.s.db) {
				b.WriteString("SELECT page.id FROM (" + visible.SQL + ") AS nb CROSS JOIN LATERAL (SELECT " + t + ".id, " + col +
					" AS at FROM " + t + " WHERE " + t + ".notebook_id = nb.id AND " + cond + " ORDER BY " + col + ", " + t + ".id" +
					limit + ") AS page ORDER BY page.at, page.id" + limit)
			} else {
				b.WriteString("SELECT " + t + ".id FROM " + t + " WHERE " + t + ".notebook_id IN (" + visible.SQL + ") AND " + cond +
					" ORDER BY " + col + ", " + t + ".id" + limit)
			}
			b.WriteString(") AS l" + strconv.Itoa(i))
		}
		return b.String()
	})
	var args []any
	for _, c := range columns {
		args = append(args, visible.Vars...)
		if c.bothEnds {
			args = append(args, day.Start.UTC())
		}
		args = append(args, day.End.UTC())
	}
	return text, args
}
