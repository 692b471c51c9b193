package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"go.uber.org/fx"

	"folio/modules/accounts"
	"folio/modules/webhooks"
	"folio/platform/auth"
	"folio/platform/httpx"
)

// webhookCmd groups the webhook commands (CONTRACT.md section 20): the operator's view of what
// the settings UI shows a user beside the keys.
type webhookCmd struct {
	List   webhookListCmd   `cmd:"" help:"List an account's webhooks: the key (or web session) that owns each, its status (with the reason when disabled) and its last delivery attempt."`
	Delete webhookDeleteCmd `cmd:"" help:"Delete a webhook of any account, by id; it receives nothing more."`
}

// withWebhooks runs fn with the accounts and webhooks services of a migrated, server-less
// application.
func withWebhooks(e *runEnv, fn func(ctx context.Context, acc *accounts.Service, hooks *webhooks.Service) error) error {
	var (
		acc   *accounts.Service
		hooks *webhooks.Service
	)
	return e.exec(func(ctx context.Context) error { return fn(ctx, acc, hooks) }, fx.Populate(&acc, &hooks))
}

type webhookListCmd struct {
	Email string `required:"" help:"The owner's email address."`
	JSON  bool   `name:"json" help:"Print a JSON array (id, url, events, description, createdAt, status, disabledReason, credential, apiKeyName, apiKeyPrefix, lastAttempt {attemptedAt, statusCode, error}; null for what is not set) instead of a table."`
}

// Run prints the user's webhooks, newest first.
func (c *webhookListCmd) Run(e *runEnv) error {
	return withWebhooks(e, func(ctx context.Context, acc *accounts.Service, svc *webhooks.Service) error {
		u, err := acc.UserByEmail(ctx, c.Email)
		if err != nil {
			return err
		}
		views, err := svc.ForUser(ctx, u.ID)
		if err != nil {
			return err
		}
		if c.JSON {
			return printWebhooksJSON(e.stdout, views)
		}
		printWebhooks(e.stdout, views)
		return nil
	})
}

type webhookDeleteCmd struct {
	ID string `required:"" help:"The webhook's id (as folio webhook list shows it)."`
}

// Run deletes the webhook, whichever account it belongs to.
func (c *webhookDeleteCmd) Run(e *runEnv) error {
	return withWebhooks(e, func(ctx context.Context, _ *accounts.Service, svc *webhooks.Service) error {
		err := svc.DeleteForUser(ctx, "", c.ID) // "": the operator, any account's webhook
		if errors.Is(err, webhooks.ErrNotFound) {
			return fmt.Errorf("no webhook has the id %q (folio webhook list --email E shows an account's)", c.ID)
		}
		return err
	})
}

// webhookEvents is the event types a webhook asked for, "all" when it asked for none.
func webhookEvents(v webhooks.View) string {
	if v.Events == "" {
		return "all"
	}
	return v.Events
}

// webhookOwner is the owning key's display prefix, "session" for a web session's, or "key <id>"
// for a key that no longer exists.
func webhookOwner(v webhooks.View) string {
	switch {
	case v.CredentialKind == string(auth.CredentialSession):
		return "session"
	case v.KeyPrefix != nil:
		return *v.KeyPrefix
	case v.CredentialID == "":
		return "unknown (made before webhooks recorded their key)"
	}
	return "key " + v.KeyID
}

// lastAttempt is the newest attempt on one line: its time and status code, or its error.
func lastAttempt(a *webhooks.Attempt) string {
	if a == nil {
		return "none"
	}
	out := httpx.Time(a.AttemptedAt)
	switch {
	case a.StatusCode != nil:
		out += " " + strconv.Itoa(*a.StatusCode)
	case a.Error != nil:
		out += " error: " + strings.Join(strings.Fields(*a.Error), " ")
	}
	return out
}

func printWebhooks(w io.Writer, views []webhooks.View) {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tURL\tEVENTS\tKEY\tSTATUS\tREASON\tLAST ATTEMPT")
	for _, v := range views {
		reason := "-"
		if v.DisabledReason != nil {
			reason = *v.DisabledReason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.ID, v.URL, webhookEvents(v), webhookOwner(v), v.Status, reason, lastAttempt(v.LastAttempt))
	}
	_ = tw.Flush()
}

// webhookJSON is a webhook in `folio webhook list --json`: GET /webhooks' answer for it
// (webhooks.ToResponse) and what only the operator sees, its credential's kind and last attempt.
type webhookJSON struct {
	webhooks.Response
	Credential  string       `json:"credential"` // "key" or "session"
	LastAttempt *attemptJSON `json:"lastAttempt"`
}

type attemptJSON struct {
	AttemptedAt string  `json:"attemptedAt"`
	StatusCode  *int    `json:"statusCode"`
	Error       *string `json:"error"`
}

func printWebhooksJSON(w io.Writer, views []webhooks.View) error {
	out := make([]webhookJSON, 0, len(views))
	for _, v := range views {
		j := webhookJSON{Response: webhooks.ToResponse(v), Credential: v.CredentialKind}
		if a := v.LastAttempt; a != nil {
			j.LastAttempt = &attemptJSON{AttemptedAt: httpx.Time(a.AttemptedAt), StatusCode: a.StatusCode, Error: a.Error}
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
