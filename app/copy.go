package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"go.uber.org/fx"
	"gorm.io/gorm"

	"folio/modules/webhooks"
	"folio/platform/config"
	"folio/platform/db"
)

// Copy is `folio copy` (CONTRACT.md section 24): the whole folio database at the URL from copied
// into the empty database at to, SQLite or PostgreSQL either way (postgres://..., or
// sqlite:///absolute/path.db). In order:
//
//  1. the source is opened read-only and read in one transaction (a consistent snapshot, even of a
//     database still in use); its schema must be this folio's (all of its migrations, no other);
//  2. the target must be empty (no row in any table but migration records); it is migrated with
//     this folio's migrations, without starting anything on it;
//  3. every table but the migration records is copied in the order of its foreign keys, in batches,
//     with a progress line on progress; River's delivery jobs through River's drivers
//     (webhooks.CopyQueue); PostgreSQL's sequences are set past the copied ids; all in one
//     transaction of the target, so a failed copy leaves it empty;
//  4. each table's row count and checksum are compared between source and target and written to
//     out; a difference is an error.
//
// API keys, sessions and passwords are rows like the others: their hashes are copied, so every
// credential works on the copy. The search index is copied too (on SQLite its full-text table
// follows by triggers).
func Copy(ctx context.Context, base config.Config, from, to string, out, progress io.Writer) error {
	start := time.Now()
	fromOpts, err := databaseOptions(from)
	if err != nil {
		return fmt.Errorf("--from %w", err)
	}
	toOpts, err := databaseOptions(to)
	if err != nil {
		return fmt.Errorf("--to %w", err)
	}
	if fromOpts.URL == toOpts.URL && fromOpts.SQLitePath == toOpts.SQLitePath {
		return errors.New("--from and --to name the same database")
	}

	// 1. The source, read-only, in one transaction.
	srcDB, srcD, err := db.OpenReadOnly(fromOpts)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	defer srcDB.Close()
	src, err := srcDB.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: snapshot(srcD)})
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	defer src.Rollback() //nolint:errcheck // read-only: nothing to keep
	srcTables, err := db.Tables(ctx, src, srcD)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	if _, ok := srcTables[migrationsTable]; !ok {
		return errors.New("source: not a folio database (it has no migrations table)")
	}

	// The target's graph: its database and this folio's migrations, nothing started.
	cfg := base
	cfg.DatabaseURL, cfg.SQLitePath = toOpts.URL, toOpts.SQLitePath
	var target struct {
		gdb  *gorm.DB
		sets []db.Migrations
	}
	a := New(fx.Replace(cfg), fx.Populate(&target.gdb), fx.Invoke(func(p struct {
		fx.In
		Sets []db.Migrations `group:"migrations"`
	}) {
		target.sets = p.Sets
	}))
	if err := a.Err(); err != nil {
		return fmt.Errorf("target: %w", err)
	}
	dstDB, err := target.gdb.DB()
	if err != nil {
		return err
	}
	defer dstDB.Close()
	dstD := db.Dialect{Postgres: db.IsPostgres(target.gdb)}
	if err := sameSchema(ctx, src, target.sets); err != nil {
		return err
	}

	// 2. The target: empty, then migrated.
	if err := refuseNonEmpty(ctx, dstDB, dstD); err != nil {
		return err
	}
	fmt.Fprintln(progress, "folio copy: migrating the target")
	if err := db.Migrate(target.gdb.WithContext(ctx), target.sets); err != nil {
		return fmt.Errorf("target: migrate: %w", err)
	}
	if err := refuseNonEmpty(ctx, dstDB, dstD); err != nil {
		return err
	}
	dstTables, err := db.Tables(ctx, dstDB, dstD)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	plan, err := copyPlan(srcTables, dstTables)
	if err != nil {
		return err
	}

	// 3. Every row, in one transaction of the target.
	tx, err := dstDB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	var copiedRows int64
	for _, t := range plan {
		total, err := db.CountRows(ctx, src, t.Name)
		if err != nil {
			return fmt.Errorf("source: %w", err)
		}
		began, last := time.Now(), time.Now()
		n, err := db.CopyRows(ctx, src, srcD, tx, dstD, t.Name, t.Columns, func(done int64) {
			if time.Since(last) >= time.Second {
				fmt.Fprintf(progress, "folio copy: %s: %d of %d rows\n", t.Name, done, total)
				last = time.Now()
			}
		})
		if err != nil {
			return fmt.Errorf("copy %s: %w", t.Name, err)
		}
		copiedRows += n
		fmt.Fprintf(progress, "folio copy: %s: %d rows in %s\n", t.Name, n, time.Since(began).Round(time.Millisecond))
	}
	jobs, err := webhooks.CopyQueue(ctx, src, srcD, tx, dstD)
	if err != nil {
		return fmt.Errorf("copy the delivery queue: %w", err)
	}
	copiedRows += jobs
	fmt.Fprintf(progress, "folio copy: river_job: %d delivery jobs\n", jobs)
	if err := db.ResetSequences(ctx, tx, dstD, plan); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("target: commit: %w", err)
	}
	if dstD.Postgres {
		if _, err := dstDB.ExecContext(ctx, "ANALYZE"); err != nil {
			return fmt.Errorf("target: analyze: %w", err)
		}
	}
	took := time.Since(start)

	// 4. Count and checksum, table by table.
	differ, err := compare(ctx, out, src, srcD, dstDB, dstD, plan)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%d rows in %s (%.0f rows/s)\n", copiedRows, took.Round(time.Millisecond), float64(copiedRows)/took.Seconds())
	if len(differ) > 0 {
		return fmt.Errorf("copy: the target differs from the source in %s (see the table above)", strings.Join(differ, ", "))
	}
	return nil
}

