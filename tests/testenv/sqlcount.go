package testenv

import (
	"context"
	"sync/atomic"

	"gorm.io/gorm"

	"folio/platform/background"
	"folio/platform/db"
)

// SQLCost is what a piece of work cost the database in reading statements (SELECT through
// Find/First/Take/Scan/Count/Row/Raw).
type SQLCost struct {
	// Reads counts the statements sent to the database. A subquery embedded in a statement is not
	// counted on its own: it travels in the same round trip.
	Reads int64
	// Callbacks counts GORM's query callbacks, which also run once for each subquery GORM renders
	// into a statement (on a DryRun session that sends nothing).
	Callbacks int64
}

// SQLCounter counts the reading statements of one *gorm.DB (every session derived from it).
type SQLCounter struct{ reads, callbacks atomic.Int64 }

// CountSQL registers the counting callbacks on gdb; call it once per *gorm.DB.
func CountSQL(gdb *gorm.DB) *SQLCounter {
	c := new(SQLCounter)
	inc := func(db *gorm.DB) {
		if background.Is(db.Statement.Context) {
			return // a housekeeping loop's statement, sent whenever its timer fires
		}
		c.callbacks.Add(1)
		if !db.DryRun {
			c.reads.Add(1)
		}
	}
	_ = gdb.Callback().Query().After("gorm:query").Register("testenv:sql_count_query", inc)
	_ = gdb.Callback().Row().After("gorm:row").Register("testenv:sql_count_row", inc)
	_ = gdb.Callback().Raw().After("gorm:raw").Register("testenv:sql_count_raw", inc)
	// The hot reads sent natively (db.Query) bypass the callbacks.
	_ = db.ObserveNative(gdb, func(ctx context.Context, _ string, _ []any) func(error) {
		if !background.Is(ctx) {
			c.callbacks.Add(1)
			c.reads.Add(1)
		}
		return nil
	})
	return c
}

// Cost returns what fn cost.
func (c *SQLCounter) Cost(fn func()) SQLCost {
	reads, callbacks := c.reads.Load(), c.callbacks.Load()
	fn()
	return SQLCost{Reads: c.reads.Load() - reads, Callbacks: c.callbacks.Load() - callbacks}
}

// Reads returns how many statements fn sent to the database.
func (c *SQLCounter) Reads(fn func()) int64 { return c.Cost(fn).Reads }
