package db

import (
	"fmt"
	"sort"

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

// Migrate applies every step not yet applied, in ID order, recording each in the migrations table.
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
	opts := *gormigrate.DefaultOptions
	opts.UseTransaction = true
	return gormigrate.New(gdb, &opts, all).Migrate()
}
