// Package accounts is the accounts module: users (with argon2id passwords), API keys (stored as
// hashes, created, listed, revoked and rotated through the CLI and the settings UI) and web
// sessions. It provides the credential store that the API guard authenticates against, and the
// settings UI (web.go): sign-up, sign-in and API key management as server-rendered pages.
package accounts

import (
	"go.uber.org/fx"

	"folio/platform/auth"
	"folio/platform/db"
	"folio/platform/httpx"
)

// Module wires the accounts module.
var Module = fx.Module("accounts",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		NewService,
		NewDirectory,
		func(s *Store) auth.Credentials { return s },
		db.AsMigrations(migrations),
		// The settings UI: its pages join the same routes group as every API handler.
		httpx.AsRoutes(NewWeb),
	),
)
