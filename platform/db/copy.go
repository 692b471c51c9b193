package db

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// What `folio copy` needs of a database whatever folio keeps in it: its tables, their columns and
// the order their foreign keys ask for, rows moved in batches, sequences set after, and a checksum
// per table that reads the same on SQLite and PostgreSQL. It names no table of folio's: the app
// decides what to copy (app/copy.go).

// Dialect says which database a connection talks to.
type Dialect struct{ Postgres bool }

// placeholder is the n-th (1-based) parameter of a statement.
func (d Dialect) placeholder(n int) string {
	if d.Postgres {
		return "$" + strconv.Itoa(n)
	}
	return "?"
}

// Quote quotes an identifier (both databases take double quotes).
func Quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// Querier is a transaction or a pool: what the copy reads and writes through.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Kind is how a column's values are compared and written across databases.
type Kind int

// The kinds of column: the types folio's tables use on either database.
const (
	KindText Kind = iota
	KindInt
	KindBool
	KindTime
	KindBytes
	KindJSON
)

// Column is a column of a table.
type Column struct {
	Name     string
	Kind     Kind
	Declared string // the database's own type name
	Serial   bool   // PostgreSQL: its default takes the next value of a sequence
}

// MergeKind is the kind of a column that one database declares as a and the other as b: the more
// particular one (SQLite's 0/1 against PostgreSQL's boolean is a boolean, its TEXT against json is
// JSON).
func MergeKind(a, b Kind) Kind {
	for _, k := range []Kind{KindBool, KindJSON, KindTime, KindBytes, KindInt} {
		if a == k || b == k {
			return k
		}
	}
	return KindText
}

// Table is a table of a database.
type Table struct {
	Name    string
	Columns []Column
	Refers  []string // the tables its foreign keys point to
}

