package document

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"gorm.io/gorm"

	"folio/platform"
	"folio/platform/background"
	"folio/platform/db"
)

// Columns names one stored document of a table for the re-render: its tree's column, beside
// which the Written columns are <tree>_markdown and <tree>_codec. A module joins them to the
// "documents" value group (AsColumns). Table, Tree and Version are written into SQL as they are:
// constants only.
type Columns struct {
	Table string // "notes"
	Tree  string // "content": its text in content_markdown and content_codec
	// Version, when not empty, is the row's write counter ("version"): a text is written only on
	// the row as it was read (a write meanwhile wrote its own, current text). Empty for rows whose
	// tree never changes once written (a version's snapshot).
	Version string
}

// AsColumns joins c to the "documents" value group the re-render walks.
func AsColumns(c Columns) any {
	return fx.Annotate(func() Columns { return c }, fx.ResultTags(`group:"documents"`))
}

// RerenderBatch is how many rows one step of the re-render reads and writes, in one transaction.
const RerenderBatch = 500

// RerenderIdle is how long the re-render waits before it walks the tables again once they are
// all current: rows an instance still running an older codec wrote meanwhile (a rolling
// deploy) are read from their tree until then.
const RerenderIdle = time.Hour

// rerenderLock is the PostgreSQL advisory lock a re-render step holds (pg_try_advisory_xact_lock):
// of several instances, one writes at a time and the others wait for their next turn. The ASCII
// bytes of "folioren" read as a big-endian int64.
const rerenderLock int64 = 0x666f6c696f72656e

// Rerender writes the stored text of every document whose text is older than Codec (or was
// never written: rows older than the columns). It runs in every instance, in the background,
// from the start: the server serves meanwhile, reading such rows from their tree (Read). The
// work is in the rows themselves (their codec column), so a restarted server goes on where it
// stopped, walking past the rows already written. Each step reads RerenderBatch rows by primary
// key and writes their texts in one transaction, each only if the row is as it was read.
type Rerender struct {
	db      *gorm.DB
	cols    []Columns
	log     *zap.Logger
	batch   int // RerenderBatch; smaller in tests
	written atomic.Int64
	pending atomic.Bool
}

// RerenderParams are the re-render's dependencies.
type RerenderParams struct {
	fx.In
	Loops   *background.Loops
	DB      *gorm.DB
	Columns []Columns `group:"documents"`
	Logger  *zap.Logger
	// Migrated: the loop starts after the migrations have added the columns.
	Migrated platform.Migrated `optional:"true"`
}

// NewRerender starts the re-render loop; the fx stop hook ends it and waits for it.
func NewRerender(p RerenderParams) *Rerender {
	r := &Rerender{db: p.DB, cols: p.Columns, log: p.Logger.Named("rerender"), batch: RerenderBatch}
	r.pending.Store(true)
	p.Loops.Go(r.loop)
	return r
}

// Written is how many texts this process's re-render has written.
func (r *Rerender) Written() int64 { return r.written.Load() }

// Pending reports whether the re-render has not yet found every table current since this
// process started.
func (r *Rerender) Pending() bool { return r.pending.Load() }

func (r *Rerender) loop(ctx context.Context) {
	for {
		if err := r.All(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			r.log.Warn("could not re-render stored texts; trying again in a minute", zap.Error(err))
			if !sleep(ctx, time.Minute) {
				return
			}
			continue
		}
		r.pending.Store(false)
		if !sleep(ctx, RerenderIdle) {
			return
		}
	}
}

// sleep waits d, or less when ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// All walks every registered document once and writes the texts that are not current.
func (r *Rerender) All(ctx context.Context) error {
	for _, c := range r.cols {
		start := time.Now()
		n, err := r.walk(ctx, c, -1)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", c.Table, c.Tree, err)
		}
		if n > 0 {
			r.log.Info("stored texts written", zap.String("table", c.Table), zap.String("document", c.Tree),
				zap.Int64("rows", n), zap.Duration("took", time.Since(start)))
		}
	}
	return nil
}

// walk runs steps over c's table from its first row, at most steps of them (-1: until the table
// is done), and says how many texts it wrote.
func (r *Rerender) walk(ctx context.Context, c Columns, steps int) (int64, error) {
	var n int64
	after := ""
	for ; steps != 0; steps-- {
		wrote, last, err := r.step(ctx, c, after)
		if err != nil {
			return n, err
		}
		n += int64(wrote)
		if last == "" {
			break
		}
		after = last
	}
	return n, nil
}

