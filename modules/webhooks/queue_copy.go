package webhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivershared/uniquestates"
	"github.com/riverqueue/river/rivertype"

	"folio/platform/db"
)

// The delivery queue between databases (`folio copy`): River's jobs are rows of its own schema,
// which differs between PostgreSQL (an enum, arrays, jsonb, bit(8)) and SQLite (text, JSON in
// blobs): they are read and written through River's own drivers, every field kept (state,
// attempts and their errors, schedule, arguments) but the job's id, which the target's sequence
// gives. A delivery waiting for its next attempt waits on the copy for the same time. River's other
// tables are its runtime state (the elected leader, the queues a client saw, notifications) and
// its migrations, which the target's own migration wrote.

// QueueTables are River's tables: the copy moves river_job through CopyQueue and leaves the rest.
func QueueTables(table string) bool { return strings.HasPrefix(table, "river_") }

// queueExecutor is River's executor on a transaction of either database.
func queueExecutor(tx *sql.Tx, d db.Dialect) riverdriver.ExecutorTx {
	if d.Postgres {
		return riverdatabasesql.New(nil).UnwrapExecutor(tx)
	}
	return riversqlite.New(nil).UnwrapExecutor(tx)
}

// queueBatch is how many jobs one read and one insert of the copy take.
const queueBatch = 500

// eachJob calls fn with River's jobs in from, a batch at a time, in id order.
func eachJob(ctx context.Context, from *sql.Tx, d db.Dialect, fn func([]*rivertype.JobRow) error) error {
	src := queueExecutor(from, d)
	var after int64
	for {
		jobs, err := src.JobList(ctx, &riverdriver.JobListParams{Max: queueBatch, WhereClause: "id > @after_id",
			NamedArgs: map[string]any{"after_id": after}, OrderByClause: "id ASC"})
		if err != nil {
			return fmt.Errorf("read River's jobs: %w", err)
		}
		if len(jobs) == 0 {
			return nil
		}
		if err := fn(jobs); err != nil {
			return err
		}
		after = jobs[len(jobs)-1].ID
	}
}

// CopyQueue copies every job of River's queue from the transaction from (dialect fromD) into the
// transaction to (toD) and returns how many.
func CopyQueue(ctx context.Context, from *sql.Tx, fromD db.Dialect, to *sql.Tx, toD db.Dialect) (int64, error) {
	dst := queueExecutor(to, toD)
	var n int64
	err := eachJob(ctx, from, fromD, func(jobs []*rivertype.JobRow) error {
		// One at a time: River's JobInsertFullMany leaves a job's errors and attempted_by out on
		// PostgreSQL, JobInsertFull keeps them.
		for _, j := range jobs {
			p, err := insertParams(j, toD)
			if err != nil {
				return err
			}
			if _, err := dst.JobInsertFull(ctx, p); err != nil {
				return fmt.Errorf("write River's jobs: %w", err)
			}
			n++
		}
		return nil
	})
	return n, err
}

// insertParams is a job as River inserts it whole: times to the microsecond on PostgreSQL.
func insertParams(j *rivertype.JobRow, to db.Dialect) (*riverdriver.JobInsertFullParams, error) {
	at := func(t time.Time) *time.Time {
		t = t.UTC()
		if to.Postgres {
			t = t.Truncate(time.Microsecond)
		}
		return &t
	}
	atPtr := func(t *time.Time) *time.Time {
		if t == nil {
			return nil
		}
		return at(*t)
	}
	errs := make([][]byte, len(j.Errors))
	for i, e := range j.Errors {
		b, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		errs[i] = b
	}
	return &riverdriver.JobInsertFullParams{
		Attempt: j.Attempt, AttemptedAt: atPtr(j.AttemptedAt), AttemptedBy: j.AttemptedBy, CreatedAt: at(j.CreatedAt),
		EncodedArgs: j.EncodedArgs, Errors: errs, FinalizedAt: atPtr(j.FinalizedAt), Kind: j.Kind, MaxAttempts: j.MaxAttempts,
		Metadata: j.Metadata, Priority: j.Priority, Queue: j.Queue, ScheduledAt: at(j.ScheduledAt), State: j.State, Tags: j.Tags,
		UniqueKey: j.UniqueKey, UniqueStates: uniquestates.UniqueStatesToBitmask(j.UniqueStates),
	}, nil
}

// SumQueue is the checksum of River's jobs in tx, ids aside, comparable across the databases.
func SumQueue(ctx context.Context, tx *sql.Tx, d db.Dialect) (db.Checksum, error) {
	var c db.Checksum
	err := eachJob(ctx, tx, d, func(jobs []*rivertype.JobRow) error {
		for _, j := range jobs {
			errs, err := json.Marshal(j.Errors)
			if err != nil {
				return err
			}
			fields := []struct {
				v any
				k db.Kind
			}{
				{j.Kind, db.KindText}, {string(j.State), db.KindText}, {int64(j.Attempt), db.KindInt}, {int64(j.MaxAttempts), db.KindInt},
				{int64(j.Priority), db.KindInt}, {j.Queue, db.KindText}, {j.ScheduledAt, db.KindTime}, {j.CreatedAt, db.KindTime},
				{timeOrNil(j.AttemptedAt), db.KindTime}, {timeOrNil(j.FinalizedAt), db.KindTime}, {j.EncodedArgs, db.KindJSON},
				{j.Metadata, db.KindJSON}, {errs, db.KindJSON}, {strings.Join(j.AttemptedBy, "\x00"), db.KindText},
				{strings.Join(j.Tags, "\x00"), db.KindText}, {j.UniqueKey, db.KindBytes},
				{strconv.Itoa(int(uniquestates.UniqueStatesToBitmask(j.UniqueStates))), db.KindText},
			}
			vals := make([][]byte, len(fields))
			for i, f := range fields {
				v, err := db.Canonical(f.v, f.k)
				if err != nil {
					return err
				}
				vals[i] = v
			}
			c.Add(vals...)
		}
		return nil
	})
	return c, err
}

func timeOrNil(t *time.Time) any {
	if t == nil {
		return nil
	}
	return *t
}
