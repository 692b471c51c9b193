package e2e

import (
	"net/http"
	"testing"

	"folio/platform/auth"
	"folio/tests/apitest"
)

// world is a small, realistic set of accounts, workspaces, notebooks and keys:
//
//	Ann   owns workspace Team (Bob is a MEMBER) and has a personal notebook;
//	      Team has the notebook Team Notes.
//	Carl  is an outsider with his own personal notebook and workspace.
//
// Ann has a key of every kind; Carl one read+write key.
type world struct {
	s                          *apitest.Server
	ann, bob, carl             apitest.User
	team, carlWS               string // workspace ids
	annNB, teamNB, carlNB      string // notebook ids
	annRW, annRead, annWrite   string // unrestricted keys of Ann, scope 3, 1, 2
	annTeam, annTeamRead       string // Ann's keys restricted to Team (scope 3, 1)
	annTeamNB, annPersonalNB   string // Ann's keys restricted to a notebook (scope 3)
	annRevoked, annRotatedAway string // Ann's keys that no longer work
	bobRW, carlRW              string
}

func newWorld(t *testing.T, s *apitest.Server) *world {
	t.Helper()
	w := &world{s: s}
	w.ann, w.bob, w.carl = s.NewUser(t, "Ann Owner"), s.NewUser(t, "Bob Member"), s.NewUser(t, "Carl Outsider")
	w.annRW = s.NewKey(t, w.ann, auth.ScopeReadWrite)
	w.bobRW = s.NewKey(t, w.bob, auth.ScopeReadWrite)
	w.carlRW = s.NewKey(t, w.carl, auth.ScopeReadWrite)

	w.team = apitest.Must(t, s.Post(t, w.annRW, "/workspaces", map[string]any{"name": "Team"}), http.StatusCreated).Str(t, "id")
	apitest.Must(t, s.Post(t, w.annRW, "/workspaces/"+w.team+"/members", map[string]any{"email": w.bob.Email}), http.StatusCreated)
	w.carlWS = apitest.Must(t, s.Post(t, w.carlRW, "/workspaces", map[string]any{"name": "Carl's"}), http.StatusCreated).Str(t, "id")

	w.annNB = apitest.Must(t, s.Post(t, w.annRW, "/notebooks", map[string]any{"name": "Ann personal"}), http.StatusCreated).Str(t, "id")
	w.teamNB = apitest.Must(t, s.Post(t, w.annRW, "/notebooks", map[string]any{"name": "Team Notes", "workspaceId": w.team}), http.StatusCreated).Str(t, "id")
	w.carlNB = apitest.Must(t, s.Post(t, w.carlRW, "/notebooks", map[string]any{"name": "Carl personal"}), http.StatusCreated).Str(t, "id")

	w.annRead = s.NewKey(t, w.ann, auth.ScopeRead)
	w.annWrite = s.NewKey(t, w.ann, auth.ScopeWrite)
	w.annTeam = s.NewKey(t, w.ann, auth.ScopeReadWrite, apitest.KeyOpts{Workspace: w.team})
	w.annTeamRead = s.NewKey(t, w.ann, auth.ScopeRead, apitest.KeyOpts{Workspace: w.team})
	w.annTeamNB = s.NewKey(t, w.ann, auth.ScopeReadWrite, apitest.KeyOpts{Notebook: w.teamNB})
	w.annPersonalNB = s.NewKey(t, w.ann, auth.ScopeReadWrite, apitest.KeyOpts{Notebook: w.annNB})

	w.annRevoked = s.NewKey(t, w.ann, auth.ScopeReadWrite)
	prefix, _, _ := auth.ParseKey(w.annRevoked)
	if _, err := s.Accounts.RevokeKey(t.Context(), prefix); err != nil {
		t.Fatal(err)
	}
	w.annRotatedAway = s.NewKey(t, w.ann, auth.ScopeReadWrite)
	prefix, _, _ = auth.ParseKey(w.annRotatedAway)
	if _, _, err := s.Accounts.RotateKey(t.Context(), prefix); err != nil {
		t.Fatal(err)
	}
	return w
}

// ownWorld is one user with a read-write key and a personal notebook.
func ownWorld(t *testing.T, s *apitest.Server) (key, notebook string) {
	t.Helper()
	u := s.NewUser(t, "Etta")
	key = s.NewKey(t, u, 3)
	notebook = apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "Mine"}), http.StatusCreated).Str(t, "id")
	return key, notebook
}
