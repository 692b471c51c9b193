package accounts

import (
	"net/http"

	"folio/platform/apierr"
)

// The accounts module's errors.
var (
	ErrUserNotFound  = apierr.New(http.StatusNotFound, "USER_NOT_FOUND", "no account has this email address")
	ErrEmailTaken    = apierr.Validation("an account with this email address already exists")
	ErrKeyNotFound   = apierr.New(http.StatusNotFound, "KEY_NOT_FOUND", "no API key has this prefix")
	ErrKeyRevoked    = apierr.Validation("this API key is already revoked")
	ErrBadSignIn     = apierr.New(http.StatusUnauthorized, apierr.CodeUnauthenticated, "the email address or password is wrong")
	ErrWeakPassword  = apierr.Validation("the password must be at least 8 characters")
	ErrLongPassword  = apierr.Validation("the password must be at most 256 characters")
	ErrNoSession     = apierr.New(http.StatusUnauthorized, apierr.CodeUnauthenticated, "the session is invalid or has ended; sign in again")
	ErrBadPassword   = apierr.Validation("the current password is wrong")
	ErrInvalidEmail  = apierr.Validation("field \"email\" must be an email address")
	ErrInvalidName   = apierr.Validation("field \"name\" must be 1 to 200 characters and not blank")
	ErrKeyName       = apierr.Validation("the key name must be 1 to 100 characters and not blank")
	ErrKeyScope      = apierr.Validation("the scope must be 1 (read), 2 (write) or 3 (read+write)")
	ErrKeyBothLimits = apierr.Validation("a key is restricted to a workspace or to a notebook, not both")
)
