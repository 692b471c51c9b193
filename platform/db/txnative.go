package db

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"
)

// Native statements inside a write's transaction (issue 35). A create sends about twelve
// statements in its transaction (the note, its search text, its tags' four, the audit entry, the
// event, the item slot ...); through GORM's Exec and database/sql each cost folio's Go more than
// the same statement sent with pgx, which is how the reads go (native.go). So Transaction begins
// its transaction itself, on PostgreSQL: it takes a pool connection, opens the transaction with
// pgx on the pgx connection under it (pgx's Begin: the "begin" database/sql's BeginTx would have
// sent through the same driver), and hands fn a *gorm.DB whose connection pool is that
// transaction (connTx). Native statements (Query, Read, Exec, Insert) sent with it go over the
// pgx connection; GORM's own go through the *sql.Conn, the same session; both are inside the
// transaction. COMMIT and ROLLBACK are pgx's. This also spares each write database/sql's
// transaction (its watcher goroutine) and GORM's Begin and Commit. Only Transaction's own
// transactions are so: a Unit's (idempotent requests), GORM's Transaction and Begin (the events
// sequencer's, whose River insert needs a *sql.Tx) keep database/sql's.

// connTx is a transaction Transaction began on a pool connection. To GORM it is a connection
// pool inside a transaction (gorm.TxCommitter, and no BeginTx: a nested Transaction is a
// savepoint, and GORM's per-statement transaction is not opened), whose statements go through
// the *sql.Conn. Rows a callback leaves open would hold the *sql.Conn, and the COMMIT
// with it, until the context ends (database/sql's Tx closed them at its commit): a callback
// closes its rows (db.EachRow, db.Read) before it returns.
type connTx struct {
	conn *sql.Conn
	ctx  context.Context
	tx   pgx.Tx // pgx's transaction on the connection under conn
}

func (t *connTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.conn.ExecContext(ctx, query, args...)
}

func (t *connTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return t.conn.QueryContext(ctx, query, args...)
}

func (t *connTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.conn.QueryRowContext(ctx, query, args...)
}

func (t *connTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return t.conn.PrepareContext(ctx, query)
}

// Commit commits (pgx's: a COMMIT that PostgreSQL answers with ROLLBACK, the transaction having
// failed, is pgx.ErrTxCommitRollback).
func (t *connTx) Commit() error {
	return t.conn.Raw(func(any) error { return t.tx.Commit(t.ctx) })
}

// Rollback rolls back with the transaction's context, as pgx's database/sql driver did: once the
// request is gone the ROLLBACK fails at once, pgx closes the connection, and database/sql drops
// it (the server ends the transaction with the session).
func (t *connTx) Rollback() error {
	return t.conn.Raw(func(any) error { return t.tx.Rollback(t.ctx) })
}

// pgxOf is the pgx connection under a pool connection.
func pgxOf(driverConn any) (*pgx.Conn, error) {
	sc, ok := driverConn.(*stdlib.Conn)
	if !ok {
		return nil, errors.New("db: the PostgreSQL pool's connections are not pgx's")
	}
	return sc.Conn(), nil
}

// beginOnConn runs fn in a transaction it begins on a pool connection (connTx), committed when fn
// returns nil and rolled back when it fails or panics, as GORM's Transaction does. Not
// PostgreSQL: GORM's own Transaction.
func beginOnConn(ctx context.Context, gdb *gorm.DB, fn func(tx *gorm.DB) error) (err error) {
	pool, ok := gdb.Statement.ConnPool.(*sql.DB)
	if !ok || !IsPostgres(gdb) {
		return gdb.WithContext(ctx).Transaction(fn)
	}
	conn, err := pool.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	t := &connTx{conn: conn, ctx: ctx}
	if err := conn.Raw(func(dc any) error {
		pc, err := pgxOf(dc)
		if err == nil {
			t.tx, err = pc.Begin(ctx)
		}
		return err
	}); err != nil {
		return err
	}
	// A connection given back still inside a transaction (a ROLLBACK that failed) is not reused:
	// pgx's ResetSession makes database/sql close it (TestTransactionEnds).
	panicked := true
	defer func() {
		if panicked || err != nil {
			_ = t.Rollback()
		}
	}()
	tx := gdb.Session(&gorm.Session{Context: ctx, NewDB: true})
	tx.Statement.ConnPool = t
	if err = fn(tx); err == nil {
		err = t.Commit()
	}
	panicked = false
	return err
}

type nativeTxKey struct{}

// NativeTx is the transaction a native statement was sent in, as its observers are given it in
// their context (the connection pool that GORM's statements of the same transaction carry as
// their Statement.ConnPool); nil outside one.
func NativeTx(ctx context.Context) gorm.ConnPool {
	if t, ok := ctx.Value(nativeTxKey{}).(*connTx); ok {
		return t
	}
	return nil
}

// Exec sends a write statement (placeholders ?, as Query) with args: natively inside a
// transaction Transaction began on PostgreSQL, through GORM's Exec anywhere else (outside a
// transaction, so that the Unit's guard sees every write sent outside one). It returns the number
// of rows affected.
func Exec(ctx context.Context, gdb *gorm.DB, text string, args ...any) (int64, error) {
	if _, inTx := gdb.Statement.ConnPool.(*connTx); inTx {
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
