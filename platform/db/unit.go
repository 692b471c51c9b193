package db

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// A Unit is a request whose writes must commit together with something the request does after
// them: an idempotent request's stored response (platform/idempotency) is written in the same
// transaction as the write it describes, but the response exists only once the handler has
// rendered it, after the service's transaction would have committed.
//
// So the transaction helper defers to the unit. While ctx carries a Unit (WithUnit), Transaction
// does not open and commit a transaction of its own: the first call begins the unit's
// transaction, every call runs its function in it, and the unit's owner commits it after the
// response is known (Commit), or rolls it back (Rollback). Every write path already goes through
// Transaction (audit entries, snapshots and tags ride in its tx), so none can leave a unit out;
// and a write statement sent outside the unit's transaction while the unit is open fails (see
// guardUnitWrites), so a path that wrote without Transaction is found by the first test that
// sends it an Idempotency-Key.
//
// A request with a unit reads after its write through the unit's transaction too: what it wrote
// is not committed yet, so another connection would not see it (and on PostgreSQL would need a
// second pool connection while this one is held). The item flows read an item's tags inside the
// write's transaction for that reason.
type Unit struct {
	tx          *gorm.DB
	err         error    // the first error a function returned: the unit can only roll back
	afterCommit []func() // run after a successful Commit
}

type unitKey struct{}

// WithUnit returns a context whose writes join one transaction, and that Unit.
func WithUnit(ctx context.Context) (context.Context, *Unit) {
	u := &Unit{}
	return context.WithValue(ctx, unitKey{}, u), u
}

func unitFrom(ctx context.Context) *Unit {
	if ctx == nil {
		return nil
	}
	u, _ := ctx.Value(unitKey{}).(*Unit)
	return u
}

// errUnitFailed refuses a Transaction after an earlier one of the same unit failed.
var errUnitFailed = errors.New("db: an earlier write of this request failed; its transaction can only roll back")

// join runs fn in the unit's transaction, begun on gdb at the first call.
func (u *Unit) join(ctx context.Context, gdb *gorm.DB, fn func(tx *gorm.DB) error) error {
	if u.err != nil {
		return fmt.Errorf("%w: %w", errUnitFailed, u.err)
	}
	if u.tx == nil {
		tx := gdb.WithContext(ctx).Begin()
		if tx.Error != nil {
			return tx.Error
		}
		u.tx = tx
	}
	if err := fn(u.tx); err != nil {
		u.err = err
		return err
	}
	return nil
}

// Began reports whether a write joined the unit (its transaction is open).
func (u *Unit) Began() bool { return u.tx != nil }

// Tx is the unit's open transaction (nil before the first write).
func (u *Unit) Tx() *gorm.DB { return u.tx }

// Failed reports whether a function run in the unit returned an error.
func (u *Unit) Failed() bool { return u.err != nil }

// Commit commits the unit's transaction, if one began, and then runs the AfterCommit functions.
func (u *Unit) Commit() error {
	if u.err != nil {
		return u.err
	}
	if u.tx != nil {
		if err := u.tx.Commit().Error; err != nil {
			u.err = err
			return err
		}
		u.tx = nil
	}
	for _, fn := range u.afterCommit {
		fn()
	}
	u.afterCommit = nil
	return nil
}

// Rollback rolls the unit's transaction back, if one is open; the AfterCommit functions never run.
func (u *Unit) Rollback() {
	if u.tx != nil {
		u.tx.Rollback()
		u.tx = nil
	}
	u.afterCommit = nil
	if u.err == nil {
		u.err = errors.New("db: rolled back")
	}
}

// AfterCommit runs fn once the writes made with ctx are committed: at once without a unit (the
// caller's Transaction has returned), after the unit's Commit with one. For effects outside the
// database that must not happen for a write that is rolled back (dropping a cache entry).
func AfterCommit(ctx context.Context, fn func()) {
	if u := unitFrom(ctx); u != nil {
		u.afterCommit = append(u.afterCommit, fn)
		return
	}
	fn()
}

// errWriteOutsideUnit is what a write statement sent outside its request's unit gets.
var errWriteOutsideUnit = errors.New("db: a write outside the request's transaction (use db.Transaction): an Idempotency-Key request must write in one transaction")

// guardUnitWrites makes a create, update or delete fail when its context carries a Unit but the
// statement does not run in the unit's transaction: such a write would commit on its own, and a
// retried request would repeat it.
func guardUnitWrites(gdb *gorm.DB) error {
	check := func(stmt *gorm.DB) {
		u := unitFrom(stmt.Statement.Context)
		if u == nil {
			return
		}
		if u.tx == nil || stmt.Statement.ConnPool != u.tx.Statement.ConnPool {
			_ = stmt.AddError(errWriteOutsideUnit)
		}
	}
	// Before GORM's own begin_transaction: a refused write must not even begin (on SQLite that
	// BEGIN IMMEDIATE would wait for the unit's own write lock).
	cb := gdb.Callback()
	if err := cb.Create().Before("gorm:begin_transaction").Register("folio:unit_create", check); err != nil {
		return err
	}
	if err := cb.Update().Before("gorm:begin_transaction").Register("folio:unit_update", check); err != nil {
		return err
	}
	if err := cb.Delete().Before("gorm:begin_transaction").Register("folio:unit_delete", check); err != nil {
		return err
	}
	return cb.Raw().Before("gorm:raw").Register("folio:unit_raw", check)
}

// Atomically runs fn with a context whose writes commit together or not at all: every
// Transaction that fn's calls open joins one transaction (a Unit), committed when fn returns nil
// and rolled back when it fails. For a use case made of many writes that are each a transaction of
// their own when done alone (an import creates notebooks, notes and tasks through their services,
// each with its audit entry and events). When ctx already carries a Unit (an idempotent request),
// fn joins it and the unit's owner commits.
func Atomically(ctx context.Context, fn func(ctx context.Context) error) error {
	if unitFrom(ctx) != nil {
		return fn(ctx)
	}
	ctx, u := WithUnit(ctx)
	if err := fn(ctx); err != nil {
		u.Rollback()
		return err
	}
	return u.Commit()
}
