package db

import (
	"context"
	"database/sql"
	"sync"

	"gorm.io/gorm"
)

// Native statements inside a write's transaction (issue 35). A create sends about twelve
// statements in its transaction (the note, its search text, its tags' four, the audit entry, the
// event, the item slot ...); through GORM's Exec and database/sql each cost folio's Go more than
// the same statement sent with pgx, which is how the reads go (native.go). A transaction holds its
// connection inside a *sql.Tx, out of the native path's reach, so Transaction begins it on a
// connection it took itself (beginOnConn) and remembers which: a native statement (Query, Read,
// Exec) sent with that transaction's *gorm.DB goes over the pgx connection under it, inside the
// transaction, exactly as the *sql.Tx would send it (the same session, the same values, which
// pgx's database/sql driver passes to pgx unconverted). Only Transaction's own transactions are
// known so: a Unit's (idempotent requests) and GORM's Begin take GORM's path, as before.

// txConns maps each open transaction Transaction began on PostgreSQL to its connection.
var txConns sync.Map // *sql.Tx → *sql.Conn

// txConn is the connection under tx when Transaction began it, nil otherwise.
func txConn(tx *sql.Tx) *sql.Conn {
	if c, ok := txConns.Load(tx); ok {
		return c.(*sql.Conn)
	}
	return nil
}

// beginOnConn runs fn in a transaction that GORM begins on a pool connection taken here, known
// to the native path while fn runs. Not PostgreSQL: GORM's own Transaction.
func beginOnConn(ctx context.Context, gdb *gorm.DB, fn func(tx *gorm.DB) error) error {
	pool, ok := gdb.Statement.ConnPool.(*sql.DB)
	if !ok || !IsPostgres(gdb) {
		return gdb.WithContext(ctx).Transaction(fn)
	}
	conn, err := pool.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	onConn := gdb.WithContext(ctx) // a session: its statement is a copy, so the pool is not changed
	onConn.Statement.ConnPool = conn
	return onConn.Transaction(func(tx *gorm.DB) error {
		if t, ok := tx.Statement.ConnPool.(*sql.Tx); ok {
			txConns.Store(t, conn)
			defer txConns.Delete(t)
		}
		return fn(tx)
	})
}

type nativeTxKey struct{}

// NativeTx is the transaction a native statement was sent in, as its observers are given it in
// their context (the *sql.Tx that GORM's statements of the same transaction carry as their
// Statement.ConnPool); nil outside one.
func NativeTx(ctx context.Context) gorm.ConnPool {
	if t, ok := ctx.Value(nativeTxKey{}).(*sql.Tx); ok {
		return t
	}
	return nil
}

// Exec sends a write statement (placeholders ?, as Query) with args: natively inside a
// transaction Transaction began on PostgreSQL, through GORM's Exec anywhere else (outside a
// transaction, so that the Unit's guard sees every write sent outside one). It returns the number
// of rows affected.
func Exec(ctx context.Context, gdb *gorm.DB, text string, args ...any) (int64, error) {
	if _, inTx := gdb.Statement.ConnPool.(*sql.Tx); inTx {
		var n int64
		ok, err := withNative(ctx, gdb, func(c native) (err error) {
			n, err = c.exec(ctx, numbered(text), args)
			return err
		})
		if ok {
			return n, err
		}
	}
	res := gdb.WithContext(ctx).Exec(text, args...)
	return res.RowsAffected, res.Error
}

// exec sends sql as it is (placeholders $n) and returns the rows it affected; the log and the
// observers see it as each's. Its error is translated as GORM translates its own (Open sets
// TranslateError): a unique violation is gorm.ErrDuplicatedKey on either path.
func (n *native) exec(ctx context.Context, sql string, args []any) (affected int64, err error) {
	err = n.observe(ctx, sql, args, func(ctx context.Context) error {
		tag, err := n.conn.Exec(ctx, sql, args...)
		affected = tag.RowsAffected()
		return err
	})
	if t, ok := n.gdb.Dialector.(gorm.ErrorTranslator); ok && err != nil && n.gdb.Config.TranslateError {
		err = t.Translate(err)
	}
	return affected, err
}
