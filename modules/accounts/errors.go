package accounts

import (
	"net/http"

	"folio/platform/apierr"
)

// The accounts module's errors.
var (
	ErrUserNotFound = apierr.New(http.StatusNotFound, "USER_NOT_FOUND", "no account has this email address")
	ErrEmailTaken   = apierr.Validation("an account with this email address already exists")
	ErrKeyNotFound  = apierr.New(http.StatusNotFound, "KEY_NOT_FOUND", "no API key has this prefix")
	ErrKeyRevoked   = apierr.Validation("this API key is already revoked")
	ErrKeyExpired   = apierr.New(http.StatusConflict, "KEY_EXPIRED", "this API key has expired; create a new one")
	ErrBadSignIn    = apierr.New(http.StatusUnauthorized, apierr.CodeUnauthenticated, "the email address or password is wrong")
	ErrNoSession    = apierr.New(http.StatusUnauthorized, apierr.CodeUnauthenticated, "the session is invalid or has ended; sign in again")
	ErrBadPassword  = apierr.Validation("the current password is wrong")
)
