package db_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"folio/platform/db"
)

// insertText is an embedded column pair with defaults, as document.Written.
type insertText struct {
	Markdown string `gorm:"not null;default:''"`
	Codec    int16  `gorm:"not null;default:0"`
}

// insertRow has the kinds of columns the item rows have: a string key, nullable and plain times,
// a JSON document, an embedded prefixed pair with defaults, and a version whose default is 1.
type insertRow struct {
	ID        string `gorm:"primaryKey;size:24"`
	Archived  bool   `gorm:"not null"`
	DueAt     *time.Time
	CreatedAt time.Time
	UpdatedAt time.Time  `gorm:"autoUpdateTime:false"`
	Version   int64      `gorm:"not null;default:1"`
	Body      db.JSON    `gorm:"not null"`
	Text      insertText `gorm:"embedded;embeddedPrefix:text_"`
}

// hookedRow has a BeforeCreate hook: Insert leaves it to GORM's Create, which runs it.
type hookedRow struct {
	ID   string `gorm:"primaryKey"`
	Note string
}

func (h *hookedRow) BeforeCreate(*gorm.DB) error { h.Note = "hooked"; return nil }

// TestInsertWritesAsCreate: db.Insert sends, inside a transaction db.Transaction began on
// PostgreSQL, one native statement whose text is GORM's Create's, and leaves the same row in the
// table and in the struct as Create does (defaults put in for zero fields); a duplicate key is
// gorm.ErrDuplicatedKey as with Create. Elsewhere (SQLite, outside a transaction), and for a
// model with a hook or an automatic time left zero, it is Create itself.
func TestInsertWritesAsCreate(t *testing.T) {
	ctx := context.Background()
	due := time.Date(2026, 12, 1, 9, 30, 0, 123456000, time.UTC)
	now := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	row := func(id string, version int64, text insertText, dueAt *time.Time) *insertRow {
		return &insertRow{ID: id, Archived: strings.EqualFold(id, "b"), DueAt: dueAt, CreatedAt: now, UpdatedAt: now, Version: version,
			Body: db.JSON(`{"k":[1,2]}`), Text: text}
	}
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			gdb := openEmpty(t, kind)
			if err := gdb.Migrator().CreateTable(&insertRow{}, &hookedRow{}); err != nil {
				t.Fatal(err)
			}
			var (
				mu   sync.Mutex
				sent []string
			)
			if err := db.ObserveNative(gdb, func(_ context.Context, sql string, _ []any) func(error) {
				mu.Lock()
				defer mu.Unlock()
				sent = append(sent, sql)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			natives := func() []string {
				mu.Lock()
				defer mu.Unlock()
				out := sent
				sent = nil
				return out
			}
			dryText := gdb.Session(&gorm.Session{DryRun: true}).Create(&insertRow{}).Statement.SQL.String()

			// Pairs: one row by Insert, its twin (the same values, another key) by Create.
			cases := []struct {
				name     string
				in, twin *insertRow
			}{
				{"every field set", row("a", 3, insertText{"# a", 7}, &due), row("A", 3, insertText{"# a", 7}, &due)},
				{"defaults for zero fields", row("b", 0, insertText{}, nil), row("B", 0, insertText{}, nil)},
			}
			for _, c := range cases {
				err := db.Transaction(ctx, gdb, func(tx *gorm.DB) error {
					if err := db.Insert(ctx, tx, c.in); err != nil {
						return err
					}
					return tx.Create(c.twin).Error
				})
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				got := natives()
				want := []string{dryText}
				if kind == "sqlite" {
					want = nil
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: native statements %q, want %q", c.name, got, want)
				}
				twin := *c.twin
				twin.ID = c.in.ID
				if !reflect.DeepEqual(*c.in, twin) {
					t.Fatalf("%s: Insert left %+v, Create %+v", c.name, *c.in, *c.twin)
				}
				var stored, storedTwin insertRow
				if err := gdb.First(&stored, "id = ?", c.in.ID).Error; err != nil {
					t.Fatal(err)
				}
				if err := gdb.First(&storedTwin, "id = ?", c.twin.ID).Error; err != nil {
					t.Fatal(err)
				}
				storedTwin.ID = stored.ID
				if !reflect.DeepEqual(stored, storedTwin) {
					t.Fatalf("%s: Insert stored %+v, Create %+v", c.name, stored, storedTwin)
				}
			}

			// A duplicate key fails alike, and rolls the transaction back.
			err := db.Transaction(ctx, gdb, func(tx *gorm.DB) error {
				return db.Insert(ctx, tx, row("a", 1, insertText{}, nil))
			})
			if !errors.Is(err, gorm.ErrDuplicatedKey) {
				t.Fatalf("a duplicate key: %v, want gorm.ErrDuplicatedKey", err)
			}
			natives()

			// Outside a transaction, and for a hooked model, it is GORM's Create (the hook runs).
			if err := db.Insert(ctx, gdb, row("c", 1, insertText{}, nil)); err != nil {
				t.Fatal(err)
			}
			h := &hookedRow{ID: "h"}
			if err := db.Transaction(ctx, gdb, func(tx *gorm.DB) error { return db.Insert(ctx, tx, h) }); err != nil {
				t.Fatal(err)
			}
			if h.Note != "hooked" {
				t.Fatal("the hook did not run")
			}
			// An automatic time left zero: GORM's clock sets it.
			z := row("z", 1, insertText{}, nil)
			z.CreatedAt = time.Time{}
			if err := db.Transaction(ctx, gdb, func(tx *gorm.DB) error { return db.Insert(ctx, tx, z) }); err != nil {
				t.Fatal(err)
			}
			if z.CreatedAt.IsZero() {
				t.Fatal("CreatedAt left zero")
			}
			if got := natives(); len(got) != 0 {
				t.Fatalf("native statements %q where GORM's Create was due", got)
			}
		})
	}
}
