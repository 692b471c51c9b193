package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"folio/platform/auth"
	"folio/platform/ids"
	"folio/tests/apitest"
)

// member is a workspace member as listed in a Workspace's members.
type member struct{ UserID, Name, Email, Role string }

func memberOf(u apitest.User, role string) member {
	return member{UserID: u.ID, Name: u.Name, Email: u.Email, Role: role}
}

// checkWorkspace asserts the shape of a Workspace and returns its members.
func checkWorkspace(t testing.TB, ws map[string]any, name, role string) []member {
	t.Helper()
	wantFields(t, ws, "id", "name", "role", "members", "createdAt")
	if id, _ := ws["id"].(string); !ids.Valid(id) {
		t.Fatalf("id %#v is not a CUID2", ws["id"])
	}
	if ws["name"] != name || ws["role"] != role {
		t.Fatalf("name %#v role %#v, want %q %q", ws["name"], ws["role"], name, role)
	}
	if v, _ := ws["createdAt"].(string); !wireTimeRE.MatchString(v) {
		t.Fatalf("createdAt %#v is not of the form 2026-11-22T10:31:07.000Z", ws["createdAt"])
	}
	raw, ok := ws["members"].([]any)
	if !ok {
		t.Fatalf("members %#v is not an array", ws["members"])
	}
	out := make([]member, len(raw))
	for i, m := range raw {
		obj, _ := m.(map[string]any)
		wantFields(t, obj, "userId", "name", "email", "role")
		for _, f := range []string{"userId", "name", "email", "role"} {
			if _, isString := obj[f].(string); !isString {
				t.Fatalf("member field %s %#v is not a string", f, obj[f])
			}
		}
		out[i] = member{UserID: obj["userId"].(string), Name: obj["name"].(string), Email: obj["email"].(string), Role: obj["role"].(string)}
	}
	return out
}

// findWorkspace returns the workspace with this id from the caller's GET /workspaces, or nil.
func findWorkspace(t testing.TB, s *apitest.Server, key, id string) map[string]any {
	t.Helper()
	for _, ws := range apitest.Must(t, s.Get(t, key, "/workspaces?limit=100"), http.StatusOK).Data(t) {
		if ws["id"] == id {
			return ws
		}
	}
	return nil
}

func sameMembers(a, b []member) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// makeOwner promotes a member to OWNER. No endpoint does this yet, so the test writes the row.
func makeOwner(t testing.TB, s *apitest.Server, workspaceID, userID string) {
	t.Helper()
	res := s.DB.Table("memberships").Where("workspace_id = ? AND user_id = ?", workspaceID, userID).Update("role", "OWNER")
	if res.Error != nil || res.RowsAffected != 1 {
		t.Fatalf("promote %s: %v (%d rows)", userID, res.Error, res.RowsAffected)
	}
}

