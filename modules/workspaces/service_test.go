package workspaces_test

import (
	"context"
	"testing"

	"folio/modules/workspaces"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/paginate"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestMembership: the creator is the only OWNER; an OWNER invites by email (once: a second invite
// returns the existing membership), a MEMBER cannot invite or remove others but may leave, and the
// last OWNER cannot leave.
func TestMembership(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		ann, annP := g.NewUser(t, "Ann")
		bob, bobP := g.NewUser(t, "Bob")
		carl, carlP := g.NewUser(t, "Carl")

		v, err := g.Workspaces.Create(ctx, annP, "Team")
		if err != nil {
			t.Fatal(err)
		}
		if v.Role != workspaces.RoleOwner || len(v.Members) != 1 || v.Members[0].UserID != ann.ID || v.Members[0].Role != workspaces.RoleOwner {
			t.Fatalf("created %+v", v)
		}
		ws := v.Workspace.ID
		_, err = g.Workspaces.Create(ctx, annP, " ")
		apitest.WantErr(t, err, workspaces.ErrName)

		m, created, err := g.Workspaces.Invite(ctx, annP, ws, "  "+bob.Email)
		if err != nil || !created || m.UserID != bob.ID || m.Role != workspaces.RoleMember {
			t.Fatalf("invite: %+v %v %v", m, created, err)
		}
		if _, created, err = g.Workspaces.Invite(ctx, annP, ws, bob.Email); err != nil || created {
			t.Fatalf("second invite: created %v, %v", created, err)
		}
		_, _, err = g.Workspaces.Invite(ctx, annP, ws, "nobody@example.com")
		apitest.WantErr(t, err, workspaces.ErrNoAccount)
		_, _, err = g.Workspaces.Invite(ctx, bobP, ws, carl.Email)
		apitest.WantErr(t, err, workspaces.ErrOwnerOnly)
		_, _, err = g.Workspaces.Invite(ctx, carlP, ws, carl.Email)
		apitest.WantErr(t, err, apierr.ErrNotMember)
		if role, err := g.Workspaces.RoleOf(ctx, bob.ID, ws); err != nil || role != workspaces.RoleMember {
			t.Fatalf("Bob's role %q, %v", role, err)
		}
		_, err = g.Workspaces.RoleOf(ctx, carl.ID, ws)
		apitest.WantErr(t, err, apierr.ErrNotMember)

		apitest.WantErr(t, g.Workspaces.Remove(ctx, bobP, ws, ann.ID), workspaces.ErrRemoveOthers)
		apitest.WantErr(t, g.Workspaces.Remove(ctx, annP, ws, carl.ID), workspaces.ErrNotMemberUser)
		apitest.WantErr(t, g.Workspaces.Remove(ctx, annP, ws, ann.ID), workspaces.ErrLastOwner)
		if err := g.Workspaces.Remove(ctx, bobP, ws, bob.ID); err != nil {
			t.Fatalf("a member leaves: %v", err)
		}
		_, err = g.Workspaces.RoleOf(ctx, bob.ID, ws)
		apitest.WantErr(t, err, apierr.ErrNotMember)
		names, err := g.Workspaces.WorkspaceNames(ctx, ann.ID)
		if err != nil || len(names) != 1 || names[ws] != "Team" {
			t.Fatalf("Ann's workspaces %v, %v", names, err)
		}
	})
}

// TestRestrictedKeys: a workspace-scoped key manages only its workspace and creates none; a
// notebook-scoped key manages no workspace and lists none.
func TestRestrictedKeys(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		ann, annP := g.NewUser(t, "Ann")
		bob, _ := g.NewUser(t, "Bob")
		team, other := g.NewWorkspace(t, annP, "Team"), g.NewWorkspace(t, annP, "Other")
		nb := g.NewNotebook(t, annP, "Notes", team)
		wsKey := g.NewKey(t, ann.ID, auth.ScopeReadWrite, apitest.KeyOpts{Workspace: team})
		nbKey := g.NewKey(t, ann.ID, auth.ScopeReadWrite, apitest.KeyOpts{Notebook: nb})

		_, err := g.Workspaces.Create(ctx, wsKey, "New")
		apitest.WantErr(t, err, workspaces.ErrCreateByKey)
		_, _, err = g.Workspaces.Invite(ctx, wsKey, other, bob.Email)
		apitest.WantErr(t, err, apierr.ErrKeyWorkspace)
		_, _, err = g.Workspaces.Invite(ctx, nbKey, team, bob.Email)
		apitest.WantErr(t, err, workspaces.ErrKeyCannotDo)
		if _, created, err := g.Workspaces.Invite(ctx, wsKey, team, bob.Email); err != nil || !created {
			t.Fatalf("invite by the workspace key: %v %v", created, err)
		}

		page := paginate.Params{Limit: 10}
		all, _, err := g.Workspaces.List(ctx, annP, page)
		if err != nil || len(all) != 2 {
			t.Fatalf("Ann lists %d workspaces (%v), want 2", len(all), err)
		}
		own, _, err := g.Workspaces.List(ctx, wsKey, page)
		if err != nil || len(own) != 1 || own[0].Workspace.ID != team || len(own[0].Members) != 2 {
			t.Fatalf("the workspace key lists %+v (%v)", own, err)
		}
		none, next, err := g.Workspaces.List(ctx, nbKey, page)
		if err != nil || len(none) != 0 || next != nil {
			t.Fatalf("the notebook key lists %+v %v (%v)", none, next, err)
		}
	})
}
