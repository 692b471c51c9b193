package tags

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"gorm.io/gorm"

	"folio/platform/db"
	"folio/platform/markdown"
	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// oldTag and oldItemTag are the tables as migration 202611221100 first created them: lower-cased
// names as the identity key, 200 characters at most.
type oldTag struct {
	ID      string `gorm:"primaryKey;size:24"`
	SpaceID string `gorm:"size:24;not null;uniqueIndex:idx_tags_identity,priority:1"`
	Kind    string `gorm:"size:10;not null;uniqueIndex:idx_tags_identity,priority:2"`
	NameKey string `gorm:"size:200;not null;uniqueIndex:idx_tags_identity,priority:3"`
	Name    string `gorm:"size:200;not null"`
}

func (oldTag) TableName() string { return "tags" }

type oldItemTag struct {
	ItemKind string `gorm:"primaryKey;size:10"`
	ItemID   string `gorm:"primaryKey;size:24"`
	TagID    string `gorm:"primaryKey;size:24;index"`
}

func (oldItemTag) TableName() string { return "item_tags" }

// TestHashedIdentityMigration upgrades tables of the first shape, holding tags, on both databases:
// existing tags keep their ids and are found again by Replace in any casing, names longer than
// the old limit are accepted, and the identity stays unique.
func TestHashedIdentityMigration(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			opts := db.Options{SQLitePath: filepath.Join(t.TempDir(), "tags.db"), MaxOpenConns: 4, MaxIdleConns: 4}
			if kind == "postgres" {
				opts.URL = testenv.PostgresDB(t, func(string) error { return nil })
			}
			gdb, err := db.Open(opts, zap.NewNop())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if sqlDB, err := gdb.DB(); err == nil {
					_ = sqlDB.Close()
				}
			})
			if err := gdb.Migrator().CreateTable(&oldTag{}, &oldItemTag{}); err != nil {
				t.Fatal(err)
			}
			old := []oldTag{
				{ID: "aaaaaaaaaaaaaaaaaaaaaaa1", SpaceID: "space1", Kind: "TAG", NameKey: "budget", Name: "Budget"},
				{ID: "aaaaaaaaaaaaaaaaaaaaaaa2", SpaceID: "space1", Kind: "PERSON", NameKey: "budget", Name: "budget"},
				{ID: "aaaaaaaaaaaaaaaaaaaaaaa3", SpaceID: "space2", Kind: "TAG", NameKey: "budget", Name: "BUDGET"},
				{ID: "aaaaaaaaaaaaaaaaaaaaaaa4", SpaceID: "space1", Kind: "TAG", NameKey: "über", Name: "Über"},
			}
			if err := gdb.Create(&old).Error; err != nil {
				t.Fatal(err)
			}
			if err := gdb.Create(&oldItemTag{ItemKind: "note", ItemID: "note1", TagID: old[0].ID}).Error; err != nil {
				t.Fatal(err)
			}

			steps := migrations()
			if len(steps) != 3 || steps[1].ID != "202611221200_tags_hashed_identity" || steps[2].ID != "202611261100_item_tags_time" {
				t.Fatalf("migration steps %v", steps)
			}
			for _, step := range steps[1:] {
				if err := gdb.Transaction(func(tx *gorm.DB) error { return step.Migrate(tx) }); err != nil {
					t.Fatalf("migrate %s: %v", step.ID, err)
				}
			}
			// The tag-time index replaces the single-column one; the old link keeps a NULL time
			// until the notes and tasks modules stamp it.
			if !gdb.Migrator().HasIndex(&ItemTag{}, "idx_item_tags_tag_time") || gdb.Migrator().HasIndex(&ItemTag{}, "idx_item_tags_tag_id") {
				t.Fatal("after the migration: want idx_item_tags_tag_time and no idx_item_tags_tag_id")
			}

			var rows []Tag
			if err := gdb.Order("id").Find(&rows).Error; err != nil {
				t.Fatal(err)
			}
			for i, r := range rows {
				if r.ID != old[i].ID || r.Name != old[i].Name || r.NameKey != nameKey(old[i].Name) || len(r.NameKey) != 64 {
					t.Fatalf("row %d after the migration: %+v (was %+v)", i, r, old[i])
				}
			}

			svc := NewService(gdb)
			ctx := context.Background()
			long := strings.Repeat("Ä", 3000)
			found := []markdown.Tag{{Sigil: markdown.SigilTag, Name: "BUDGET"}, {Sigil: markdown.SigilTag, Name: "über"}, {Sigil: markdown.SigilPerson, Name: long}}
			if err := gdb.Transaction(func(tx *gorm.DB) error { return svc.Replace(ctx, tx, "space1", "note", "note1", time.Now(), found) }); err != nil {
				t.Fatalf("replace after the migration: %v", err)
			}
			byItem, err := svc.ForItems(ctx, nil, "note", []string{"note1"})
			if err != nil {
				t.Fatal(err)
			}
			got := byItem["note1"]
			if len(got) != 3 || got[0].ID != old[0].ID || got[0].Name != "Budget" || got[1].ID != old[3].ID || got[2].Name != long || got[2].Kind != "PERSON" {
				t.Fatalf("tags of note1 after the migration: %+v", got)
			}
			var count int64
			if err := gdb.Model(&Tag{}).Count(&count).Error; err != nil || count != 5 {
				t.Fatalf("%d tags (%v), want the 4 old ones and the new long one", count, err)
			}
			// The identity is still unique, and the hash leads the index.
			dup := Tag{ID: "bbbbbbbbbbbbbbbbbbbbbbb1", SpaceID: "space1", Kind: "TAG", NameKey: nameKey("budget"), Name: "budget"}
			if err := gdb.Create(&dup).Error; err == nil {
				t.Fatal("a second tag with the identity of an existing one was stored")
			}
			var def string
			if kind == "postgres" {
				err = gdb.Raw("SELECT indexdef FROM pg_indexes WHERE indexname = 'idx_tags_identity'").Scan(&def).Error
			} else {
				err = gdb.Raw("SELECT sql FROM sqlite_master WHERE name = 'idx_tags_identity'").Scan(&def).Error
			}
			if err != nil || !strings.Contains(strings.ReplaceAll(def, `"`, ""), "(name_key, space_id, kind)") {
				t.Fatalf("identity index %q (%v)", def, err)
			}
		})
	}
}
