// Package keys is the web pages of a person's API keys and of the webhooks and calendar feeds
// those keys own, over the accounts, webhooks and calendar modules' services: list, create (the
// raw key shown once), rotate and revoke a key (each after a confirmation page), delete a webhook
// or a calendar feed.
//
//	GET  /settings                            redirects to /settings/keys
//	GET  /settings/keys                       the user's keys, their webhooks and calendar feeds below them
//	GET  /settings/keys/new, POST /settings/keys          create a key (its raw form shown once)
//	GET  /settings/keys/:prefix/rotate, POST ... /rotate  confirm, then rotate (new key shown once)
//	GET  /settings/keys/:prefix/revoke, POST ... /revoke  confirm, then revoke
//	GET  /settings/webhooks                   redirects to the webhooks section of /settings/keys
//	GET  /settings/webhooks/:id/delete, POST ... /delete  confirm, then delete (webhooks.go)
//	GET  /settings/calendar-feeds             redirects to the feeds section of /settings/keys
//	GET  /settings/calendar-feeds/:id/delete, POST ... /delete  confirm, then delete (calendar.go)
package keys

import (
	"context"
	"embed"

	"go.uber.org/fx"

	"folio/modules/accounts"
	"folio/modules/calendar"
	"folio/modules/webhooks"
	"folio/platform/httpx"
)

// Module wires the keys pages.
var Module = fx.Module("web.keys",
	fx.Provide(
		httpx.AsRoutes(NewHandler),
		func(s *accounts.Service) Accounts { return s },
		func(s *webhooks.Service) Webhooks { return s },
		func(s *calendar.Service) CalendarFeeds { return s },
	),
)

// Accounts is what the keys pages ask of the accounts module (bound to *accounts.Service in
// module.go): the user's keys and the rules that make, rotate and revoke them.
type Accounts interface {
	Keys(ctx context.Context, userID string) ([]accounts.APIKey, error)
	KeyByPrefix(ctx context.Context, prefix string) (accounts.APIKey, error)
	CreateKey(ctx context.Context, in accounts.NewKey) (string, accounts.APIKey, error)
	RevokeOwnKey(ctx context.Context, userID, prefix string) (accounts.APIKey, error)
	RotateOwnKey(ctx context.Context, userID, prefix string) (string, accounts.APIKey, error)
}

// Webhooks is what the keys pages ask of the webhooks module (bound to *webhooks.Service in
// module.go): a user's webhooks, whatever credential made them, with their status decided now,
// and deleting one of them (CONTRACT.md section 20).
type Webhooks interface {
	ForUser(ctx context.Context, userID string) ([]webhooks.View, error)
	DeleteForUser(ctx context.Context, userID, id string) error
}

// CalendarFeeds is what the keys pages ask of the calendar module (bound to *calendar.Service in
// module.go): a user's calendar feeds, whatever credential made them, with their state decided
// now, and deleting one of them.
type CalendarFeeds interface {
	ForUser(ctx context.Context, userID string) ([]calendar.View, error)
	DeleteForUser(ctx context.Context, userID, id string) error
}

//go:embed templates/*.html
var templateFS embed.FS