func TestCreateWorkspace(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for _, name := range []string{"Board", "x", strings.Repeat("w", 80), strings.Repeat("é", 80), strings.Repeat("日", 80), "Sales & Marketing — EMEA"} {
			t.Run("name "+name[:min(len(name), 12)], func(t *testing.T) {
				r := apitest.Must(t, s.Post(t, w.annRW, "/workspaces", map[string]any{"name": name}), http.StatusCreated)
				ws := r.JSON(t)
				members := checkWorkspace(t, ws, name, "OWNER")
				if want := []member{memberOf(w.ann, "OWNER")}; !sameMembers(members, want) {
					t.Fatalf("members %v, want %v", members, want)
				}
				// The list shows the same workspace.
				listed := findWorkspace(t, s, w.annRW, ws["id"].(string))
				if listed == nil {
					t.Fatal("the new workspace is not listed")
				}
				if !sameMembers(checkWorkspace(t, listed, name, "OWNER"), members) || listed["createdAt"] != ws["createdAt"] {
					t.Fatalf("listed %v, created %v", listed, ws)
				}
			})
		}
		t.Run("rejected", func(t *testing.T) {
			for _, tc := range []struct {
				name, key string
				body      map[string]any
				status    int
				code      string
				mention   string
			}{
				{"name of 81 characters", w.annRW, map[string]any{"name": strings.Repeat("w", 81)}, 400, "VALIDATION_ERROR", `"name"`},
				{"name of 81 two-byte letters", w.annRW, map[string]any{"name": strings.Repeat("é", 81)}, 400, "VALIDATION_ERROR", `"name"`},
				{"name of 81 four-byte characters", w.annRW, map[string]any{"name": strings.Repeat("😀", 81)}, 400, "VALIDATION_ERROR", `"name"`},
				{"empty name", w.annRW, map[string]any{"name": ""}, 400, "VALIDATION_ERROR", `"name"`},
				{"blank name", w.annRW, map[string]any{"name": "  \t "}, 400, "VALIDATION_ERROR", `"name"`},
				{"missing name", w.annRW, map[string]any{}, 400, "MISSING_FIELD", `"name"`},
				{"workspace key", w.annTeam, map[string]any{"name": "x"}, 403, "INSUFFICIENT_SCOPE", ""},
				{"notebook key", w.annTeamNB, map[string]any{"name": "x"}, 403, "INSUFFICIENT_SCOPE", ""},
				{"read-only key", w.annRead, map[string]any{"name": "x"}, 403, "INSUFFICIENT_SCOPE", ""},
			} {
				t.Run(tc.name, func(t *testing.T) {
					before := len(listIDs(t, s, w.annRW, "/workspaces?limit=100"))
					var mentions []string
					if tc.mention != "" {
						mentions = []string{tc.mention}
					}
					wantErr(t, s.Post(t, tc.key, "/workspaces", tc.body), tc.status, tc.code, mentions...)
					if after := len(listIDs(t, s, w.annRW, "/workspaces?limit=100")); after != before {
						t.Fatalf("a rejected create changed the list: %d, then %d", before, after)
					}
				})
			}
		})
	})
}

func TestListWorkspaces(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		// Team: Ann OWNER, Bob MEMBER. Add members whose names sort around them, in mixed case,
		// and a second owner whose name sorts after every member's.
		zed, amy, mia, yves := s.NewUser(t, "Zed Last"), s.NewUser(t, "amy lower"), s.NewUser(t, "Mia Middle"), s.NewUser(t, "Yves Owner")
		for _, u := range []apitest.User{zed, amy, mia, yves} {
			apitest.Must(t, s.Post(t, w.annRW, "/workspaces/"+w.team+"/members", map[string]any{"email": u.Email}), http.StatusCreated)
		}
		makeOwner(t, s, w.team, yves.ID)
		wantMembers := []member{
			memberOf(w.ann, "OWNER"), memberOf(yves, "OWNER"),
			memberOf(amy, "MEMBER"), memberOf(w.bob, "MEMBER"), memberOf(mia, "MEMBER"), memberOf(zed, "MEMBER"),
		}
		for _, tc := range []struct {
			name, key, role string
		}{
			{"owner's unrestricted key", w.annRW, "OWNER"},
			{"owner's read-only key", w.annRead, "OWNER"},
			{"owner's workspace key", w.annTeam, "OWNER"},
			{"member's key", w.bobRW, "MEMBER"},
			{"second owner", s.NewKey(t, yves, auth.ScopeRead), "OWNER"},
			{"member with a lower-case name", s.NewKey(t, amy, auth.ScopeRead), "MEMBER"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ws := findWorkspace(t, s, tc.key, w.team)
				if ws == nil {
					t.Fatal("Team is not listed")
				}
				got := checkWorkspace(t, ws, "Team", tc.role)
				if !sameMembers(got, wantMembers) {
					t.Fatalf("members\n got %v\nwant %v (OWNERs first, then by name)", got, wantMembers)
				}
			})
		}
		t.Run("a workspace key sees only its workspace", func(t *testing.T) {
			other := apitest.Must(t, s.Post(t, w.annRW, "/workspaces", map[string]any{"name": "Other"}), http.StatusCreated).Str(t, "id")
			if got := listIDs(t, s, w.annTeam, "/workspaces"); len(got) != 1 || got[0] != w.team {
				t.Fatalf("workspace key lists %v, want only %s", got, w.team)
			}
			if got := listIDs(t, s, w.annRW, "/workspaces"); len(got) != 2 || got[0] != other || got[1] != w.team {
				t.Fatalf("unrestricted key lists %v, want [%s %s] (newest first)", got, other, w.team)
			}
		})
		t.Run("a notebook key sees none", func(t *testing.T) {
			r := apitest.Must(t, s.Get(t, w.annTeamNB, "/workspaces"), http.StatusOK)
			if len(r.Data(t)) != 0 {
				t.Fatalf("notebook key lists %s", r.Body)
			}
			if _, more := nextCursor(t, r); more {
				t.Fatalf("nextCursor on an empty list: %s", r.Body)
			}
		})
		t.Run("a user without workspaces gets an empty data array", func(t *testing.T) {
			loner := s.NewUser(t, "Loner")
			r := apitest.Must(t, s.Get(t, s.NewKey(t, loner, auth.ScopeRead), "/workspaces"), http.StatusOK)
			if string(r.Body) != `{"data":[],"nextCursor":null}` {
				t.Fatalf("body %s", r.Body)
			}
		})
	})
}