// stale is a row whose text is not current, as one step read it.
type stale struct {
	id      string
	tree    []byte
	version int64
	text    string
}

// step reads the next r.batch rows after the id after whose text is not current, and
// writes their texts. last is the last id read ("" when there was none: the table is done).
func (r *Rerender) step(ctx context.Context, c Columns, after string) (wrote int, last string, err error) {
	prefix := c.Tree + "_"
	version := "0"
	if c.Version != "" {
		version = c.Version
	}
	rows, err := r.db.WithContext(ctx).Raw(fmt.Sprintf("SELECT id, %s, %s FROM %s WHERE id > ? AND %scodec < ? ORDER BY id LIMIT %d",
		c.Tree, version, c.Table, prefix, r.batch), after, Codec).Rows()
	if err != nil {
		return 0, "", err
	}
	var batch []stale
	for rows.Next() {
		var s stale
		if err := rows.Scan(&s.id, &s.tree, &s.version); err != nil {
			rows.Close()
			return 0, "", err
		}
		batch = append(batch, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, "", err
	}
	if len(batch) == 0 {
		return 0, "", nil
	}
	for i := range batch {
		text, err := Render(batch[i].tree)
		if err != nil {
			return 0, "", fmt.Errorf("row %s: %w", batch[i].id, err)
		}
		batch[i].text, batch[i].tree = text, nil
	}
	last = batch[len(batch)-1].id
	err = r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if db.IsPostgres(tx) {
			var mine bool
			if err := tx.Raw("SELECT pg_try_advisory_xact_lock(?)", rerenderLock).Scan(&mine).Error; err != nil {
				return err
			}
			if !mine {
				return errBusy
			}
		}
		n, err := writeTexts(tx, c, batch)
		wrote = n
		return err
	})
	if err == errBusy {
		// Another instance is writing: this one waits its turn and reads the same rows again.
		if !sleep(ctx, time.Second) {
			return 0, "", ctx.Err()
		}
		return 0, after, nil
	}
	if err != nil {
		return 0, "", err
	}
	r.written.Add(int64(wrote))
	return wrote, last, nil
}

var errBusy = fmt.Errorf("another instance is re-rendering")

// writeTexts writes the batch's texts, each on its row if the row is still as it was read (its
// text not current, its version unchanged). PostgreSQL: one UPDATE from a VALUES list; SQLite: one
// UPDATE per row.
func writeTexts(tx *gorm.DB, c Columns, batch []stale) (int, error) {
	prefix := c.Tree + "_"
	guard := ""
	if c.Version != "" {
		guard = fmt.Sprintf(" AND t.%s = v.ver", c.Version)
	}
	if db.IsPostgres(tx) {
		args := make([]any, 0, 3*len(batch)+2)
		args = append(args, Codec)
		for _, s := range batch {
			args = append(args, s.id, s.text, s.version)
		}
		args = append(args, Codec)
		res := tx.Exec(fmt.Sprintf("UPDATE %s AS t SET %smarkdown = v.md, %scodec = ? FROM (VALUES %s) AS v(id, md, ver)"+
			" WHERE t.id = v.id AND t.%scodec < ?%s", c.Table, prefix, prefix, pgValueRows(len(batch)), prefix, guard), args...)
		return int(res.RowsAffected), res.Error
	}
	sqliteGuard := strings.ReplaceAll(strings.ReplaceAll(guard, "t.", ""), "v.ver", "?")
	n := 0
	for _, s := range batch {
		args := []any{s.text, Codec, s.id, Codec}
		if c.Version != "" {
			args = append(args, s.version)
		}
		res := tx.Exec(fmt.Sprintf("UPDATE %s SET %smarkdown = ?, %scodec = ? WHERE id = ? AND %scodec < ?%s",
			c.Table, prefix, prefix, prefix, sqliteGuard), args...)
		if res.Error != nil {
			return n, res.Error
		}
		n += int(res.RowsAffected)
	}
	return n, nil
}

// pgValueRows is the VALUES list of n (id, text, version) rows, typed for PostgreSQL.
func pgValueRows(n int) string {
	row := "(?::text, ?::text, ?::bigint)"
	return row + strings.Repeat(", "+row, n-1)
}
