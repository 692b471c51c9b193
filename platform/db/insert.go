package db

import (
	"context"
	"reflect"
	"strings"
	"sync"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"
)

// Insert writes row, a pointer to a model struct, as GORM's Create writes it: the same statement
// and the same values, GORM's defaults put in for zero fields (and set on row) as Create does.
// Inside a transaction Transaction began on PostgreSQL it is sent natively (txnative.go), which
// saves a create GORM's callbacks and database/sql (about a third of folio's Go over the floor's
// per POST /notes, issue 35); anywhere else, and for a model Insert cannot write exactly as
// Create would (hooks, associations, a default the database computes, an automatic time left
// zero), it is GORM's Create.
func Insert(ctx context.Context, tx *gorm.DB, row any) error {
	// The cached statement is the model's own: a Select, Omit or Table on tx is Create's to honour.
	st := tx.Statement
	if _, inTx := st.ConnPool.(*connTx); inTx && len(st.Selects) == 0 && len(st.Omits) == 0 && st.Table == "" {
		if ins := insertFor(tx, row); ins != nil {
			if args, ok := ins.values(ctx, reflect.ValueOf(row).Elem()); ok {
				if sent, err := withNative(ctx, tx, func(c native) error {
					_, err := c.exec(ctx, ins.sql, args)
					return err
				}); sent {
					return err
				}
			}
		}
	}
	return tx.WithContext(ctx).Create(row).Error
}

// inserter is a model's INSERT: GORM's text, and the fields whose values it takes, in order.
type inserter struct {
	sql    string
	fields []*schema.Field
}

// inserters caches each model type's inserter (nil: Insert leaves the type to GORM's Create).
var inserters sync.Map // reflect.Type → *inserter

// insertFor returns row's inserter, built once per type from a dry run of GORM's Create.
func insertFor(tx *gorm.DB, row any) *inserter {
	t := reflect.TypeOf(row)
	if ins, ok := inserters.Load(t); ok {
		return ins.(*inserter)
	}
	ins := buildInserter(tx, t)
	inserters.Store(t, ins)
	return ins
}

// buildInserter reads the statement GORM's Create sends for a value of t (a dry run on a scratch
// value) and the fields it fills it from, as ConvertToCreateValues picks them. It answers nil for
// a model whose create is more than that one statement with those values.
func buildInserter(tx *gorm.DB, t reflect.Type) *inserter {
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	dry := tx.Session(&gorm.Session{DryRun: true, NewDB: true, SkipHooks: true}).Create(reflect.New(t.Elem()).Interface())
	s := dry.Statement.Schema
	if dry.Error != nil || s == nil || s.BeforeCreate || s.AfterCreate || s.BeforeSave || s.AfterSave ||
		len(s.FieldsWithDefaultDBValue) > 0 || len(s.Relationships.Relations) > 0 {
		return nil
	}
	ins := &inserter{sql: dry.Statement.SQL.String()}
	for _, name := range s.DBNames {
		f := s.FieldsByDBName[name]
		if !f.Creatable || f.AutoIncrement {
			return nil
		}
		ins.fields = append(ins.fields, f)
	}
	// The text must be the plain INSERT of exactly these columns (no RETURNING, no ON CONFLICT).
	if len(dry.Statement.Vars) != len(ins.fields) || !strings.HasPrefix(ins.sql, "INSERT INTO ") || !strings.HasSuffix(ins.sql, ")") {
		return nil
	}
	return ins
}

// values returns the statement's arguments from rv, putting a field's default in for its zero
// value (and on rv) as Create does; false when a zero field would need GORM's clock
// (autoCreateTime), which Insert leaves to Create.
func (ins *inserter) values(ctx context.Context, rv reflect.Value) ([]any, bool) {
	args := make([]any, len(ins.fields))
	for i, f := range ins.fields {
		v, zero := f.ValueOf(ctx, rv)
		if zero {
			switch {
			case f.DefaultValueInterface != nil:
				if err := f.Set(ctx, rv, f.DefaultValueInterface); err != nil {
					return nil, false
				}
				v = f.DefaultValueInterface
			case f.AutoCreateTime > 0 || f.AutoUpdateTime > 0:
				return nil, false
			}
		}
		args[i] = v
	}
	return args, true
}
