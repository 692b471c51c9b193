// Package paginate is the one keyset paginator every list uses.
//
// Order: newest first, (created_at DESC, id DESC); the audit log orders by its integer id alone.
// The cursor is the id of the last item of the previous page. The next page is everything strictly
// after that item's position, found through a subquery on the item's own row, so:
//   - items created between page requests sort before the cursor and never shift later pages;
//   - items archived or deleted between requests simply stop appearing, and a cursor naming an
//     archived or (soft-)deleted item still works, because the cursor is located through the
//     caller's access scope only, not through the list's filters (archived, deleted_at);
//   - a cursor naming no item the caller can reach finds no position and is 400 VALIDATION_ERROR.
//
// One page costs one query; only an empty page with a cursor costs a second, to tell "end of
// list" from "unknown cursor".
package paginate

import (
	"errors"
	"strconv"

	"gorm.io/gorm"

	"folio/platform/apierr"
	"folio/platform/db"
	"folio/platform/ids"
)

// Limits of a page.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// Params are a page request.
type Params struct {
	Limit  int
	Cursor string
}

// Parse validates the raw limit and cursor query values. A limit above MaxLimit is clamped; 0,
// negative or not an integer is 400. The cursor must have the shape of an id (CUID2, or a positive
// integer when numeric is true).
func Parse(limit string, limitPresent bool, cursor string, numeric bool) (Params, error) {
	p := Params{Limit: DefaultLimit, Cursor: cursor}
	if limitPresent {
		n, err := strconv.Atoi(limit)
		if errors.Is(err, strconv.ErrRange) && n > 0 {
			// An integer too large for int is still an integer above the maximum: clamp it.
			n, err = MaxLimit, nil
		}
		if err != nil || n <= 0 {
			return Params{}, apierr.Validation("query parameter \"limit\" must be an integer between 1 and %d", MaxLimit)
		}
		p.Limit = min(n, MaxLimit)
	}
	if cursor != "" {
		ok := ids.Valid(cursor)
		if numeric {
			n, err := strconv.ParseInt(cursor, 10, 64)
			ok = err == nil && n > 0
		}
		if !ok {
			return Params{}, errUnknownCursor
		}
	}
	return p, nil
}

var errUnknownCursor = apierr.Validation("query parameter \"cursor\" names no item of this list")

// Keyset says how a list is ordered.
type Keyset struct {
	// Table qualifies the columns (lists may join other tables).
	Table string
	// ByIDOnly orders by the id alone (the audit log's integer ids); otherwise by created_at, id.
	ByIDOnly bool
}

