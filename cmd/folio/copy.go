package main

import "folio/app"

// copyCmd is `folio copy --from URL --to URL` (CONTRACT.md section 24).
type copyCmd struct {
	From string `required:"" placeholder:"URL" help:"The database to copy: postgres://... or sqlite:///absolute/path/to/folio.db. Read only, in one transaction."`
	To   string `required:"" placeholder:"URL" help:"The empty database to copy into (postgres://... or sqlite:///absolute/path); it is migrated first. A database with data is refused."`
}

// Run copies every table, printing progress on stderr and, on stdout, each table's rows and
// checksum on both sides. A difference exits 1.
func (c *copyCmd) Run(e *runEnv) error {
	cfg, err := e.config()
	if err != nil {
		return err
	}
	return app.Copy(e.ctx, cfg, c.From, c.To, e.stdout, e.stderr)
}
