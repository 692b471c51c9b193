package notebooks_test

import (
	"context"
	"slices"
	"testing"

	"folio/modules/notebooks"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/paginate"
	"folio/tests/apitest"
	"folio/tests/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestAccessCodes: which notebook each kind of principal may use, and the code of each refusal
// (CONTRACT.md section 6): another notebook for a notebook-scoped key is KEY_NOTEBOOK_MISMATCH
// whether it exists or not, a notebook outside a workspace-scoped key's workspace is
// KEY_WORKSPACE_MISMATCH, and what the user cannot reach is NOTEBOOK_NOT_FOUND.
func TestAccessCodes(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		ann, annP := g.NewUser(t, "Ann")
		bob, bobP := g.NewUser(t, "Bob")
		_, carlP := g.NewUser(t, "Carl")
		team := g.NewWorkspace(t, annP, "Team")
		if _, _, err := g.Workspaces.Invite(ctx, annP, team, bob.Email); err != nil {
			t.Fatal(err)
		}
		personal, teamNB, carls := g.NewNotebook(t, annP, "Mine", ""), g.NewNotebook(t, annP, "Team notes", team), g.NewNotebook(t, carlP, "Carl's", "")
		wsKey := g.NewKey(t, ann.ID, auth.ScopeRead, apitest.KeyOpts{Workspace: team})
		nbKey := g.NewKey(t, ann.ID, auth.ScopeRead, apitest.KeyOpts{Notebook: teamNB})
		unknown := "zzzzzzzzzzzzzzzzzzzzzzzz"

		for _, tc := range []struct {
			name string
			p    *auth.Principal
			id   string
			want *apierr.Error // nil: allowed
		}{
			{"owner, personal", annP, personal, nil},
			{"owner, workspace", annP, teamNB, nil},
			{"member, workspace", bobP, teamNB, nil},
			{"member, owner's personal", bobP, personal, notebooks.ErrNotFound},
			{"outsider, workspace", carlP, teamNB, notebooks.ErrNotFound},
			{"unknown id", annP, unknown, notebooks.ErrNotFound},
			{"malformed id", annP, "Not-An-Id", notebooks.ErrNotFound},
			{"workspace key, its workspace", wsKey, teamNB, nil},
			{"workspace key, personal", wsKey, personal, apierr.ErrKeyWorkspace},
			{"workspace key, unreachable", wsKey, carls, notebooks.ErrNotFound},
			{"notebook key, its notebook", nbKey, teamNB, nil},
			{"notebook key, another", nbKey, personal, apierr.ErrKeyNotebook},
			{"notebook key, unknown", nbKey, unknown, apierr.ErrKeyNotebook},
		} {
			t.Run(tc.name, func(t *testing.T) {
				nb, err := g.Notebooks.Get(ctx, tc.p, tc.id)
				if tc.want != nil {
					apitest.WantErr(t, err, tc.want)
				} else if err != nil || nb.ID != tc.id {
					t.Fatalf("got %+v, %v", nb, err)
				}
			})
		}

		// Lists follow the same reach.
		for _, tc := range []struct {
			name string
			p    *auth.Principal
			want []string
		}{
			{"owner", annP, []string{teamNB, personal}},
			{"member", bobP, []string{teamNB}},
			{"outsider", carlP, []string{carls}},
			{"workspace key", wsKey, []string{teamNB}},
			{"notebook key", nbKey, []string{teamNB}},
		} {
			list, _, err := g.Notebooks.List(ctx, tc.p, paginate.Params{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, nb := range list {
				got = append(got, nb.ID)
			}
			slices.Sort(got)
			slices.Sort(tc.want)
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s lists %v, want %v", tc.name, got, tc.want)
			}
		}
	})
}

// TestCreate: a notebook is personal or in a workspace of its user; a workspace-scoped key creates
// in its workspace (by default) and nowhere else; a notebook-scoped key creates none; the name and
// color are checked first.
func TestCreate(t *testing.T) {
	apitest.ForEachGraph(t, func(t *testing.T, g *apitest.Graph) {
		ctx := context.Background()
		ann, annP := g.NewUser(t, "Ann")
		_, carlP := g.NewUser(t, "Carl")
		team, carls := g.NewWorkspace(t, annP, "Team"), g.NewWorkspace(t, carlP, "Carl's")
		nbKey := g.NewKey(t, ann.ID, auth.ScopeReadWrite, apitest.KeyOpts{Notebook: g.NewNotebook(t, annP, "n", team)})
		wsKey := g.NewKey(t, ann.ID, auth.ScopeReadWrite, apitest.KeyOpts{Workspace: team})

		nb, err := g.Notebooks.Create(ctx, annP, notebooks.NewNotebook{Name: "Plain"})
		if err != nil || nb.WorkspaceID != nil || nb.OwnerID != ann.ID || nb.Color != notebooks.Colors[0] || nb.ItemCount != 0 {
			t.Fatalf("personal notebook %+v, %v", nb, err)
		}
		if nb, err = g.Notebooks.Create(ctx, wsKey, notebooks.NewNotebook{Name: "By the key", Color: "teal"}); err != nil || nb.WorkspaceID == nil || *nb.WorkspaceID != team || nb.Color != "teal" {
			t.Fatalf("notebook by a workspace key %+v, %v", nb, err)
		}
		_, err = g.Notebooks.Create(ctx, wsKey, notebooks.NewNotebook{Name: "x", WorkspaceSet: true})
		apitest.WantErr(t, err, apierr.ErrKeyWorkspace)
		_, err = g.Notebooks.Create(ctx, nbKey, notebooks.NewNotebook{Name: "x"})
		apitest.WantErr(t, err, notebooks.ErrCreateByKey)
		_, err = g.Notebooks.Create(ctx, annP, notebooks.NewNotebook{Name: "x", WorkspaceID: &carls, WorkspaceSet: true})
		apitest.WantErr(t, err, apierr.ErrNotMember)
		_, err = g.Notebooks.Create(ctx, annP, notebooks.NewNotebook{Name: "  "})
		apitest.WantErr(t, err, notebooks.ErrName)
		_, err = g.Notebooks.Create(ctx, annP, notebooks.NewNotebook{Name: "x", Color: "black"})
		apitest.WantErr(t, err, notebooks.ErrColor)
	})
}
