package observability

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"gorm.io/gorm"
)

// traceGORM makes each statement GORM runs on gdb (create, query, update, delete, row, raw) a
// client span, opened by a callback before GORM's own and ended by one after it, once the SQL is
// built and sent. It stands in for gorm.io/plugin/opentelemetry, whose tracing package imports
// GORM's MySQL and ClickHouse drivers (to read a server address from their DSNs), which folio
// never uses but whose code and start-up state every folio process then carried (see docs/performance.md,
// Performance: Memory).
//
// The span is named by the operation and table ("select notes") when GORM knows the table,
// "gorm.<Operation>" otherwise, and carries the attributes the plugin set: db.system.name,
// db.query.text (GORM's SQL with its placeholders, never the values), db.operation.name,
// db.collection.name and db.rows_affected. Not finding a row is not an error.
func traceGORM(gdb *gorm.DB, tracer trace.Tracer) error {
	system := dbSystemName(gdb.Dialector.Name())
	cb := gdb.Callback()
	for _, op := range []struct {
		name          string
		before, after gormRegistrar
	}{
		{"Create", cb.Create().Before("gorm:create"), cb.Create().After("gorm:create")},
		{"Query", cb.Query().Before("gorm:query"), cb.Query().After("gorm:query")},
		{"Update", cb.Update().Before("gorm:update"), cb.Update().After("gorm:update")},
		{"Delete", cb.Delete().Before("gorm:delete"), cb.Delete().After("gorm:delete")},
		{"Row", cb.Row().Before("gorm:row"), cb.Row().After("gorm:row")},
		{"Raw", cb.Raw().Before("gorm:raw"), cb.Raw().After("gorm:raw")},
	} {
		spanName := "gorm." + op.name
		begin := func(stmt *gorm.DB) {
			parent := stmt.Statement.Context
			ctx, _ := tracer.Start(parent, spanName, trace.WithSpanKind(trace.SpanKindClient))
			stmt.Statement.Context = gormSpanContext{Context: ctx, parent: parent}
		}
		end := func(stmt *gorm.DB) { endGORMSpan(stmt, system) }
		key := "folio:trace_" + strings.ToLower(op.name)
		if err := op.before.Register(key+"_begin", begin); err != nil {
			return err
		}
		if err := op.after.Register(key+"_end", end); err != nil {
			return err
		}
	}
	return nil
}

// gormRegistrar is where a callback goes in GORM's chain (its type is unexported).
type gormRegistrar interface {
	Register(name string, fn func(*gorm.DB)) error
}

// gormSpanContext is a statement's context while its span is open: the span's context, and the
// context the statement had before, which it gets back when the span ends (a *gorm.DB session
// reused for the next statement must not make it a child of this one).
type gormSpanContext struct {
	context.Context
	parent context.Context
}

// endGORMSpan ends the span begun for stmt, with its SQL and error, and restores its context.
func endGORMSpan(stmt *gorm.DB, system string) {
	ctx, ok := stmt.Statement.Context.(gormSpanContext)
	if !ok {
		return
	}
	stmt.Statement.Context = ctx.parent
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		span.End()
		return
	}
	query := stmt.Statement.SQL.String()
	operation := sqlOperation(query)
	span.SetAttributes(attribute.String("db.system.name", system), attribute.String("db.query.text", query),
		attribute.String("db.operation.name", operation))
	if table := stmt.Statement.Table; table != "" {
		span.SetName(operation + " " + table)
		span.SetAttributes(attribute.String("db.collection.name", table))
	}
	if stmt.Statement.RowsAffected >= 0 {
		span.SetAttributes(attribute.Int64("db.rows_affected", stmt.Statement.RowsAffected))
	}
	err := stmt.Error
	if errors.Is(err, gorm.ErrRecordNotFound) || errors.Is(err, sql.ErrNoRows) || errors.Is(err, io.EOF) {
		err = nil
	}
	endDBSpan(span, err)
}

// sqlOperation is the statement's first word in lower case ("select", "insert"), "" for none.
func sqlOperation(query string) string {
	first, _, _ := strings.Cut(strings.TrimLeft(query, " \t\r\n;("), " ")
	return strings.ToLower(first)
}

// dbSystemName is the OpenTelemetry db.system.name of a GORM dialector's name.
func dbSystemName(dialector string) string {
	if dialector == "postgres" {
		return "postgresql"
	}
	return dialector // "sqlite"
}
