package web

import (
	"context"

	"folio/modules/accounts"
)

// Accounts is what the settings UI asks of the accounts module (bound to *accounts.Service in
// module.go): the pages are a front end of its rules, which they never write again.
type Accounts interface {
	CreateUser(ctx context.Context, email, name, password string) (accounts.User, error)
	SignIn(ctx context.Context, email, password string) (accounts.SignedIn, error)
	KnownDevice(ctx context.Context, email, token string) (string, bool)
	OpenSession(ctx context.Context, u accounts.User) (accounts.SignedIn, error)
	CurrentSession(ctx context.Context, token string) (accounts.Session, error)
	SignOut(ctx context.Context, token string) error
	ChangePassword(ctx context.Context, userID, current, next string) (accounts.SignedIn, error)
	Keys(ctx context.Context, userID string) ([]accounts.APIKey, error)
	KeyByPrefix(ctx context.Context, prefix string) (accounts.APIKey, error)
	CreateKey(ctx context.Context, in accounts.NewKey) (string, accounts.APIKey, error)
	RevokeOwnKey(ctx context.Context, userID, prefix string) (accounts.APIKey, error)
	RotateOwnKey(ctx context.Context, userID, prefix string) (string, accounts.APIKey, error)
	UsersByIDs(ctx context.Context, ids []string) ([]accounts.User, error)
}
