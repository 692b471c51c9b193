package e2e

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"folio/tests/apitest"
)

// TestAccessMatrix sends every endpoint of the foundation with every kind of principal and checks
// the status and code of each cell. Keys that do not authenticate get 401 everywhere; the other
// columns are spelled out per row.
func TestAccessMatrix(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		keys := map[string]string{
			"none": "", "garbage": "svc_live_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB", "malformed": "not-a-key",
			"revoked": w.annRevoked, "rotated": w.annRotatedAway,
			"read": w.annRead, "write": w.annWrite, "rw": w.annRW, "ws": w.annTeam, "wsRead": w.annTeamRead,
			"nbTeam": w.annTeamNB, "nbPersonal": w.annPersonalNB, "carl": w.carlRW, "bob": w.bobRW,
		}
		dan := s.NewUser(t, "Dan Temp")
		const (
			ok      = "200"
			created = "201"
			scope   = "403 INSUFFICIENT_SCOPE"
			nbMis   = "403 KEY_NOTEBOOK_MISMATCH"
			wsMis   = "403 KEY_WORKSPACE_MISMATCH"
			notMem  = "403 NOT_WORKSPACE_MEMBER"
			nbGone  = "404 NOTEBOOK_NOT_FOUND"
		)
		rows := []struct {
			name         string
			method, path string
			body         any
			setup        func(t *testing.T)
			want         map[string]string
		}{
			{name: "list notebooks", method: "GET", path: "/notebooks",
				want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": ok, "carl": ok, "bob": ok}},
			{name: "get personal notebook", method: "GET", path: "/notebooks/" + w.annNB,
				want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": wsMis, "wsRead": wsMis, "nbTeam": nbMis, "nbPersonal": ok, "carl": nbGone, "bob": nbGone}},
			{name: "get workspace notebook", method: "GET", path: "/notebooks/" + w.teamNB,
				want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": nbMis, "carl": nbGone, "bob": ok}},
			{name: "create notebook without workspace", method: "POST", path: "/notebooks", body: map[string]any{"name": "n"},
				want: map[string]string{"read": scope, "write": created, "rw": created, "ws": created, "wsRead": scope, "nbTeam": scope, "nbPersonal": scope, "carl": created, "bob": created}},
			{name: "create notebook in Team", method: "POST", path: "/notebooks", body: map[string]any{"name": "n", "workspaceId": w.team},
				want: map[string]string{"read": scope, "write": created, "rw": created, "ws": created, "wsRead": scope, "nbTeam": scope, "nbPersonal": scope, "carl": notMem, "bob": created}},
			{name: "create notebook in Carl's workspace", method: "POST", path: "/notebooks", body: map[string]any{"name": "n", "workspaceId": w.carlWS},
				want: map[string]string{"read": scope, "write": notMem, "rw": notMem, "ws": wsMis, "wsRead": scope, "nbTeam": scope, "nbPersonal": scope, "carl": created, "bob": notMem}},
			{name: "list workspaces", method: "GET", path: "/workspaces",
				want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": ok, "carl": ok, "bob": ok}},
			{name: "create workspace", method: "POST", path: "/workspaces", body: map[string]any{"name": "w"},
				want: map[string]string{"read": scope, "write": created, "rw": created, "ws": scope, "wsRead": scope, "nbTeam": scope, "nbPersonal": scope, "carl": created, "bob": created}},
			{name: "invite to Team (already a member)", method: "POST", path: "/workspaces/" + w.team + "/members", body: map[string]any{"email": w.bob.Email},
				want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": ok, "wsRead": scope, "nbTeam": scope, "nbPersonal": scope, "carl": notMem, "bob": scope}},
			{name: "invite to Carl's workspace", method: "POST", path: "/workspaces/" + w.carlWS + "/members", body: map[string]any{"email": w.carl.Email},
				want: map[string]string{"read": scope, "write": notMem, "rw": notMem, "ws": wsMis, "wsRead": scope, "nbTeam": scope, "nbPersonal": scope, "carl": ok, "bob": notMem}},
			{name: "remove a member of Team", method: "DELETE", path: "/workspaces/" + w.team + "/members/" + dan.ID,
				setup: func(t *testing.T) {
					s.Post(t, w.annRW, "/workspaces/"+w.team+"/members", map[string]any{"email": dan.Email})
				},
				want: map[string]string{"read": scope, "write": ok, "rw": ok, "ws": ok, "wsRead": scope, "nbTeam": scope, "nbPersonal": scope, "carl": notMem, "bob": scope}},
			{name: "audit log", method: "GET", path: "/audit-log",
				want: map[string]string{"read": ok, "write": scope, "rw": ok, "ws": ok, "wsRead": ok, "nbTeam": ok, "nbPersonal": ok, "carl": ok, "bob": ok}},
		}
		for _, row := range rows {
			t.Run(row.name, func(t *testing.T) {
				for _, col := range []string{"none", "garbage", "malformed", "revoked", "rotated", "read", "write", "rw", "ws", "wsRead", "nbTeam", "nbPersonal", "carl", "bob"} {
					want, listed := row.want[col]
					if !listed {
						want = "401 UNAUTHENTICATED"
					}
					if row.setup != nil {
						row.setup(t)
					}
					r := s.Do(t, apitest.Request{Method: row.method, Path: row.path, Key: keys[col], Body: row.body})
					status, code, _ := strings.Cut(want, " ")
					wantStatus, _ := strconv.Atoi(status)
					if code == "" {
						if r.Status != wantStatus {
							t.Errorf("%s: status %d, want %d: %s", col, r.Status, wantStatus, r.Body)
						}
						continue
					}
					if r.Status != wantStatus || r.ErrorCode(t) != code {
						t.Errorf("%s: got %d %s, want %s: %s", col, r.Status, r.ErrorCode(t), want, r.Body)
					}
				}
			})
		}
	})
}

// TestVisibility checks what each kind of principal sees in the lists, not just that it may list.
func TestVisibility(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		ids := func(key, path string) []string {
			var out []string
			for _, item := range apitest.Must(t, s.Get(t, key, path), http.StatusOK).Data(t) {
				out = append(out, item["id"].(string))
			}
			return out
		}
		for _, tc := range []struct {
			name, key, path string
			want            []string
		}{
			{"unrestricted key sees personal and workspace notebooks", w.annRW, "/notebooks", []string{w.teamNB, w.annNB}},
			{"workspace key sees its workspace's notebooks", w.annTeam, "/notebooks", []string{w.teamNB}},
			{"notebook key sees its notebook", w.annTeamNB, "/notebooks", []string{w.teamNB}},
			{"personal notebook key sees its notebook", w.annPersonalNB, "/notebooks", []string{w.annNB}},
			{"member sees workspace notebooks, not the owner's personal ones", w.bobRW, "/notebooks", []string{w.teamNB}},
			{"outsider sees only their own", w.carlRW, "/notebooks", []string{w.carlNB}},
			{"unrestricted key sees every workspace of its user", w.annRW, "/workspaces", []string{w.team}},
			{"workspace key sees its workspace", w.annTeam, "/workspaces", []string{w.team}},
			{"notebook key sees no workspace", w.annTeamNB, "/workspaces", nil},
			{"member sees the workspace", w.bobRW, "/workspaces", []string{w.team}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got := ids(tc.key, tc.path)
				if strings.Join(got, ",") != strings.Join(tc.want, ",") {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			})
		}
	})
}