func TestInviteMember(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		dana := s.NewUser(t, "Dana New")
		danaKey := s.NewKey(t, dana, auth.ScopeReadWrite)
		membersPath := "/workspaces/" + w.team + "/members"

		t.Run("before the invitation Dana sees nothing of Team", func(t *testing.T) {
			if findWorkspace(t, s, danaKey, w.team) != nil {
				t.Fatal("Dana sees Team")
			}
			wantErr(t, s.Get(t, danaKey, "/notebooks/"+w.teamNB), 404, "NOTEBOOK_NOT_FOUND")
		})
		t.Run("invite a new member: 201", func(t *testing.T) {
			r := apitest.Must(t, s.Post(t, w.annRW, membersPath, map[string]any{"email": dana.Email}), http.StatusCreated)
			body := r.JSON(t)
			wantFields(t, body, "workspaceId", "userId", "role")
			if body["workspaceId"] != w.team || body["userId"] != dana.ID || body["role"] != "MEMBER" {
				t.Fatalf("body %v", body)
			}
		})
		t.Run("the member then sees the workspace and its notebooks", func(t *testing.T) {
			ws := findWorkspace(t, s, danaKey, w.team)
			if ws == nil {
				t.Fatal("Dana does not see Team")
			}
			members := checkWorkspace(t, ws, "Team", "MEMBER")
			want := []member{memberOf(w.ann, "OWNER"), memberOf(w.bob, "MEMBER"), memberOf(dana, "MEMBER")}
			if !sameMembers(members, want) {
				t.Fatalf("members %v, want %v", members, want)
			}
			apitest.Must(t, s.Get(t, danaKey, "/notebooks/"+w.teamNB), http.StatusOK)
			if !containsID(listIDs(t, s, danaKey, "/notebooks"), w.teamNB) {
				t.Fatal("Dana's notebook list lacks Team Notes")
			}
			if containsID(listIDs(t, s, danaKey, "/notebooks"), w.annNB) {
				t.Fatal("Dana sees Ann's personal notebook")
			}
			// And may create notebooks in it.
			apitest.Must(t, s.Post(t, danaKey, "/notebooks", map[string]any{"name": "Dana's", "workspaceId": w.team}), http.StatusCreated)
		})
		t.Run("inviting again: 200 and the same membership", func(t *testing.T) {
			for _, email := range []string{dana.Email, strings.ToUpper(dana.Email), "  " + dana.Email + " "} {
				r := apitest.Must(t, s.Post(t, w.annRW, membersPath, map[string]any{"email": email}), http.StatusOK)
				body := r.JSON(t)
				wantFields(t, body, "workspaceId", "userId", "role")
				if body["workspaceId"] != w.team || body["userId"] != dana.ID || body["role"] != "MEMBER" {
					t.Fatalf("%q: body %v", email, body)
				}
			}
			if n := len(checkWorkspace(t, findWorkspace(t, s, w.annRW, w.team), "Team", "OWNER")); n != 3 {
				t.Fatalf("%d members after re-inviting, want 3", n)
			}
		})
		t.Run("inviting an owner returns the OWNER membership", func(t *testing.T) {
			r := apitest.Must(t, s.Post(t, w.annRW, membersPath, map[string]any{"email": w.ann.Email}), http.StatusOK)
			if body := r.JSON(t); body["userId"] != w.ann.ID || body["role"] != "OWNER" {
				t.Fatalf("body %v", body)
			}
		})
		t.Run("the email is matched case-insensitively", func(t *testing.T) {
			erin := s.NewUser(t, "Erin Case")
			r := apitest.Must(t, s.Post(t, w.annRW, membersPath, map[string]any{"email": strings.ToUpper(erin.Email)}), http.StatusCreated)
			if r.JSON(t)["userId"] != erin.ID {
				t.Fatalf("body %s", r.Body)
			}
		})
		t.Run("a workspace key of an owner invites", func(t *testing.T) {
			fay := s.NewUser(t, "Fay Key")
			apitest.Must(t, s.Post(t, w.annTeam, membersPath, map[string]any{"email": fay.Email}), http.StatusCreated)
		})
		t.Run("rejected", func(t *testing.T) {
			outsider := s.NewUser(t, "Gus Outsider")
			for _, tc := range []struct {
				name, key, path string
				body            map[string]any
				status          int
				code            string
				mention         string
			}{
				{"unknown email", w.annRW, membersPath, map[string]any{"email": "nobody-" + ids.New() + "@example.com"}, 400, "VALIDATION_ERROR", `"email"`},
				{"not an email", w.annRW, membersPath, map[string]any{"email": "not an email"}, 400, "VALIDATION_ERROR", `"email"`},
				{"empty email", w.annRW, membersPath, map[string]any{"email": ""}, 400, "VALIDATION_ERROR", `"email"`},
				{"missing email", w.annRW, membersPath, map[string]any{}, 400, "MISSING_FIELD", `"email"`},
				{"malformed workspace id", w.annRW, "/workspaces/not-an-id/members", map[string]any{"email": outsider.Email}, 404, "WORKSPACE_NOT_FOUND", ""},
				{"unknown workspace id", w.annRW, "/workspaces/" + ids.New() + "/members", map[string]any{"email": outsider.Email}, 404, "WORKSPACE_NOT_FOUND", ""},
				{"unknown workspace and unknown email", w.annRW, "/workspaces/" + ids.New() + "/members", map[string]any{"email": "nobody@example.com"}, 404, "WORKSPACE_NOT_FOUND", ""},
				{"a notebook id as workspace id", w.annRW, "/workspaces/" + w.teamNB + "/members", map[string]any{"email": outsider.Email}, 404, "WORKSPACE_NOT_FOUND", ""},
				{"a member cannot invite", w.bobRW, membersPath, map[string]any{"email": outsider.Email}, 403, "INSUFFICIENT_SCOPE", ""},
				{"a non-member cannot invite", w.carlRW, membersPath, map[string]any{"email": outsider.Email}, 403, "NOT_WORKSPACE_MEMBER", ""},
				{"a workspace key names another workspace", w.annTeam, "/workspaces/" + w.carlWS + "/members", map[string]any{"email": outsider.Email}, 403, "KEY_WORKSPACE_MISMATCH", ""},
				{"a notebook key", w.annTeamNB, membersPath, map[string]any{"email": outsider.Email}, 403, "INSUFFICIENT_SCOPE", ""},
				{"a read-only key", w.annRead, membersPath, map[string]any{"email": outsider.Email}, 403, "INSUFFICIENT_SCOPE", ""},
			} {
				t.Run(tc.name, func(t *testing.T) {
					var mentions []string
					if tc.mention != "" {
						mentions = []string{tc.mention}
					}
					wantErr(t, s.Post(t, tc.key, tc.path, tc.body), tc.status, tc.code, mentions...)
				})
			}
			if findWorkspace(t, s, s.NewKey(t, outsider, auth.ScopeRead), w.team) != nil {
				t.Fatal("a rejected invitation made the outsider a member")
			}
		})
	})
}

