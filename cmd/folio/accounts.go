package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/alecthomas/kong"
	"go.uber.org/fx"

	"folio/modules/accounts"
	"folio/platform/auth"
	"folio/platform/httpx"
)

// withAccounts runs fn with the accounts service of a migrated, server-less application.
func withAccounts(e *runEnv, fn func(ctx context.Context, acc *accounts.Service) error) error {
	var acc *accounts.Service
	return e.exec(func(ctx context.Context) error { return fn(ctx, acc) }, fx.Populate(&acc))
}

// userCmd groups the account commands.
type userCmd struct {
	Create      userCreateCmd      `cmd:"" help:"Create an account; prints its id."`
	SetPassword userSetPasswordCmd `cmd:"" name:"set-password" help:"Set an account's password from the first line of stdin; ends the account's sessions."`
}

type userCreateCmd struct {
	Email    string `required:"" help:"The account's email address."`
	Name     string `required:"" help:"The account's display name."`
	Password string `help:"A password for the settings UI (8 to 256 characters); without one the account cannot sign in until folio user set-password."`
}

// Run creates the account and prints its id.
func (c *userCreateCmd) Run(e *runEnv) error {
	return withAccounts(e, func(ctx context.Context, acc *accounts.Service) error {
		u, err := acc.CreateUser(ctx, c.Email, c.Name, c.Password)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, u.ID)
		return nil
	})
}

type userSetPasswordCmd struct {
	Email string `required:"" help:"The account's email address. The password is read from stdin (its first line), so it never shows in a process list or shell history."`
}

