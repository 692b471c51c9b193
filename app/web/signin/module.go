// Package signin is the web pages' door: sign-up, sign-in and sign-out, and the account page with
// its password change, over the accounts module's service. It limits failed attempts per client
// address (with a budget of its own for a known device) and opens and ends the browser's session;
// every other page checks that session through package web.
//
//	GET  /signup, POST /signup                create an account (and sign in)
//	GET  /signin, POST /signin                sign in (failures limited per client address)
//	GET  /signout                             redirects to /settings/keys
//	POST /signout                             end the session
//	GET  /settings/account                    profile and password change
//	POST /settings/account/password
package signin

import (
	"context"
	"embed"

	"go.uber.org/fx"

	"folio/modules/accounts"
	"folio/platform/httpx"
)

// Module wires the sign-in pages.
var Module = fx.Module("web.signin",
	fx.Provide(
		httpx.AsRoutes(NewHandler),
		func(s *accounts.Service) Accounts { return s },
	),
)

// Accounts is what the sign-in pages ask of the accounts module (bound to *accounts.Service in
// module.go): the pages are a front end of its rules, which they never write again.
type Accounts interface {
	CreateUser(ctx context.Context, email, name, password string) (accounts.User, error)
	SignIn(ctx context.Context, email, password string) (accounts.SignedIn, error)
	KnownDevice(ctx context.Context, email, token string) (string, bool)
	OpenSession(ctx context.Context, u accounts.User) (accounts.SignedIn, error)
	CurrentSession(ctx context.Context, token string) (accounts.Session, error)
	SignOut(ctx context.Context, token string) error
	ChangePassword(ctx context.Context, userID, current, next string) (accounts.SignedIn, error)
}

//go:embed templates/*.html
var templateFS embed.FS
