// Command folio is the folio service and its operator commands:
//
//	folio [serve]                      start the API (the default)
//	folio migrate                      apply the database migrations and exit
//	folio user create --email E --name N [--password P]
//	folio key create --email E --name N --scope 1|2|3 [--workspace ID] [--notebook ID]
//	folio key list --email E
//	folio key revoke --prefix P
//	folio key rotate --prefix P
//	folio healthcheck                  exit 0 when the server on FOLIO_HTTP_ADDR is ready, else 1
//	folio version                      version, commit and build time (also --version)
//
// Configuration comes from FOLIO_* environment variables only (see README.md). Logs go to stderr;
// stdout carries only a command's result, so scripts can capture it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"go.uber.org/fx"

	"folio/app"
	"folio/modules/accounts"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/httpx"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) {
			fmt.Fprintln(os.Stderr, "folio:", ae.Message)
		} else {
			fmt.Fprintln(os.Stderr, "folio:", err)
		}
		os.Exit(1)
	}
}

const usage = `usage:
  folio [serve]
  folio migrate
  folio user create --email E --name N [--password P]
  folio key create --email E --name N --scope 1|2|3 [--workspace ID] [--notebook ID]
  folio key list --email E
  folio key revoke --prefix P
  folio key rotate --prefix P
  folio healthcheck
  folio version`

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] == "serve" {
		app.Serve().Run()
		return nil
	}
	ctx := context.Background()
	switch {
	case args[0] == "migrate":
		return app.Exec(ctx, func(context.Context) error { return nil })
	case len(args) >= 2 && args[0] == "user" && args[1] == "create":
		return userCreate(ctx, args[2:], stdout)
	case len(args) >= 2 && args[0] == "key":
		return keyCommand(ctx, args[1], args[2:], stdout)
	case args[0] == "healthcheck":
		return healthcheck(ctx)
	case args[0] == "version" || args[0] == "--version":
		fmt.Fprintln(stdout, version())
		return nil
	case args[0] == "help" || args[0] == "-h" || args[0] == "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

// withAccounts runs fn with the accounts service of a migrated, server-less application.
func withAccounts(ctx context.Context, fn func(ctx context.Context, acc *accounts.Service) error) error {
	var acc *accounts.Service
	return app.Exec(ctx, func(ctx context.Context) error { return fn(ctx, acc) }, fx.Populate(&acc))
}

func userCreate(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("user create", flag.ContinueOnError)
	email := fs.String("email", "", "email address (required)")
	name := fs.String("name", "", "display name (required)")
	password := fs.String("password", "", "password for the settings UI (optional, at least 8 characters)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *email == "" || *name == "" {
		return errors.New("user create needs --email and --name")
	}
	return withAccounts(ctx, func(ctx context.Context, acc *accounts.Service) error {
		u, err := acc.CreateUser(ctx, *email, *name, *password)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, u.ID)
		return nil
	})
}

func keyCommand(ctx context.Context, verb string, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("key "+verb, flag.ContinueOnError)
	email := fs.String("email", "", "the key owner's email address")
	name := fs.String("name", "", "a name for the key")
	scope := fs.Int("scope", 0, "1 read, 2 write, 3 read+write")
	workspace := fs.String("workspace", "", "restrict the key to this workspace id")
	notebook := fs.String("notebook", "", "restrict the key to this notebook id")
	prefix := fs.String("prefix", "", "the key's prefix (8 characters, or svc_live_ and 8 characters)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch verb {
	case "create":
		if *email == "" || *name == "" || *scope == 0 {
			return errors.New("key create needs --email, --name and --scope")
		}
		return withAccounts(ctx, func(ctx context.Context, acc *accounts.Service) error {
			u, err := acc.UserByEmail(ctx, *email)
			if err != nil {
				return err
			}
			in := accounts.NewKey{UserID: u.ID, Name: *name, Scope: *scope, WorkspaceID: optional(*workspace), NotebookID: optional(*notebook)}
			raw, _, err := acc.CreateKey(ctx, in)
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, raw)
			return nil
		})
	case "list":
		if *email == "" {
			return errors.New("key list needs --email")
		}
		return withAccounts(ctx, func(ctx context.Context, acc *accounts.Service) error {
			u, err := acc.UserByEmail(ctx, *email)
			if err != nil {
				return err
			}
			keys, err := acc.Keys(ctx, u.ID)
			if err != nil {
				return err
			}
			printKeys(stdout, keys)
			return nil
		})
	case "revoke", "rotate":
		if *prefix == "" {
			return fmt.Errorf("key %s needs --prefix", verb)
		}
		return withAccounts(ctx, func(ctx context.Context, acc *accounts.Service) error {
			if verb == "revoke" {
				_, err := acc.RevokeKey(ctx, *prefix)
				return err
			}
			raw, _, err := acc.RotateKey(ctx, *prefix)
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, raw)
			return nil
		})
	}
	return fmt.Errorf("unknown key command %q\n%s", verb, usage)
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func printKeys(w io.Writer, keys []accounts.APIKey) {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPREFIX\tNAME\tSCOPE\tRESTRICTION\tCREATED\tLAST USED\tSTATUS")
	for _, k := range keys {
		restriction := "none"
		if k.WorkspaceID != nil {
			restriction = "workspace " + *k.WorkspaceID
		}
		if k.NotebookID != nil {
			restriction = "notebook " + *k.NotebookID
		}
		lastUsed := "never"
		if k.LastUsedAt != nil {
			lastUsed = httpx.Time(*k.LastUsedAt)
		}
		status := "active"
		if k.RevokedAt != nil {
			status = "revoked " + httpx.Time(*k.RevokedAt)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", k.ID, auth.DisplayPrefix(k.Prefix), k.Name, k.Scope, restriction, httpx.Time(k.CreatedAt), lastUsed, status)
	}
	_ = tw.Flush()
}