func TestRemoveMember(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		invite := func(t *testing.T, ws string, u apitest.User) {
			t.Helper()
			apitest.Must(t, s.Post(t, w.annRW, "/workspaces/"+ws+"/members", map[string]any{"email": u.Email}), http.StatusCreated)
		}
		remove := func(t *testing.T, key, ws, userID string) apitest.Response {
			t.Helper()
			return s.Delete(t, key, "/workspaces/"+ws+"/members/"+userID)
		}
		membersOf := func(t *testing.T, key, ws string) []member {
			t.Helper()
			found := findWorkspace(t, s, key, ws)
			if found == nil {
				t.Fatalf("workspace %s not listed", ws)
			}
			return checkWorkspace(t, found, found["name"].(string), found["role"].(string))
		}

		t.Run("a member removes themselves", func(t *testing.T) {
			hal := s.NewUser(t, "Hal Leaver")
			halKey := s.NewKey(t, hal, auth.ScopeReadWrite)
			invite(t, w.team, hal)
			r := apitest.Must(t, remove(t, halKey, w.team, hal.ID), http.StatusOK)
			if string(r.Body) != `{"ok":true}` {
				t.Fatalf("body %s", r.Body)
			}
			if findWorkspace(t, s, halKey, w.team) != nil {
				t.Fatal("Hal still sees Team")
			}
			if !sameMembers(membersOf(t, w.annRW, w.team), []member{memberOf(w.ann, "OWNER"), memberOf(w.bob, "MEMBER")}) {
				t.Fatalf("members after Hal left: %v", membersOf(t, w.annRW, w.team))
			}
		})
		t.Run("an owner removes a member", func(t *testing.T) {
			ivy := s.NewUser(t, "Ivy Removed")
			invite(t, w.team, ivy)
			r := apitest.Must(t, remove(t, w.annRW, w.team, ivy.ID), http.StatusOK)
			if string(r.Body) != `{"ok":true}` {
				t.Fatalf("body %s", r.Body)
			}
			if got := membersOf(t, w.annRW, w.team); len(got) != 2 {
				t.Fatalf("members after removing Ivy: %v", got)
			}
			// Removed twice: no longer a member.
			wantErr(t, remove(t, w.annRW, w.team, ivy.ID), 403, "NOT_WORKSPACE_MEMBER")
		})
		t.Run("an owner's workspace key removes a member", func(t *testing.T) {
			jo := s.NewUser(t, "Jo Removed")
			invite(t, w.team, jo)
			apitest.Must(t, remove(t, w.annTeam, w.team, jo.ID), http.StatusOK)
		})
		t.Run("an owner removes another owner", func(t *testing.T) {
			ws := apitest.Must(t, s.Post(t, w.annRW, "/workspaces", map[string]any{"name": "Two owners"}), http.StatusCreated).Str(t, "id")
			kim := s.NewUser(t, "Kim Owner")
			invite(t, ws, kim)
			makeOwner(t, s, ws, kim.ID)
			apitest.Must(t, remove(t, w.annRW, ws, kim.ID), http.StatusOK)
			if got := membersOf(t, w.annRW, ws); !sameMembers(got, []member{memberOf(w.ann, "OWNER")}) {
				t.Fatalf("members %v", got)
			}
		})
		t.Run("an owner leaves while another owner remains", func(t *testing.T) {
			ws := apitest.Must(t, s.Post(t, w.annRW, "/workspaces", map[string]any{"name": "Handover"}), http.StatusCreated).Str(t, "id")
			lee := s.NewUser(t, "Lee Successor")
			invite(t, ws, lee)
			makeOwner(t, s, ws, lee.ID)
			apitest.Must(t, remove(t, w.annRW, ws, w.ann.ID), http.StatusOK)
			if findWorkspace(t, s, w.annRW, ws) != nil {
				t.Fatal("Ann still sees the workspace she left")
			}
			if got := membersOf(t, s.NewKey(t, lee, auth.ScopeRead), ws); !sameMembers(got, []member{memberOf(lee, "OWNER")}) {
				t.Fatalf("members %v", got)
			}
		})
		t.Run("rejected", func(t *testing.T) {
			ws := apitest.Must(t, s.Post(t, w.annRW, "/workspaces", map[string]any{"name": "Solo"}), http.StatusCreated).Str(t, "id")
			mo := s.NewUser(t, "Mo Member")
			invite(t, ws, mo)
			moKey := s.NewKey(t, mo, auth.ScopeReadWrite)
			for _, tc := range []struct {
				name, key, ws, user string
				status              int
				code                string
			}{
				{"the last owner removes themselves", w.annRW, ws, w.ann.ID, 400, "VALIDATION_ERROR"},
				{"a user who is not a member", w.annRW, ws, w.carl.ID, 403, "NOT_WORKSPACE_MEMBER"},
				{"an unknown user id", w.annRW, ws, ids.New(), 403, "NOT_WORKSPACE_MEMBER"},
				{"a malformed user id", w.annRW, ws, "not-an-id", 403, "NOT_WORKSPACE_MEMBER"},
				{"a member removes the owner", moKey, ws, w.ann.ID, 403, "INSUFFICIENT_SCOPE"},
				{"a malformed workspace id", w.annRW, "not-an-id", mo.ID, 404, "WORKSPACE_NOT_FOUND"},
				{"an unknown workspace id", w.annRW, ids.New(), mo.ID, 404, "WORKSPACE_NOT_FOUND"},
				{"a non-member caller", w.carlRW, ws, mo.ID, 403, "NOT_WORKSPACE_MEMBER"},
				{"a non-member removing themselves", w.carlRW, ws, w.carl.ID, 403, "NOT_WORKSPACE_MEMBER"},
				{"a workspace key naming another workspace", w.annTeam, ws, mo.ID, 403, "KEY_WORKSPACE_MISMATCH"},
				{"a notebook key", w.annTeamNB, ws, mo.ID, 403, "INSUFFICIENT_SCOPE"},
				{"a read-only key", w.annRead, ws, mo.ID, 403, "INSUFFICIENT_SCOPE"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					wantErr(t, remove(t, tc.key, tc.ws, tc.user), tc.status, tc.code)
				})
			}
			if got := membersOf(t, w.annRW, ws); !sameMembers(got, []member{memberOf(w.ann, "OWNER"), memberOf(mo, "MEMBER")}) {
				t.Fatalf("rejected removals changed the members: %v", got)
			}
			if msg := remove(t, w.annRW, ws, w.ann.ID).JSON(t)["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "OWNER") {
				t.Fatalf("the last-owner message %q does not say why", msg)
			}
		})

		t.Run("after Bob is removed his keys lose the workspace at once", func(t *testing.T) {
			bobTeam := s.NewKey(t, w.bob, auth.ScopeReadWrite, apitest.KeyOpts{Workspace: w.team})
			bobTeamNB := s.NewKey(t, w.bob, auth.ScopeReadWrite, apitest.KeyOpts{Notebook: w.teamNB})
			bobNB := apitest.Must(t, s.Post(t, w.bobRW, "/notebooks", map[string]any{"name": "Bob personal"}), http.StatusCreated).Str(t, "id")
			// Warm the key cache: every key works before the removal.
			for _, key := range []string{w.bobRW, bobTeam, bobTeamNB} {
				apitest.Must(t, s.Get(t, key, "/notebooks/"+w.teamNB), http.StatusOK)
				apitest.Must(t, s.Get(t, key, "/notebooks"), http.StatusOK)
			}
			if findWorkspace(t, s, bobTeam, w.team) == nil {
				t.Fatal("Bob's workspace key does not see Team before the removal")
			}

			apitest.Must(t, remove(t, w.annRW, w.team, w.bob.ID), http.StatusOK)

			t.Run("unrestricted key: the workspace and its notebooks are gone", func(t *testing.T) {
				if findWorkspace(t, s, w.bobRW, w.team) != nil {
					t.Fatal("Bob still lists Team")
				}
				got := listIDs(t, s, w.bobRW, "/notebooks?limit=100")
				if containsID(got, w.teamNB) || !containsID(got, bobNB) {
					t.Fatalf("Bob's notebooks %v: want his own and not Team Notes", got)
				}
				wantErr(t, s.Get(t, w.bobRW, "/notebooks/"+w.teamNB), 404, "NOTEBOOK_NOT_FOUND")
				wantErr(t, s.Post(t, w.bobRW, "/notebooks", map[string]any{"name": "x", "workspaceId": w.team}), 403, "NOT_WORKSPACE_MEMBER")
				wantErr(t, remove(t, w.bobRW, w.team, w.bob.ID), 403, "NOT_WORKSPACE_MEMBER")
				// His own things still work.
				apitest.Must(t, s.Get(t, w.bobRW, "/notebooks/"+bobNB), http.StatusOK)
			})
			for _, k := range []struct{ name, key string }{{"workspace key", bobTeam}, {"notebook key in the workspace", bobTeamNB}} {
				t.Run(k.name+": 403 NOT_WORKSPACE_MEMBER on every call", func(t *testing.T) {
					for _, rq := range []apitest.Request{
						{Method: "GET", Path: "/notebooks"},
						{Method: "GET", Path: "/notebooks/" + w.teamNB},
						{Method: "GET", Path: "/notebooks/" + ids.New()},
						{Method: "POST", Path: "/notebooks", Body: map[string]any{"name": "x"}},
						{Method: "GET", Path: "/workspaces"},
						{Method: "POST", Path: "/workspaces/" + w.team + "/members", Body: map[string]any{"email": w.bob.Email}},
						{Method: "DELETE", Path: "/workspaces/" + w.team + "/members/" + w.bob.ID},
						{Method: "GET", Path: "/audit-log"},
					} {
						rq.Key = k.key
						r := s.Do(t, rq)
						if r.Status != 403 || r.ErrorCode(t) != "NOT_WORKSPACE_MEMBER" {
							t.Errorf("%s %s: %d %s, want 403 NOT_WORKSPACE_MEMBER", rq.Method, rq.Path, r.Status, r.Body)
							continue
						}
						apitest.CheckEnvelope(t, r, 403, "NOT_WORKSPACE_MEMBER")
					}
				})
			}
			t.Run("the remaining members are unaffected", func(t *testing.T) {
				apitest.Must(t, s.Get(t, w.annTeam, "/notebooks/"+w.teamNB), http.StatusOK)
				if got := membersOf(t, w.annRW, w.team); len(got) != 1 || got[0].UserID != w.ann.ID {
					t.Fatalf("members %v", got)
				}
			})
			t.Run("re-invited, Bob's workspace key works again at once", func(t *testing.T) {
				invite(t, w.team, w.bob)
				apitest.Must(t, s.Get(t, bobTeam, "/notebooks/"+w.teamNB), http.StatusOK)
				apitest.Must(t, s.Get(t, bobTeamNB, "/notebooks/"+w.teamNB), http.StatusOK)
				apitest.Must(t, s.Get(t, w.bobRW, "/notebooks/"+w.teamNB), http.StatusOK)
			})
		})
	})
}

