package audit_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/fx"

	"folio/modules/audit"
	"folio/modules/journal"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/paginate"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestVisibility records entries by sessions and keys and reads them back as each kind of
// principal (CONTRACT.md section 7): a session or an unrestricted key sees what its user did, a
// workspace-scoped key what happened in its workspace (whoever did it), a notebook-scoped key what
// happened in its notebook; the apiKeyId filter narrows to one key of the caller's own user.
func TestVisibility(t *testing.T) {
	apitest.EachDB(t, func(t *testing.T, kind string) {
		// A module that is not part of folio declares its resource type: the filter accepts it.
		g := apitest.NewGraph(t, kind, nil, fx.Provide(journal.DeclareResourceType("comment", "create")))
		ctx := context.Background()
		ann, annSession := g.NewUser(t, "Ann")
		_, bobSession := g.NewUser(t, "Bob")
		team, personal, teamNB, otherNB := "wwwwwwwwwwwwwwwwwwwwwww1", "nnnnnnnnnnnnnnnnnnnnnnn1", "nnnnnnnnnnnnnnnnnnnnnnn2", "nnnnnnnnnnnnnnnnnnnnnnn3"
		annKey := &auth.Principal{Credential: auth.CredentialKey, UserID: ann.ID, Scope: auth.ScopeReadWrite, KeyID: "kkkkkkkkkkkkkkkkkkkkkkk1", KeyName: "laptop", KeyPrefix: "svc_live_AAAAAAAA"}
		annTeamKey := &auth.Principal{Credential: auth.CredentialKey, UserID: ann.ID, Scope: auth.ScopeRead, KeyID: "kkkkkkkkkkkkkkkkkkkkkkk2", WorkspaceID: &team}
		annNBKey := &auth.Principal{Credential: auth.CredentialKey, UserID: ann.ID, Scope: auth.ScopeRead, KeyID: "kkkkkkkkkkkkkkkkkkkkkkk3", NotebookID: &teamNB}
		record := func(p *auth.Principal, e journal.Entry) {
			t.Helper()
			g.Clock.Advance(time.Second)
			// An entry without an event is refused (TestEntryWithoutEventIsRefused); these carry one.
			e.Events = []journal.Event{{Type: "note.updated", ResourceType: e.ResourceType, ResourceID: e.ResourceID, NotebookID: e.NotebookID, WorkspaceID: e.WorkspaceID, Data: journal.Deleted(e.ResourceID)}}
			if err := g.Audit.Record(ctx, g.DB, p, e); err != nil {
				t.Fatal(err)
			}
		}
		record(annSession, journal.Entry{Action: "notebook.create", ResourceType: "notebook", ResourceID: personal, NotebookID: &personal})
		record(annKey, journal.Entry{Action: "note.update", ResourceType: "note", ResourceID: "r2", WorkspaceID: &team, NotebookID: &teamNB})
		record(bobSession, journal.Entry{Action: "note.update", ResourceType: "note", ResourceID: "r3", WorkspaceID: &team, NotebookID: &teamNB})
		record(bobSession, journal.Entry{Action: "comment.create", ResourceType: "comment", ResourceID: "r4", WorkspaceID: &team, NotebookID: &otherNB})

		list := func(p *auth.Principal, f audit.Filter) []string {
			t.Helper()
			entries, _, err := g.Audit.List(ctx, p, f, paginate.Params{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, e := range entries {
				out = append(out, e.ResourceID)
			}
			return out
		}
		for _, tc := range []struct {
			name string
			p    *auth.Principal
			f    audit.Filter
			want []string // newest first
		}{
			{"Ann's session sees what Ann did", annSession, audit.Filter{}, []string{"r2", personal}},
			{"Ann's unrestricted key too", annKey, audit.Filter{}, []string{"r2", personal}},
			{"Bob's session sees what Bob did", bobSession, audit.Filter{}, []string{"r4", "r3"}},
			{"a workspace key sees its workspace, whoever acted", annTeamKey, audit.Filter{}, []string{"r4", "r3", "r2"}},
			{"a notebook key sees its notebook", annNBKey, audit.Filter{}, []string{"r3", "r2"}},
			{"by resource type", bobSession, audit.Filter{ResourceType: ptr("comment")}, []string{"r4"}},
			{"by resource type in a workspace", annTeamKey, audit.Filter{ResourceType: ptr("note")}, []string{"r3", "r2"}},
			{"by one of the caller's keys", annSession, audit.Filter{APIKeyID: annKey.KeyID}, []string{"r2"}},
			{"by somebody else's key: nothing", bobSession, audit.Filter{APIKeyID: annKey.KeyID}, nil},
		} {
			got := list(tc.p, tc.f)
			if len(got) != len(tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
				continue
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
					break
				}
			}
		}

		// A key's name and prefix are copied onto its entries; a session's entries have none.
		entries, _, err := g.Audit.List(ctx, annSession, audit.Filter{}, paginate.Params{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		byKey, bySession := entries[0], entries[1]
		if byKey.APIKeyID == nil || *byKey.APIKeyID != annKey.KeyID || *byKey.APIKeyName != "laptop" || *byKey.APIKeyPrefix != "svc_live_AAAAAAAA" ||
			bySession.APIKeyID != nil || bySession.APIKeyName != nil || !bySession.CreatedAt.Before(byKey.CreatedAt) {
			t.Fatalf("entries %+v and %+v", byKey, bySession)
		}

		// The filter accepts exactly the declared resource types, and names them.
		_, _, err = g.Audit.List(ctx, annSession, audit.Filter{ResourceType: ptr("page")}, paginate.Params{Limit: 10})
		apitest.WantErr(t, err, apierr.Validation("query parameter \"resourceType\" must be comment, note, notebook or task"))
		_, _, err = g.Audit.List(ctx, annSession, audit.Filter{APIKeyID: "not an id"}, paginate.Params{Limit: 10})
		apitest.WantErr(t, err, audit.ErrAPIKeyID)
	})
}

func ptr(s string) *string { return &s }

// TestEntryWithoutEventIsRefused: the audit entry is where a write's events ride (journal.Entry.
// Events), so an audited write path that forgot its event fails instead of committing without it.
func TestEntryWithoutEventIsRefused(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		_, p := g.NewUser(t, "Ann")
		nb := "nnnnnnnnnnnnnnnnnnnnnnn1"
		err := g.Audit.Record(context.Background(), g.DB, p, journal.Entry{Action: "note.update", ResourceType: "note", ResourceID: "r1", NotebookID: &nb})
		if err == nil {
			t.Fatal("an audit entry without an event was recorded")
		}
	})
}