// Column returns the table's column name.
func (t Table) Column(name string) (Column, bool) {
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// Tables reads every table of the database q is connected to: on SQLite every table but SQLite's
// own (sqlite_*) and full-text search tables (virtual tables and their shadow tables, which
// triggers fill); on PostgreSQL the tables of the connection's schema.
func Tables(ctx context.Context, q Querier, d Dialect) (map[string]Table, error) {
	names, err := tableNames(ctx, q, d)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Table, len(names))
	for _, name := range names {
		t := Table{Name: name}
		if t.Columns, err = columns(ctx, q, d, name); err != nil {
			return nil, fmt.Errorf("columns of %s: %w", name, err)
		}
		if t.Refers, err = refers(ctx, q, d, name); err != nil {
			return nil, fmt.Errorf("foreign keys of %s: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}

func tableNames(ctx context.Context, q Querier, d Dialect) ([]string, error) {
	if d.Postgres {
		return Strings(ctx, q, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")
	}
	rows, err := q.QueryContext(ctx, "SELECT name, COALESCE(sql, '') FROM sqlite_master WHERE type = 'table' ORDER BY name")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var all []string
	var virtual []string
	for rows.Next() {
		var name, ddl string
		if err := rows.Scan(&name, &ddl); err != nil {
			return nil, err
		}
		if strings.HasPrefix(strings.ToUpper(ddl), "CREATE VIRTUAL TABLE") {
			virtual = append(virtual, name)
			continue
		}
		if !strings.HasPrefix(name, "sqlite_") {
			all = append(all, name)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(name string) bool {
		return slices.ContainsFunc(virtual, func(v string) bool { return strings.HasPrefix(name, v+"_") })
	}), nil
}

func columns(ctx context.Context, q Querier, d Dialect, table string) ([]Column, error) {
	var out []Column
	if d.Postgres {
		rows, err := q.QueryContext(ctx, `SELECT column_name, udt_name, COALESCE(column_default, ''), is_identity
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, table)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var name, udt, dflt, identity string
			if err := rows.Scan(&name, &udt, &dflt, &identity); err != nil {
				return nil, err
			}
			out = append(out, Column{Name: name, Declared: udt, Kind: kindOf(udt), Serial: identity == "YES" || strings.HasPrefix(dflt, "nextval(")})
		}
		return out, rows.Err()
	}
	rows, err := q.QueryContext(ctx, "SELECT name, type FROM pragma_table_info(?) ORDER BY cid", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, err
		}
		out = append(out, Column{Name: name, Declared: typ, Kind: kindOf(typ)})
	}
	return out, rows.Err()
}

// kindOf reads a declared type: PostgreSQL's udt names, SQLite's declared types as GORM and the
// migrations write them ("numeric" is GORM's boolean on SQLite).
func kindOf(declared string) Kind {
	switch t := strings.ToLower(declared); {
	case t == "bool" || t == "boolean" || t == "numeric":
		return KindBool
	case t == "json" || t == "jsonb":
		return KindJSON
	case strings.HasPrefix(t, "timestamp") || t == "datetime" || t == "date":
		return KindTime
	case t == "bytea" || t == "blob":
		return KindBytes
	case strings.HasPrefix(t, "int") || t == "bigint" || t == "smallint" || t == "integer":
		return KindInt
	}
	return KindText
}

func refers(ctx context.Context, q Querier, d Dialect, table string) ([]string, error) {
	if d.Postgres {
		return Strings(ctx, q, `SELECT DISTINCT cf.relname FROM pg_constraint c JOIN pg_class cr ON cr.oid = c.conrelid
			JOIN pg_class cf ON cf.oid = c.confrelid JOIN pg_namespace n ON n.oid = cr.relnamespace
			WHERE c.contype = 'f' AND cr.relname = $1 AND n.nspname = current_schema()`, table)
	}
	return Strings(ctx, q, `SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)`, table)
}

// Strings reads the one string column of a query's rows.
func Strings(ctx context.Context, q Querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// InDependencyOrder sorts tables so that each comes after those its foreign keys point to (ties
// by name), for inserting without breaking a constraint.
func InDependencyOrder(tables []Table) ([]Table, error) {
	byName := map[string]Table{}
	for _, t := range tables {
		byName[t.Name] = t
	}
	names := make([]string, 0, len(tables))
	for _, t := range tables {
		names = append(names, t.Name)
	}
	sort.Strings(names)
	var out []Table
	state := map[string]int{} // 1: visiting, 2: done
	var visit func(name string) error
	visit = func(name string) error {
		t, ok := byName[name]
		if !ok || state[name] == 2 {
			return nil
		}
		if state[name] == 1 {
			return fmt.Errorf("the foreign keys of %s form a cycle", name)
		}
		state[name] = 1
		refs := slices.Sorted(slices.Values(t.Refers))
		for _, r := range refs {
			if r != name {
				if err := visit(r); err != nil {
					return err
				}
			}
		}
		state[name] = 2
		out = append(out, t)
		return nil
	}
	for _, n := range names {
		if err := visit(n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CountRows counts a table's rows.
func CountRows(ctx context.Context, q Querier, table string) (int64, error) {
	var n int64
	rows, err := q.QueryContext(ctx, "SELECT COUNT(*) FROM "+Quote(table))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	if rows.Next() {
		err = rows.Scan(&n)
	}
	if err == nil {
		err = rows.Err()
	}
	return n, err
}

// selectList is a SELECT of cols that reads each value in a form both databases' values share:
// PostgreSQL's json and jsonb as text (the driver would decode them).
func selectList(d Dialect, cols []Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = Quote(c.Name)
		if d.Postgres && c.Kind == KindJSON {
			parts[i] += "::text"
		}
	}
	return strings.Join(parts, ", ")
}

// tableRows runs fn on every row of cols of table, read with src's dialect.
func tableRows(ctx context.Context, src Querier, d Dialect, table string, cols []Column, fn func(vals []any) error) error {
	rows, err := src.QueryContext(ctx, "SELECT "+selectList(d, cols)+" FROM "+Quote(table))
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := fn(vals); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CopyRows copies cols of every row of table from src (dialect from) to dst (dialect to), in
// INSERTs of many rows, each value written as the target column takes it (a SQLite 0/1 as a
// PostgreSQL boolean, a time in UTC, ...). progress is called after each batch with the rows
// copied so far. It returns how many rows it copied.
func CopyRows(ctx context.Context, src Querier, from Dialect, dst Querier, to Dialect, table string, cols []Column, progress func(int64)) (int64, error) {
	perRow := len(cols)
	batch := max(1, min(500, 30000/perRow)) // under both databases' limits on parameters
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = Quote(c.Name)
	}
	head := "INSERT INTO " + Quote(table) + " (" + strings.Join(names, ", ") + ") VALUES "
	var args []any
	var copied int64
	rowsIn := 0
	flush := func() error {
		if rowsIn == 0 {
			return nil
		}
		var b strings.Builder
		b.WriteString(head)
		n := 0
		for r := range rowsIn {
			if r > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			for i, c := range cols {
				if i > 0 {
					b.WriteString(", ")
				}
				n++
				p := to.placeholder(n)
				if to.Postgres && c.Kind == KindJSON {
					p = "CAST(" + p + " AS TEXT)::" + c.Declared
				}
				b.WriteString(p)
			}
			b.WriteByte(')')
		}
		if _, err := dst.ExecContext(ctx, b.String(), args...); err != nil {
			return fmt.Errorf("insert into %s: %w", table, err)
		}
		copied += int64(rowsIn)
		rowsIn, args = 0, args[:0]
		if progress != nil {
			progress(copied)
		}
		return nil
	}
	err := tableRows(ctx, src, from, table, cols, func(vals []any) error {
		for i, c := range cols {
			v, err := writable(vals[i], c, to)
			if err != nil {
				return fmt.Errorf("%s.%s: %w", table, c.Name, err)
			}
			args = append(args, v)
		}
		rowsIn++
		if rowsIn == batch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return copied, err
	}
	return copied, flush()
}

// writable is a value read from one database as the target's column c takes it.
func writable(v any, c Column, to Dialect) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch c.Kind {
	case KindBool:
		b, err := asBool(v)
		if err != nil {
			return nil, err
		}
		if to.Postgres {
			return b, nil
		}
		if b {
			return int64(1), nil
		}
		return int64(0), nil
	case KindTime:
		t, err := asTime(v)
		if err != nil {
			return nil, err
		}
		if to.Postgres {
			t = t.Truncate(time.Microsecond) // PostgreSQL keeps microseconds (and would round)
		}
		return t, nil
	case KindJSON, KindText:
		if b, ok := v.([]byte); ok {
			return string(b), nil
		}
	}
	return v, nil
}

func asBool(v any) (bool, error) {
	switch b := v.(type) {
	case bool:
		return b, nil
	case int64:
		return b != 0, nil
	case float64:
		return b != 0, nil
	case string:
		return strconv.ParseBool(b)
	case []byte:
		return strconv.ParseBool(string(b))
	}
	return false, fmt.Errorf("a %T is not a boolean", v)
}

// timeLayouts are the forms a time may be read in as text (SQLite keeps times as text; its driver
// parses the ones it knows).
var timeLayouts = []string{"2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02"}

func asTime(v any) (time.Time, error) {
	switch t := v.(type) {
	case time.Time:
		return t.UTC(), nil
	case string:
		for _, l := range timeLayouts {
			if p, err := time.Parse(l, t); err == nil {
				return p.UTC(), nil
			}
		}
		return time.Time{}, fmt.Errorf("%q is not a time", t)
	case []byte:
		return asTime(string(t))
	}
	return time.Time{}, fmt.Errorf("a %T is not a time", v)
}

// ResetSequences sets, on PostgreSQL, the sequence behind each serial or identity column of
// tables past the largest value copied, so that the next row gets the next id. SQLite keeps
// AUTOINCREMENT's counter itself when a row comes with its id.
func ResetSequences(ctx context.Context, q Querier, d Dialect, tables []Table) error {
	if !d.Postgres {
		return nil
	}
	for _, t := range tables {
		for _, c := range t.Columns {
			if !c.Serial {
				continue
			}
			stmt := fmt.Sprintf("SELECT setval(pg_get_serial_sequence($1, $2), COALESCE(MAX(%s), 0) + 1, false) FROM %s", Quote(c.Name), Quote(t.Name))
			if _, err := q.ExecContext(ctx, stmt, t.Name, c.Name); err != nil {
				return fmt.Errorf("sequence of %s.%s: %w", t.Name, c.Name, err)
			}
		}
	}
	return nil
}

// Checksum is an order-free digest of rows: the sum of a hash of each row's values in their
// canonical form (Canonical), so it reads the same whatever order either database returns rows
// in, and on both databases for the same data.
type Checksum struct {
	Rows int64
	sum  [4]uint64
}

// Add adds a row.
func (c *Checksum) Add(values ...[]byte) {
	h := sha256.New()
	for _, v := range values {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(v)))
		h.Write(n[:])
		h.Write(v)
	}
	d := h.Sum(nil)
	for i := range c.sum {
		c.sum[i] += binary.BigEndian.Uint64(d[i*8:])
	}
	c.Rows++
}

// String is the digest, in hexadecimal.
func (c Checksum) String() string {
	var b [32]byte
	for i, v := range c.sum {
		binary.BigEndian.PutUint64(b[i*8:], v)
	}
	return hex.EncodeToString(b[:])
}

// Canonical is a value as both databases agree on it, given its column's kind: NULL apart from
// every value, booleans as t/f, times in UTC to the microsecond, integers in decimal, JSON
// re-encoded (PostgreSQL's jsonb orders keys and spaces its own way), text and bytes as they are.
// Text that is a JSON object or array is re-encoded too: a SQLite database that went through
// PostgreSQL holds jsonb's spelling of a document that a TEXT column declares as text.
func Canonical(v any, k Kind) ([]byte, error) {
	if v == nil {
		return []byte{0}, nil
	}
	switch k {
	case KindBool:
		b, err := asBool(v)
		if err != nil {
			return nil, err
		}
		if b {
			return []byte("t"), nil
		}
		return []byte("f"), nil
	case KindTime:
		t, err := asTime(v)
		if err != nil {
			return nil, err
		}
		return []byte(t.Truncate(time.Microsecond).Format(time.RFC3339Nano)), nil
	}
	var raw []byte
	switch x := v.(type) {
	case []byte:
		raw = x
	case string:
		raw = []byte(x)
	case int64:
		return []byte(strconv.FormatInt(x, 10)), nil
	case float64:
		return []byte(strconv.FormatFloat(x, 'g', -1, 64)), nil
	case bool:
		return Canonical(x, KindBool)
	case time.Time:
		return Canonical(x, KindTime)
	default:
		raw = []byte(fmt.Sprint(x))
	}
	if k == KindJSON || (k == KindText && len(raw) > 0 && (raw[0] == '{' || raw[0] == '[')) {
		if c, ok := canonicalJSON(raw); ok {
			return c, nil
		}
	}
	return append([]byte{1}, raw...), nil
}

// canonicalJSON re-encodes JSON with sorted keys and no spaces; ok is false when raw is not JSON.
func canonicalJSON(raw []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	return append([]byte{2}, out...), true
}

// SumRows is the checksum of cols of every row of table, read with dialect d. Each column's Kind
// says how its values are compared: where two databases declare a column differently, give both
// sides the same kinds (MergeKind).
func SumRows(ctx context.Context, q Querier, d Dialect, table string, cols []Column) (Checksum, error) {
	var c Checksum
	vals := make([][]byte, len(cols))
	err := tableRows(ctx, q, d, table, cols, func(row []any) error {
		for i, col := range cols {
			v, err := Canonical(row[i], col.Kind)
			if err != nil {
				return fmt.Errorf("%s.%s: %w", table, col.Name, err)
			}
			vals[i] = v
		}
		c.Add(vals...)
		return nil
	})
	return c, err
}

// OpenReadOnly opens the database of opts for reading only, as the source of a copy: SQLite's
// file must exist and is opened read-only (mode=ro: SQLite writes nothing to it, not even a
// checkpoint of its journal); PostgreSQL's sessions default to read-only transactions. One
// connection: the copy reads in one transaction.
func OpenReadOnly(opts Options) (*sql.DB, Dialect, error) {
	var (
		sqlDB *sql.DB
		err   error
	)
	if opts.URL != "" {
		url := opts.URL
		if strings.Contains(url, "?") {
			url += "&default_transaction_read_only=on"
		} else {
			url += "?default_transaction_read_only=on"
		}
		sqlDB, err = sql.Open("pgx", url)
	} else {
		if _, statErr := os.Stat(opts.SQLitePath); statErr != nil {
			return nil, Dialect{}, fmt.Errorf("no SQLite database at %s: %w", opts.SQLitePath, statErr)
		}
		sqlDB, err = sql.Open("sqlite", "file:"+opts.SQLitePath+"?mode=ro&_pragma=busy_timeout(10000)")
	}
	if err != nil {
		return nil, Dialect{}, err
	}
	sqlDB.SetMaxOpenConns(1)
	return sqlDB, Dialect{Postgres: opts.URL != ""}, nil
}