// migrationsTable is where gormigrate records the migrations applied.
const migrationsTable = "migrations"

// databaseOptions reads a URL of --from or --to.
func databaseOptions(u string) (db.Options, error) {
	pg, path, err := config.DatabaseAt(u)
	if err != nil {
		return db.Options{}, err
	}
	return db.Options{URL: pg, SQLitePath: path}, nil
}

// snapshot is the isolation that makes one transaction a consistent snapshot: PostgreSQL's
// repeatable read; SQLite's transactions are snapshots (WAL) already.
func snapshot(d db.Dialect) sql.IsolationLevel {
	if d.Postgres {
		return sql.LevelRepeatableRead
	}
	return sql.LevelDefault
}

// sameSchema checks that the source has exactly this folio's migrations.
func sameSchema(ctx context.Context, src db.Querier, sets []db.Migrations) error {
	have, err := db.Strings(ctx, src, "SELECT id FROM "+migrationsTable)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	var want []string
	for _, set := range sets {
		for _, m := range set {
			want = append(want, m.ID)
		}
	}
	var missing, extra []string
	for _, id := range want {
		if !slices.Contains(have, id) {
			missing = append(missing, id)
		}
	}
	for _, id := range have {
		if !slices.Contains(want, id) {
			extra = append(extra, id)
		}
	}
	switch {
	case len(extra) > 0:
		return fmt.Errorf("source: its schema is newer than this folio's (migration %s): copy with the folio that wrote it", extra[0])
	case len(missing) > 0:
		return fmt.Errorf("source: its schema is older than this folio's (migration %s is not applied): start this folio on it once, or run folio migrate with FOLIO_DATABASE_URL naming it, then copy", missing[0])
	}
	return nil
}

// refuseNonEmpty refuses a target that holds a row in any table but the records of migrations
// (folio's and River's) and River's runtime state: a copy never merges into data.
func refuseNonEmpty(ctx context.Context, q db.Querier, d db.Dialect) error {
	tables, err := db.Tables(ctx, q, d)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(tables)) {
		if name == migrationsTable || (webhooks.QueueTables(name) && name != "river_job") {
			continue
		}
		n, err := db.CountRows(ctx, q, name)
		if err != nil {
			return fmt.Errorf("target: %w", err)
		}
		if n > 0 {
			return fmt.Errorf("target: the database is not empty (table %s has %d rows); copy into a new, empty database", name, n)
		}
	}
	return nil
}

// copyPlan is the tables to copy, in the order of their foreign keys: every table of the target
// but the migration records and River's (CopyQueue), each with the columns both sides have, of the
// kind both sides agree on. A table that only one side has means the schemas differ.
func copyPlan(src, dst map[string]db.Table) ([]db.Table, error) {
	var tables []db.Table
	for name, t := range dst {
		if name == migrationsTable || webhooks.QueueTables(name) {
			continue
		}
		s, ok := src[name]
		if !ok {
			return nil, fmt.Errorf("the source has no table %s, which this folio has", name)
		}
		var cols []db.Column
		for _, c := range t.Columns {
			if sc, ok := s.Column(c.Name); ok {
				c.Kind = db.MergeKind(c.Kind, sc.Kind)
				cols = append(cols, c)
			}
		}
		t.Columns = cols
		tables = append(tables, t)
	}
	for name := range src {
		if _, ok := dst[name]; !ok && name != migrationsTable && !webhooks.QueueTables(name) {
			return nil, fmt.Errorf("the source has a table %s that this folio does not know", name)
		}
	}
	return db.InDependencyOrder(tables)
}

// compare writes each table's rows and checksum on both sides, and the queue's, and returns the
// tables that differ.
func compare(ctx context.Context, out io.Writer, src *sql.Tx, srcD db.Dialect, dst *sql.DB, dstD db.Dialect, plan []db.Table) ([]string, error) {
	check, err := dst.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: snapshot(dstD)})
	if err != nil {
		return nil, err
	}
	defer check.Rollback() //nolint:errcheck // read-only
	type result struct {
		name     string
		from, to db.Checksum
	}
	var results []result
	for _, t := range plan {
		from, err := db.SumRows(ctx, src, srcD, t.Name, t.Columns)
		if err != nil {
			return nil, fmt.Errorf("source: %w", err)
		}
		to, err := db.SumRows(ctx, check, dstD, t.Name, t.Columns)
		if err != nil {
			return nil, fmt.Errorf("target: %w", err)
		}
		results = append(results, result{t.Name, from, to})
	}
	from, err := webhooks.SumQueue(ctx, src, srcD)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	to, err := webhooks.SumQueue(ctx, check, dstD)
	if err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	results = append(results, result{"river_job", from, to})
	sort.Slice(results, func(i, j int) bool { return results[i].name < results[j].name })
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TABLE\tSOURCE ROWS\tTARGET ROWS\tCHECKSUM\t")
	var differ []string
	for _, r := range results {
		verdict := "same " + r.to.String()[:16]
		if r.from.Rows != r.to.Rows || r.from.String() != r.to.String() {
			verdict = "DIFFERENT " + r.from.String()[:16] + " / " + r.to.String()[:16]
			differ = append(differ, r.name)
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\t\n", r.name, r.from.Rows, r.to.Rows, verdict)
	}
	return differ, w.Flush()
}
