// Package accounts is the accounts module: users (with argon2id passwords), API keys (stored as
// hashes, created, listed, revoked and rotated through the CLI and the settings UI) and web
// sessions, with the rules each of them follows (rules.go). It provides the credential store that
// the API guard authenticates against; the settings UI (app/web) is its web front.
package accounts

import (
	"go.uber.org/fx"

	"folio/platform/auth"
	"folio/platform/db"
)

// Module wires the accounts module.
var Module = fx.Module("accounts",
	// The store is the module's own: no other module can ask for it.
	fx.Provide(NewStore, fx.Private),
	fx.Provide(
		NewService,
		NewDirectory,
		func(s *Store) auth.Credentials { return s },
		func(s *Store) auth.HeldCredentials { return s },
		db.AsMigrations(migrations),
	),
)
