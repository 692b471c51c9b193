package accounts_test

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"folio/modules/accounts"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestUsers: an account is created with a normalised email, found again in any casing, and a
// second account with the same address (in another casing) is refused; bad names and emails and
// short passwords are refused before anything is stored.
func TestUsers(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		u, err := g.Accounts.CreateUser(ctx, "  Ann@Example.COM ", " Ann ", "")
		if err != nil {
			t.Fatal(err)
		}
		if u.Email != "ann@example.com" || u.Name != "Ann" || u.PasswordHash != "" || u.CreatedAt != g.Clock.Now() {
			t.Fatalf("created %+v", u)
		}
		found, err := g.Accounts.UserByEmail(ctx, "ANN@example.com")
		if err != nil || found.ID != u.ID {
			t.Fatalf("UserByEmail: %+v, %v", found, err)
		}
		_, err = g.Accounts.CreateUser(ctx, "ann@EXAMPLE.com", "Other Ann", "")
		apitest.WantErr(t, err, accounts.ErrEmailTaken)
		_, err = g.Accounts.CreateUser(ctx, "not an address", "X", "")
		wantInvalid(t, err, accounts.Invalid{"email": "Enter an email address like name@example.com."})
		_, err = g.Accounts.CreateUser(ctx, "blank@example.com", "  ", "")
		wantInvalid(t, err, accounts.Invalid{"name": "Enter your name."})
		_, err = g.Accounts.CreateUser(ctx, "short@example.com", "Short", "1234567")
		wantInvalid(t, err, accounts.Invalid{"password": "Use at least 8 characters for your password."})
		_, err = g.Accounts.UserByEmail(ctx, "short@example.com")
		apitest.WantErr(t, err, accounts.ErrUserNotFound)

		// A password makes the account able to sign in; a wrong one does not.
		if _, err := g.Accounts.CreateUser(ctx, "bob@example.com", "Bob", "correct horse"); err != nil {
			t.Fatal(err)
		}
		si, err := g.Accounts.SignIn(ctx, "BOB@example.com", "correct horse")
		if err != nil || si.Token == "" || si.CSRFToken == "" || si.Session.UserID == u.ID {
			t.Fatalf("sign in: %+v, %v", si, err)
		}
		_, err = g.Accounts.SignIn(ctx, "bob@example.com", "wrong horse")
		apitest.WantErr(t, err, accounts.ErrBadSignIn)
		_, err = g.Accounts.SignIn(ctx, "ann@example.com", "")
		apitest.WantErr(t, err, accounts.ErrBadSignIn)
	})
}

// TestKeys: a key is created with its restriction, listed newest first, revoked once, and rotated
// into a new key with the same name, scope and restriction while the old one is revoked; another
// user's key is not found through the Own variants.
func TestKeys(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		ann, annP := g.NewUser(t, "Ann")
		bob, _ := g.NewUser(t, "Bob")
		ws := g.NewWorkspace(t, annP, "Team")

		_, _, err := g.Accounts.CreateKey(ctx, accounts.NewKey{UserID: ann.ID, Name: " ", Scope: auth.ScopeRead})
		wantInvalid(t, err, accounts.Invalid{"name": "Enter a name for the key."})
		_, _, err = g.Accounts.CreateKey(ctx, accounts.NewKey{UserID: ann.ID, Name: "k", Scope: 4})
		wantInvalid(t, err, accounts.Invalid{"scope": "Choose what the key may do: read, write, or read and write."})
		nb := "zzzzzzzzzzzzzzzzzzzzzzzz"
		_, _, err = g.Accounts.CreateKey(ctx, accounts.NewKey{UserID: ann.ID, Name: "k", Scope: auth.ScopeRead, WorkspaceID: &ws, NotebookID: &nb})
		wantInvalid(t, err, accounts.Invalid{"restriction": "Restrict the key to a workspace or to a notebook, not both."})
		// A restriction to a workspace the user is not in is refused.
		_, _, err = g.Accounts.CreateKey(ctx, accounts.NewKey{UserID: bob.ID, Name: "k", Scope: auth.ScopeRead, WorkspaceID: &ws})
		apitest.WantErr(t, err, apierr.ErrNotMember)

		raw, key, err := g.Accounts.CreateKey(ctx, accounts.NewKey{UserID: ann.ID, Name: " team reader ", Scope: auth.ScopeRead, WorkspaceID: &ws})
		if err != nil {
			t.Fatal(err)
		}
		prefix, _, err := auth.ParseKey(raw)
		if err != nil || prefix != key.Prefix || key.Name != "team reader" || *key.WorkspaceID != ws || key.RevokedAt != nil {
			t.Fatalf("key %+v from raw %q (%v)", key, raw, err)
		}
		if got, err := g.Accounts.KeyByPrefix(ctx, auth.DisplayPrefix(prefix)); err != nil || got.ID != key.ID {
			t.Fatalf("KeyByPrefix: %+v, %v", got, err)
		}

		// Rotation: a new key, the old one revoked in the same step.
		g.Clock.Advance(time.Second)
		_, _, err = g.Accounts.RotateOwnKey(ctx, bob.ID, prefix)
		apitest.WantErr(t, err, accounts.ErrKeyNotFound)
		newRaw, rotated, err := g.Accounts.RotateKey(ctx, prefix)
		if err != nil {
			t.Fatal(err)
		}
		if newRaw == raw || rotated.Prefix == prefix || rotated.Name != key.Name || rotated.Scope != key.Scope ||
			*rotated.WorkspaceID != ws || rotated.RotatedFromID == nil || *rotated.RotatedFromID != key.ID {
			t.Fatalf("rotated %+v from %+v", rotated, key)
		}
		_, _, err = g.Accounts.RotateKey(ctx, prefix)
		apitest.WantErr(t, err, accounts.ErrKeyRevoked)
		_, err = g.Accounts.RevokeKey(ctx, prefix)
		apitest.WantErr(t, err, accounts.ErrKeyRevoked)

		keys, err := g.Accounts.Keys(ctx, ann.ID)
		if err != nil || len(keys) != 2 || keys[0].ID != rotated.ID || keys[1].ID != key.ID || keys[1].RevokedAt == nil || keys[0].RevokedAt != nil {
			t.Fatalf("keys newest first, the old one revoked: %+v (%v)", keys, err)
		}

		// Revocation: only by the owner through RevokeOwnKey, and once.
		_, err = g.Accounts.RevokeOwnKey(ctx, bob.ID, rotated.Prefix)
		apitest.WantErr(t, err, accounts.ErrKeyNotFound)
		revoked, err := g.Accounts.RevokeOwnKey(ctx, ann.ID, rotated.Prefix)
		if err != nil || revoked.RevokedAt == nil || !revoked.RevokedAt.Equal(g.Clock.Now()) {
			t.Fatalf("revoke: %+v, %v", revoked, err)
		}
		_, err = g.Accounts.RevokeOwnKey(ctx, ann.ID, rotated.Prefix)
		apitest.WantErr(t, err, accounts.ErrKeyRevoked)
		_, err = g.Accounts.RevokeKey(ctx, strings.Repeat("Z", 8))
		apitest.WantErr(t, err, accounts.ErrKeyNotFound)
	})
}

// wantInvalid checks that err is exactly the broken rules want (field and message, for a person).
func wantInvalid(t *testing.T, err error, want accounts.Invalid) {
	t.Helper()
	var got accounts.Invalid
	if !errors.As(err, &got) || !maps.Equal(got, want) {
		t.Fatalf("error %v, want %v", err, want)
	}
}
