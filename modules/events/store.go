package events

import (
	"context"
	"strconv"
	"time"

	"gorm.io/gorm"

	"folio/platform/db"
)

// Store holds every query of the events module.
type Store struct{ db *gorm.DB }

// NewStore returns the events store.
func NewStore(gdb *gorm.DB) *Store { return &Store{db: gdb} }

// sequenceLockKey is the PostgreSQL transaction-level advisory lock that serialises the
// sequencers of every instance ("foliosq"; nothing else may use that key).
const sequenceLockKey int64 = 0x666f6c696f7371

// sequenceBatch bounds one sequencing statement.
const sequenceBatch = 1000

// insertEventsSQL is the start of the statement that writes new events (without their place in
// the feed, which Sequence gives them once committed), followed by db.ValueRows: a constant text
// per count rather than GORM's Create, which reflects over every row (every write of the API
// emits at least one). Nothing reads the new ids back.
const insertEventsSQL = `INSERT INTO "events" ("type","resource_type","resource_id","notebook_id","workspace_id",` +
	`"actor_user_id","api_key_name","api_key_prefix","data","created_at") VALUES `

const insertEventsWidth = 10

func (s *Store) insert(ctx context.Context, tx *gorm.DB, rows []Event) error {
	if len(rows) == 0 {
		return nil
	}
	args := make([]any, 0, insertEventsWidth*len(rows))
	for _, e := range rows {
		args = append(args, e.Type, e.ResourceType, e.ResourceID, e.NotebookID, e.WorkspaceID,
			e.ActorUserID, e.APIKeyName, e.APIKeyPrefix, e.Data, e.CreatedAt)
	}
	_, err := db.Exec(ctx, tx, insertEventsSQL+db.ValueRows(insertEventsWidth, len(rows)), args...)
	return err
}

// hasUnsequenced reports whether a committed event waits for its place in the feed: the cheap
// check a read makes before it sequences.
func (s *Store) hasUnsequenced(ctx context.Context) (bool, error) {
	var ids []int64
	err := s.db.WithContext(ctx).Model(&Event{}).Where("seq IS NULL").Limit(1).Pluck("id", &ids).Error
	return len(ids) > 0, err
}

// sequence gives the committed events without a place in the feed the next places, in the order
// of their row ids, in one transaction that holds the sequencers' lock (on SQLite, every write
// transaction begins with BEGIN IMMEDIATE and so holds the database's write lock). It returns how
// many it placed (at most sequenceBatch).
//
// Why not the row id itself: two transactions take row ids in the order they insert, but commit in
// any order, so a reader that has seen id 11 could later see id 10 appear and would skip it. Seq is
// assigned after commit by one sequencer at a time, so a row that becomes visible always gets a
// larger seq than every row a reader can already have seen.
func (s *Store) sequence(ctx context.Context, placed func(tx *gorm.DB, rows []Event) error) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if db.IsPostgres(tx) {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", sequenceLockKey).Error; err != nil {
				return err
			}
		}
		// Under the lock, these statements' snapshots see every earlier sequencer's commit.
		var last int64
		if err := tx.Model(&Event{}).Select("COALESCE(MAX(seq), 0)").Scan(&last).Error; err != nil {
			return err
		}
		res := tx.Exec(`UPDATE events SET seq = t.rn + ?
			FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM events WHERE seq IS NULL ORDER BY id LIMIT ?) AS t
			WHERE events.id = t.id`, last, sequenceBatch)
		n = res.RowsAffected
		if res.Error != nil || n == 0 || placed == nil {
			return res.Error
		}
		var rows []Event
		if err := tx.Where("seq > ?", last).Order("seq").Find(&rows).Error; err != nil {
			return err
		}
		return placed(tx, rows)
	})
	return n, err
}

// list returns up to limit sequenced events after seq after, oldest first.
//
// visible is one or more visibility rules (an OR): each is read on its own, in seq order from
// its own index, at most limit rows, and the union cut to the first limit; a single OR of them
// could be served by no index in seq order.
func (s *Store) list(ctx context.Context, visible []func(*gorm.DB) *gorm.DB, after int64, types []string, limit int) ([]Event, error) {
	branch := func(v func(*gorm.DB) *gorm.DB) *gorm.DB {
		q := v(s.db.WithContext(ctx).Model(&Event{})).Where("seq > ?", after)
		if len(types) > 0 {
			q = q.Where("type IN ?", types)
		}
		return q.Order("seq").Limit(limit)
	}
	var rows []Event
	if len(visible) == 1 {
		err := branch(visible[0]).Find(&rows).Error
		return rows, err
	}
	sql, args := "SELECT * FROM (", []any{}
	for i, v := range visible {
		if i > 0 {
			sql += " UNION ALL "
		}
		sql += "SELECT * FROM (?) AS b" + strconv.Itoa(i)
		args = append(args, branch(v))
	}
	err := s.db.WithContext(ctx).Raw(sql+") AS e ORDER BY seq LIMIT ?", append(args, limit)...).Scan(&rows).Error
	return rows, err
}

// deleteBefore deletes up to batch sequenced events created before cutoff.
func (s *Store) deleteBefore(ctx context.Context, cutoff time.Time, batch int) (int64, error) {
	sub := s.db.Model(&Event{}).Select("id").Where("created_at < ? AND seq IS NOT NULL", cutoff).Order("id").Limit(batch)
	res := s.db.WithContext(ctx).Where("id IN (?)", sub).Delete(&Event{})
	return res.RowsAffected, res.Error
}
