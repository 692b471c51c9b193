package db

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sort"
	"time"

	"github.com/go-gormigrate/gormigrate/v2"
	"go.uber.org/fx"
	"gorm.io/gorm"
)

// Migrations is what a module contributes to the schema: versioned steps whose IDs sort in the
// order they must run (use a timestamp prefix: "202611221000_accounts_init"). Modules join the
// fx value group "migrations"; the migrator sorts all steps by ID, so value-group order never matters.
type Migrations []*gormigrate.Migration

// AsMigrations annotates a function returning a module's Migrations so that they join the
// "migrations" value group the migrator applies: fx.Provide(db.AsMigrations(migrations)).
func AsMigrations(constructor any) any {
	return fx.Annotate(constructor, fx.ResultTags(`group:"migrations"`))
}

// MigrationLockKey is the PostgreSQL advisory lock (pg_advisory_lock, one bigint key) that
// serialises migration runs across processes: the ASCII bytes of "foliomig" read as a big-endian
// int64. Nothing else in a database folio uses may take this key.
const MigrationLockKey int64 = 0x666f6c696f6d6967

// Migrate applies every step not yet applied, in ID order, recording each in the migrations table.
// All pending steps run in one transaction.
//
// Runs are serialised across processes, so that instances started together on an empty database
// all succeed: the first applies the steps, the others wait and then find them recorded.
// PostgreSQL: a session-level advisory lock (MigrationLockKey) taken on a dedicated connection,
// which also carries the run, and released after it (a process that dies holding it loses its
// session, and the lock with it). Without it, two concurrent CREATE TABLEs of one name fail with
// `duplicate key value violates unique constraint "pg_type_typname_nsp_index"`. SQLite: the run's
// transaction starts with BEGIN IMMEDIATE (the DSN's _txlock=immediate), which takes the
// database's write lock before gormigrate looks at the migrations table; the others wait for it
// up to busy_timeout.
func Migrate(gdb *gorm.DB, sets []Migrations) error {
	var all []*gormigrate.Migration
	seen := map[string]bool{}
	for _, set := range sets {
		for _, m := range set {
			if seen[m.ID] {
				return fmt.Errorf("migration id %q is contributed twice", m.ID)
			}
			seen[m.ID] = true
			all = append(all, m)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	if len(all) == 0 {
		return nil
	}
	run := func(tx *gorm.DB) error {
		opts := *gormigrate.DefaultOptions
		opts.UseTransaction = true
		return gormigrate.New(tx, &opts, all).Migrate()
	}
	if !IsPostgres(gdb) {
		return run(gdb)
	}
	return gdb.Connection(func(conn *gorm.DB) error {
		conn = conn.Session(&gorm.Session{NewDB: true})
		return withAdvisoryLock(conn, MigrationLockKey, func() error { return run(conn) })
	})
}

// withAdvisoryLock runs fn holding PostgreSQL's session-level advisory lock key on conn, which
// must be a dedicated connection (gorm.DB.Connection). Waiting for the lock ends with conn's
// context. If the lock cannot be released, the connection is discarded instead of going back to
// the pool: closing the session releases the lock (fn's work is done, so that is no error).
func withAdvisoryLock(conn *gorm.DB, key int64, fn func() error) error {
	if err := conn.Exec("SELECT pg_advisory_lock(?)", key).Error; err != nil {
		return fmt.Errorf("take the migration lock: %w", err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var unlocked bool
		uerr := conn.WithContext(ctx).Raw("SELECT pg_advisory_unlock(?)", key).Scan(&unlocked).Error
		if uerr == nil && unlocked {
			return
		}
		if c, ok := conn.Statement.ConnPool.(interface{ Raw(func(any) error) error }); ok {
			_ = c.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	return fn()
}
