package main

import (
	"context"
	"encoding/json"
	"os"

	"go.uber.org/fx"

	"folio/modules/accounts"
	"folio/modules/imports"
	"folio/platform/auth"
)

type importCmd struct {
	Email    string `required:"" help:"The account the notebooks, notes and tasks are imported into."`
	Notebook string `placeholder:"ID" help:"Import everything into this notebook of the account (default: a new notebook per folder of the ZIP)."`
	File     string `arg:"" type:"existingfile" predictor:"file" help:"The ZIP of Markdown files: a folio export, or another tool's Markdown folders."`
}

// Run imports the ZIP as POST /import does for the account's unrestricted read+write key, and
// prints the same answer: what was created, and every file changed or skipped, with why.
func (c *importCmd) Run(e *runEnv) error {
	var (
		acc *accounts.Service
		imp *imports.Service
	)
	return e.exec(func(ctx context.Context) error {
		u, err := acc.UserByEmail(ctx, c.Email)
		if err != nil {
			return err
		}
		f, err := os.Open(c.File)
		if err != nil {
			return err
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return err
		}
		p := &auth.Principal{UserID: u.ID, Scope: auth.ScopeReadWrite}
		res, err := imp.Import(ctx, p, f, info.Size(), c.Notebook)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(res.Answer())
	}, fx.Populate(&acc, &imp))
}