// TestRemoveOwnersConcurrently has two owners remove each other at the same moment, many times:
// exactly one removal wins and the workspace always keeps an OWNER.
func TestRemoveOwnersConcurrently(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for round := range 20 {
			ws := apitest.Must(t, s.Post(t, w.annRW, "/workspaces", map[string]any{"name": fmt.Sprintf("Duel %d", round)}), http.StatusCreated).Str(t, "id")
			apitest.Must(t, s.Post(t, w.annRW, "/workspaces/"+ws+"/members", map[string]any{"email": w.bob.Email}), http.StatusCreated)
			makeOwner(t, s, ws, w.bob.ID)

			var (
				wg      sync.WaitGroup
				start   = make(chan struct{})
				results [2]apitest.Response
			)
			for i, rq := range []struct{ key, target string }{{w.annRW, w.bob.ID}, {w.bobRW, w.ann.ID}} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					results[i] = s.Delete(t, rq.key, "/workspaces/"+ws+"/members/"+rq.target)
				}()
			}
			close(start)
			wg.Wait()

			wins := 0
			for _, r := range results {
				switch {
				case r.Status == 200:
					wins++
				case r.Status == 403 && r.ErrorCode(t) == "NOT_WORKSPACE_MEMBER", r.Status == 400 && r.ErrorCode(t) == "VALIDATION_ERROR":
				default:
					t.Fatalf("round %d: unexpected %d %s", round, r.Status, r.Body)
				}
			}
			if wins != 1 {
				t.Fatalf("round %d: %d removals succeeded, want exactly 1: %s / %s", round, wins, results[0].Body, results[1].Body)
			}
			// Whoever is left sees the workspace with themselves as its only member, an OWNER.
			var owners int
			for _, u := range []struct {
				user apitest.User
				key  string
			}{{w.ann, w.annRW}, {w.bob, w.bobRW}} {
				found := findWorkspace(t, s, u.key, ws)
				if found == nil {
					continue
				}
				for _, m := range checkWorkspace(t, found, fmt.Sprintf("Duel %d", round), "OWNER") {
					if m.Role == "OWNER" {
						owners++
					}
					if m.UserID != u.user.ID {
						t.Fatalf("round %d: %s sees member %v", round, u.user.Name, m)
					}
				}
			}
			if owners != 1 {
				t.Fatalf("round %d: %d OWNERs left, want 1", round, owners)
			}
		}
	})
}