// Page is the response shape of every list.
type Page[T any] struct {
	Data       []T     `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

// Find loads one page. list is the query with the list's scope and filters; scope is the same
// table with the caller's access scope only (no archived/deleted filters), used to locate the
// cursor. idOf returns a row's id as the cursor string.
func Find[T any](list, scope *gorm.DB, ks Keyset, p Params, idOf func(T) string) ([]T, *string, error) {
	return Fetch(ks.Order(ks.After(list, scope, p.Cursor)), scope, ks, p, idOf)
}

func (ks Keyset) col(c string) string { return ks.Table + "." + c }

// After narrows q to the rows strictly after the cursor item in the keyset order (q unchanged
// when cursor is empty). The cursor's position is read by a subquery on scope (see Find). Lists
// whose query is not a plain filter on the table (a per-notebook LATERAL join, say) apply After
// to the inner query and finish with Fetch.
//
// The condition is a row comparison, (created_at, id) < (position, cursor): both databases use it
// as the start of a range on an index ending in (created_at DESC, id DESC), so a page deep in a
// long list costs what the first page costs. The equivalent "created_at < x OR (created_at = x
// AND id < c)" cannot bound an index scan; it is a filter over every row before the cursor.
func (ks Keyset) After(q, scope *gorm.DB, cursor string) *gorm.DB {
	if cursor == "" {
		return q
	}
	if ks.ByIDOnly {
		pos := scope.Session(&gorm.Session{NewDB: false}).Select(ks.col("id")).Where(ks.col("id")+" = ?", cursor)
		return q.Where(ks.col("id")+" < (?)", pos)
	}
	pos := scope.Session(&gorm.Session{NewDB: false}).Select(ks.col("created_at")).Where(ks.col("id")+" = ?", cursor)
	return q.Where("("+ks.col("created_at")+", "+ks.col("id")+") < ((?), ?)", pos, cursor)
}

// Order sorts q in the keyset order: newest first, ties by id (or by id alone).
func (ks Keyset) Order(q *gorm.DB) *gorm.DB {
	if ks.ByIDOnly {
		return q.Order(ks.col("id") + " DESC")
	}
	return q.Order(ks.col("created_at") + " DESC").Order(ks.col("id") + " DESC")
}

// Fetch loads the page of q, a query already narrowed by After and sorted by Order: up to
// p.Limit rows and the next cursor. An empty page after a cursor costs a second query on scope,
// to tell "end of list" from "unknown cursor" (scope is not used without a cursor; it may be nil).
func Fetch[T any](q, scope *gorm.DB, ks Keyset, p Params, idOf func(T) string) ([]T, *string, error) {
	return FetchScan(q, scope, ks, p, idOf, nil)
}

// FetchScan is Fetch with each row read by scan (in the order of q's selected columns) instead
// of GORM's reflection, which for a page of wide rows costs more than the database's own work;
// a nil scan is Fetch.
func FetchScan[T any](q, scope *gorm.DB, ks Keyset, p Params, idOf func(T) string, scan func(db.RowScanner) (T, error)) ([]T, *string, error) {
	var (
		rows []T
		err  error
	)
	q = q.Limit(p.Limit + 1)
	if scan == nil {
		err = q.Find(&rows).Error
	} else {
		rows, err = scanAll(q, p.Limit+1, scan)
	}
	return finish(rows, err, scope, ks, p, idOf)
}

// Shaped is a page's statement as db.Shapes caches it: the key of its shape, its params, and
// build, which makes it (without Limit) from params or stand-ins for them.
type Shaped struct {
	Shapes *db.Shapes
	DB     *gorm.DB // the database, bound to the request's context
	Key    string   // "" when the statement cannot be cached: it is built on every request
	Params []string
	Build  func(params []string) *gorm.DB
}

// FetchShaped is FetchScan of a statement whose text db.Shapes caches by shape (built once per
// shape, then only sent), natively where it can, through GORM otherwise.
func FetchShaped[T any](sq Shaped, scope *gorm.DB, ks Keyset, p Params, idOf func(T) string, scan func(db.RowScanner) (T, error)) ([]T, *string, error) {
	build := func(params []string) *gorm.DB { return sq.Build(params).Limit(p.Limit + 1) }
	rows, each := collect(p.Limit+1, scan)
	ok, err := sq.Shapes.Query(sq.DB.Statement.Context, sq.DB, sq.Key, sq.Params, build, each)
	if !ok {
		cur, qerr := build(sq.Params).Rows()
		err = db.EachRow(cur, qerr, each)
	}
	return finish(*rows, err, scope, ks, p, idOf)
}

// finish completes a page read with p.Limit+1 rows: the page and its next cursor, or, for an
// empty page after a cursor, errUnknownCursor if the cursor is no item of scope.
func finish[T any](rows []T, err error, scope *gorm.DB, ks Keyset, p Params, idOf func(T) string) ([]T, *string, error) {
	if err != nil {
		return nil, nil, err
	}
	if len(rows) == 0 && p.Cursor != "" {
		var n int64
		if err := scope.Where(ks.col("id")+" = ?", p.Cursor).Count(&n).Error; err != nil {
			return nil, nil, err
		}
		if n == 0 {
			return nil, nil, errUnknownCursor
		}
	}
	if len(rows) > p.Limit {
		rows = rows[:p.Limit]
		next := idOf(rows[len(rows)-1])
		return rows, &next, nil
	}
	if rows == nil {
		rows = []T{}
	}
	return rows, nil, nil
}

// IsUnknownCursor reports whether err is the unknown-cursor error.
func IsUnknownCursor(err error) bool { return errors.Is(err, errUnknownCursor) }

// scanAll reads the rows of q with scan: natively where it can (db.QueryBuilt: GORM builds the
// statement, pgx sends it), through GORM's Rows otherwise.
func scanAll[T any](q *gorm.DB, size int, scan func(db.RowScanner) (T, error)) ([]T, error) {
	rows, each := collect(size, scan)
	err := db.ReadBuilt(q, each)
	return *rows, err
}

// collect is a slice for about size rows and the function that scans each into it.
func collect[T any](size int, scan func(db.RowScanner) (T, error)) (*[]T, func(db.RowScanner) error) {
	rows := make([]T, 0, size)
	return &rows, func(r db.RowScanner) error {
		row, err := scan(r)
		rows = append(rows, row)
		return err
	}
}
