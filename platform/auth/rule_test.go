package auth_test

import (
	"context"
	"testing"
	"time"

	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/clock"
)

type fakeHeld struct {
	keys     []auth.KeyRecord
	sessions []auth.SessionRecord
}

func (f fakeHeld) KeysByIDs(_ context.Context, ids []string) ([]auth.KeyRecord, error) {
	var out []auth.KeyRecord
	for _, k := range f.keys {
		for _, id := range ids {
			if k.ID == id {
				out = append(out, k)
			}
		}
	}
	return out, nil
}

func (f fakeHeld) SessionsByIDs(_ context.Context, ids []string) ([]auth.SessionRecord, error) {
	var out []auth.SessionRecord
	for _, s := range f.sessions {
		for _, id := range ids {
			if s.ID == id {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// leftWorkspace: the user of every restricted key has left workspace "w-left".
type leftWorkspace struct{}

func (leftWorkspace) CheckRestriction(_ context.Context, _ string, ws, _ *string) error {
	if ws != nil && *ws == "w-left" {
		return apierr.ErrNotMember
	}
	return nil
}

// TestHoldReasons: a held credential is resolved as of now, with the reason it reads nothing.
func TestHoldReasons(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	left, kept := "w-left", "w-kept"
	rule := auth.NewRule(auth.RuleParams{
		Credentials: fakeHeld{
			keys: []auth.KeyRecord{
				{ID: "live", UserID: "u", Name: "laptop", Prefix: "AAAAAAAA", Scope: auth.ScopeReadWrite},
				{ID: "revoked", UserID: "u", Scope: auth.ScopeReadWrite, Revoked: true},
				{ID: "expired", UserID: "u", Scope: auth.ScopeReadWrite, ExpiresAt: &past},
				{ID: "expiring", UserID: "u", Scope: auth.ScopeRead, ExpiresAt: &future},
				{ID: "writeonly", UserID: "u", Scope: auth.ScopeWrite},
				{ID: "left", UserID: "u", Scope: auth.ScopeReadWrite, WorkspaceID: &left},
				{ID: "kept", UserID: "u", Scope: auth.ScopeReadWrite, WorkspaceID: &kept},
			},
			sessions: []auth.SessionRecord{{ID: "s-live", UserID: "u", ExpiresAt: future}, {ID: "s-old", UserID: "u", ExpiresAt: past}},
		},
		Restrictions: leftWorkspace{},
		Clock:        clock.NewFake(now),
	})
	key := func(id string) auth.CredentialRef { return auth.CredentialRef{Kind: auth.CredentialKey, ID: id} }
	sess := func(id string) auth.CredentialRef { return auth.CredentialRef{Kind: auth.CredentialSession, ID: id} }
	want := map[auth.CredentialRef]string{
		key("live"): "", key("expiring"): "", key("kept"): "", sess("s-live"): "",
		key("revoked"): auth.DeadKeyRevoked, key("unknown"): auth.DeadKeyRevoked, sess("s-gone"): auth.DeadKeyRevoked,
		key("expired"): auth.DeadKeyExpired, sess("s-old"): auth.DeadKeyExpired,
		key("writeonly"): auth.DeadAccessLost, key("left"): auth.DeadAccessLost,
	}
	var refs []auth.CredentialRef
	for r := range want {
		refs = append(refs, r)
	}
	held, err := rule.Hold(t.Context(), refs)
	if err != nil {
		t.Fatal(err)
	}
	for r, reason := range want {
		h := held[r]
		if h.Dead != reason || (reason == "") != (h.Principal != nil) {
			t.Errorf("%v: dead %q, principal %v; want dead %q", r, h.Dead, h.Principal, reason)
		}
	}
	if p := held[key("kept")].Principal; p == nil || p.WorkspaceID == nil || *p.WorkspaceID != kept || p.KeyID != "kept" {
		t.Errorf("a live restricted key's principal keeps its restriction: %+v", p)
	}
	if p := held[sess("s-live")].Principal; p == nil || p.Credential != auth.CredentialSession || !p.Unrestricted() {
		t.Errorf("a live session's principal: %+v", p)
	}
	if h := held[key("revoked")]; h.KeyName == nil {
		t.Error("a dead key is still named (to show whose a webhook is)")
	}
	// A principal without read scope reads nothing, whatever the readers say.
	got, err := rule.Readable(t.Context(), &auth.Principal{UserID: "u", Scope: auth.ScopeWrite}, []auth.Resource{{Type: "note", ID: "n"}})
	if err != nil || len(got) != 0 {
		t.Errorf("a write-only principal read %v (%v)", got, err)
	}
}
