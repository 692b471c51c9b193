// Package accounts is the accounts module: users (with argon2id passwords), API keys (stored as
// hashes, created, listed, revoked and rotated through the CLI and later the settings UI) and web
// sessions. It provides the credential store that the API guard authenticates against.
package accounts

import (
	"go.uber.org/fx"

	"folio/platform/auth"
)

// Module wires the accounts module.
var Module = fx.Module("accounts",
	fx.Provide(
		NewStore,
		NewService,
		NewDirectory,
		func(s *Store) auth.Credentials { return s },
		fx.Annotate(migrations, fx.ResultTags(`group:"migrations"`)),
	),
)