// Run reads the new password from stdin (its first line; a script pipes it) and sets it.
func (c *userSetPasswordCmd) Run(e *runEnv) error {
	line, err := bufio.NewReader(io.LimitReader(e.stdin, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	password := strings.TrimRight(line, "\r\n")
	return withAccounts(e, func(ctx context.Context, acc *accounts.Service) error {
		return acc.SetPassword(ctx, c.Email, password)
	})
}

// keyCmd groups the API key commands.
type keyCmd struct {
	Create keyCreateCmd `cmd:"" help:"Create an API key; prints the raw key, once, as the only line on stdout."`
	List   keyListCmd   `cmd:"" help:"List an account's keys (never their secrets)."`
	Revoke keyRevokeCmd `cmd:"" help:"Revoke a key; it stops working at once (on other instances within FOLIO_KEY_CACHE_TTL)."`
	Rotate keyRotateCmd `cmd:"" help:"Replace a key by a new one with the same name, scope, restriction and expiry; prints the new raw key."`
}

type keyCreateCmd struct {
	Email     string `required:"" help:"The key owner's email address."`
	Name      string `required:"" help:"A name for the key (1 to 100 characters)."`
	Scope     int    `required:"" enum:"1,2,3" help:"What the key may do: 1 read, 2 write, 3 read and write."`
	Workspace string `placeholder:"ID" help:"Restrict the key to this workspace."`
	Notebook  string `placeholder:"ID" help:"Restrict the key to this notebook."`
	Expires   expiry `placeholder:"WHEN" default:"never" help:"When the key stops working: a number of days, hours or minutes from now (90d, 12h, 45m), a date YYYY-MM-DD (at 00:00 UTC), or never (the default)."`
}

// Run creates the key and prints the raw key.
func (c *keyCreateCmd) Run(e *runEnv) error {
	return withAccounts(e, func(ctx context.Context, acc *accounts.Service) error {
		u, err := acc.UserByEmail(ctx, c.Email)
		if err != nil {
			return err
		}
		in := accounts.NewKey{UserID: u.ID, Name: c.Name, Scope: c.Scope, WorkspaceID: optional(c.Workspace), NotebookID: optional(c.Notebook), ExpiresAt: c.Expires.at}
		raw, _, err := acc.CreateKey(ctx, in)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, raw)
		return nil
	})
}

// expiry is the value of --expires (accounts.ParseExpiry's forms); at is nil for never.
type expiry struct{ at *time.Time }

// Decode implements kong.MapperValue: a value that is not an expiry is a usage error naming the
// flag, before anything touches the database.
func (x *expiry) Decode(ctx *kong.DecodeContext) error {
	var s string
	if err := ctx.Scan.PopValueInto("expiry", &s); err != nil {
		return err
	}
	at, err := accounts.ParseExpiry(s, time.Now())
	if err != nil {
		return err
	}
	x.at = at
	return nil
}

type keyListCmd struct {
	Email string `required:"" help:"The owner's email address."`
	JSON  bool   `name:"json" help:"Print a JSON array (id, prefix, name, scope, workspaceId, notebookId, createdAt, lastUsedAt, revokedAt, expiresAt, status; null for what is not set) instead of a table."`
}

// Run prints the user's keys, newest first.
func (c *keyListCmd) Run(e *runEnv) error {
	return withAccounts(e, func(ctx context.Context, acc *accounts.Service) error {
		u, err := acc.UserByEmail(ctx, c.Email)
		if err != nil {
			return err
		}
		keys, err := acc.Keys(ctx, u.ID)
		if err != nil {
			return err
		}
		if c.JSON {
			return printKeysJSON(e.stdout, keys, time.Now())
		}
		printKeys(e.stdout, keys, time.Now())
		return nil
	})
}

type keyRevokeCmd struct {
	Prefix string `required:"" help:"The key's prefix: its 8 characters, or svc_live_ and the 8 characters."`
}

// Run revokes the key.
func (c *keyRevokeCmd) Run(e *runEnv) error {
	return withAccounts(e, func(ctx context.Context, acc *accounts.Service) error {
		_, err := acc.RevokeKey(ctx, c.Prefix)
		return err
	})
}

type keyRotateCmd struct {
	Prefix string `required:"" help:"The key's prefix: its 8 characters, or svc_live_ and the 8 characters."`
}

// Run rotates the key and prints the new raw key.
func (c *keyRotateCmd) Run(e *runEnv) error {
	return withAccounts(e, func(ctx context.Context, acc *accounts.Service) error {
		raw, _, err := acc.RotateKey(ctx, c.Prefix)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, raw)
		return nil
	})
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// keyStatus is "active", "revoked" (rotated keys too) or "expired".
func keyStatus(k accounts.APIKey, now time.Time) string {
	switch {
	case k.RevokedAt != nil:
		return "revoked"
	case k.Expired(now):
		return "expired"
	}
	return "active"
}

func printKeys(w io.Writer, keys []accounts.APIKey, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPREFIX\tNAME\tSCOPE\tRESTRICTION\tCREATED\tLAST USED\tSTATUS\tEXPIRES")
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
		status := keyStatus(k, now)
		if k.RevokedAt != nil {
			status += " " + httpx.Time(*k.RevokedAt)
		}
		expires := "never"
		if k.ExpiresAt != nil {
			expires = httpx.Time(*k.ExpiresAt)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", k.ID, auth.DisplayPrefix(k.Prefix), k.Name, k.Scope, restriction, httpx.Time(k.CreatedAt), lastUsed, status, expires)
	}
	_ = tw.Flush()
}

// keyJSON is a key in `folio key list --json`, named as the API names things.
type keyJSON struct {
	ID          string  `json:"id"`
	Prefix      string  `json:"prefix"`
	Name        string  `json:"name"`
	Scope       int     `json:"scope"`
	WorkspaceID *string `json:"workspaceId"`
	NotebookID  *string `json:"notebookId"`
	CreatedAt   string  `json:"createdAt"`
	LastUsedAt  *string `json:"lastUsedAt"`
	RevokedAt   *string `json:"revokedAt"`
	ExpiresAt   *string `json:"expiresAt"`
	Status      string  `json:"status"`
}

func printKeysJSON(w io.Writer, keys []accounts.APIKey, now time.Time) error {
	out := make([]keyJSON, 0, len(keys))
	for _, k := range keys {
		out = append(out, keyJSON{
			ID: k.ID, Prefix: auth.DisplayPrefix(k.Prefix), Name: k.Name, Scope: k.Scope,
			WorkspaceID: k.WorkspaceID, NotebookID: k.NotebookID, CreatedAt: httpx.Time(k.CreatedAt),
			LastUsedAt: httpx.TimePtr(k.LastUsedAt), RevokedAt: httpx.TimePtr(k.RevokedAt), ExpiresAt: httpx.TimePtr(k.ExpiresAt),
			Status: keyStatus(k, now),
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
