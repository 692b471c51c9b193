package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"go.uber.org/fx"

	"folio/app/export"
	"folio/modules/accounts"
	"folio/platform/auth"
)

type exportCmd struct {
	Email string `required:"" help:"The account whose notebooks, notes and tasks are exported (everything it can read)."`
	Out   string `required:"" type:"path" predictor:"file" help:"The ZIP file to write; it appears only once complete."`
}

// Run writes the account's export (as GET /export gives it to the account's unrestricted key) to
// a temporary file beside Out and renames it when complete, so Out is never half written. It
// prints the file's path.
func (c *exportCmd) Run(e *runEnv) error {
	var (
		acc *accounts.Service
		exp *export.Service
	)
	return e.exec(func(ctx context.Context) error {
		u, err := acc.UserByEmail(ctx, c.Email)
		if err != nil {
			return err
		}
		tmp, err := os.CreateTemp(filepath.Dir(c.Out), ".folio-export-*.zip")
		if err != nil {
			return err
		}
		defer os.Remove(tmp.Name()) // after the rename, there is nothing left to remove
		// The operator reads as the account itself would with an unrestricted read key.
		p := &auth.Principal{UserID: u.ID, Scope: auth.ScopeRead}
		if err := exp.Write(ctx, p, tmp); err != nil {
			tmp.Close()
			return fmt.Errorf("export: %w", err)
		}
		if err := tmp.Close(); err != nil {
			return err
		}
		if err := os.Rename(tmp.Name(), c.Out); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, c.Out)
		return nil
	}, fx.Populate(&acc, &exp))
}
