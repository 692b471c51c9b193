package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"folio/platform/auth"
	"folio/platform/clock"
	"folio/tests/apitest"
)

// TestAuthorizationForms sends every shape of Authorization header a client could get wrong: each
// is 401 UNAUTHENTICATED with the envelope, and only "Bearer <valid key>" gets in.
func TestAuthorizationForms(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		ann := s.NewUser(t, "Ann Forms")
		key := s.NewKey(t, ann, auth.ScopeReadWrite)
		other := s.NewKey(t, ann, auth.ScopeReadWrite)
		prefix, secret, _ := auth.ParseKey(key)
		_, otherSecret, _ := auth.ParseKey(other)
		unknown, _, _ := auth.NewKey()
		_, freshSecret, _ := auth.NewKey()

		for _, tc := range []struct {
			name        string
			header      string // "" sends no Authorization header
			status      int
			wantMessage string // a substring of error.message, when set
		}{
			{name: "missing header", header: "", status: 401, wantMessage: "Authorization"},
			{name: "Basic scheme", header: "Basic x", status: 401},
			{name: "Basic scheme with a valid key", header: "Basic " + key, status: 401},
			{name: "Token scheme with a valid key", header: "Token " + key, status: 401},
			{name: "Bearer alone", header: "Bearer", status: 401},
			{name: "Bearer and spaces", header: "Bearer    ", status: 401},
			{name: "key without scheme", header: key, status: 401},
			{name: "wrong shape: not a key", header: "Bearer not-a-key", status: 401},
			{name: "wrong shape: short parts", header: "Bearer svc_live_abc_def", status: 401},
			{name: "wrong shape: other literal", header: "Bearer svc_test_" + prefix + "_" + secret, status: 401},
			{name: "wrong shape: one character too many", header: "Bearer " + key + "x", status: 401},
			{name: "wrong shape: one character too few", header: "Bearer " + key[:len(key)-1], status: 401},
			{name: "wrong shape: non-alphanumeric in secret", header: "Bearer " + key[:len(key)-1] + "-", status: 401},
			{name: "wrong shape: separator moved", header: "Bearer svc_live_" + prefix + secret[:1] + "_" + secret[1:], status: 401},
			{name: "right shape, unknown prefix", header: "Bearer " + unknown, status: 401},
			{name: "right prefix, random secret", header: "Bearer svc_live_" + prefix + "_" + freshSecret, status: 401},
			{name: "right prefix, another key's secret", header: "Bearer svc_live_" + prefix + "_" + otherSecret, status: 401},
			{name: "two keys", header: "Bearer " + key + " " + other, status: 401},
			{name: "valid key", header: "Bearer " + key, status: 200},
			{name: "valid key, scheme in lower case (RFC 9110: case-insensitive)", header: "bearer " + key, status: 200},
		} {
			t.Run(tc.name, func(t *testing.T) {
				h := map[string]string{}
				if tc.header != "" {
					h["Authorization"] = tc.header
				}
				r := s.Do(t, apitest.Request{Method: http.MethodGet, Path: "/notebooks", Header: h})
				if tc.status == 200 {
					apitest.Must(t, r, http.StatusOK)
					return
				}
				apitest.CheckEnvelope(t, r, http.StatusUnauthorized, "UNAUTHENTICATED")
				if msg := errorMessage(t, r); tc.wantMessage != "" && !strings.Contains(msg, tc.wantMessage) {
					t.Fatalf("message %q does not mention %q", msg, tc.wantMessage)
				}
				// A 401 must not tell a guesser anything about the real secret.
				if strings.Contains(string(r.Body), secret) {
					t.Fatalf("the response leaks the secret: %s", r.Body)
				}
			})
		}

		t.Run("wrong secret is rejected whether the key is cached or not", func(t *testing.T) {
			k := s.NewKey(t, ann, auth.ScopeRead)
			p := apitest.KeyPrefix(t, k)
			wrong := "svc_live_" + p + "_" + freshSecret
			apitest.CheckEnvelope(t, s.Get(t, wrong, "/notebooks"), 401, "UNAUTHENTICATED") // cold
			apitest.Must(t, s.Get(t, k, "/notebooks"), 200)                                 // fills the cache
			apitest.CheckEnvelope(t, s.Get(t, wrong, "/notebooks"), 401, "UNAUTHENTICATED") // cached
			apitest.Must(t, s.Get(t, k, "/notebooks"), 200)
		})
	})
}

// TestSession covers the second principal kind: the folio_session cookie of a signed-in web
// session acts as its user with scope 3 and no restriction, and its writes need the CSRF token.
func TestSession(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		sess := s.OpenSession(t, w.ann)
		otherSess := s.OpenSession(t, w.ann)
		dan := s.NewUser(t, "Dan Session")
		apitest.Must(t, s.Post(t, w.annRW, "/workspaces/"+w.team+"/members", map[string]any{"email": dan.Email}), http.StatusCreated)

		cookie := func(csrf string) map[string]string { return apitest.SessionHeader(sess.Token, csrf) }
		withAuth := func(h map[string]string, authz string) map[string]string {
			h["Authorization"] = authz
			return h
		}
		for _, tc := range []struct {
			name   string
			method string
			path   string
			body   any
			header map[string]string
			status int
			code   string
		}{
			{name: "GET with the cookie", method: "GET", path: "/notebooks", header: cookie(""), status: 200},
			{name: "GET of a personal notebook (unrestricted)", method: "GET", path: "/notebooks/" + w.annNB, header: cookie(""), status: 200},
			{name: "GET of a workspace notebook (unrestricted)", method: "GET", path: "/notebooks/" + w.teamNB, header: cookie(""), status: 200},
			{name: "GET of another user's notebook", method: "GET", path: "/notebooks/" + w.carlNB, header: cookie(""), status: 404, code: "NOTEBOOK_NOT_FOUND"},
			{name: "GET ignores a wrong CSRF token", method: "GET", path: "/workspaces", header: cookie("wrong"), status: 200},
			{name: "POST without X-CSRF-Token", method: "POST", path: "/notebooks", body: map[string]any{"name": "s"}, header: cookie(""), status: 403, code: "CSRF_TOKEN_INVALID"},
			{name: "POST with a wrong X-CSRF-Token", method: "POST", path: "/notebooks", body: map[string]any{"name": "s"}, header: cookie("wrong"), status: 403, code: "CSRF_TOKEN_INVALID"},
			{name: "POST with the CSRF token of another session", method: "POST", path: "/notebooks", body: map[string]any{"name": "s"}, header: cookie(otherSess.CSRFToken), status: 403, code: "CSRF_TOKEN_INVALID"},
			{name: "POST with the CSRF token as a prefix", method: "POST", path: "/notebooks", body: map[string]any{"name": "s"}, header: cookie(sess.CSRFToken[:10]), status: 403, code: "CSRF_TOKEN_INVALID"},
			{name: "POST with the right X-CSRF-Token", method: "POST", path: "/notebooks", body: map[string]any{"name": "s"}, header: cookie(sess.CSRFToken), status: 201},
			{name: "POST into a workspace (scope 3, unrestricted)", method: "POST", path: "/notebooks", body: map[string]any{"name": "s", "workspaceId": w.team}, header: cookie(sess.CSRFToken), status: 201},
			{name: "POST /workspaces (a session is not a restricted key)", method: "POST", path: "/workspaces", body: map[string]any{"name": "by session"}, header: cookie(sess.CSRFToken), status: 201},
			{name: "DELETE without X-CSRF-Token", method: "DELETE", path: "/workspaces/" + w.team + "/members/" + dan.ID, header: cookie(""), status: 403, code: "CSRF_TOKEN_INVALID"},
			{name: "DELETE with the right X-CSRF-Token", method: "DELETE", path: "/workspaces/" + w.team + "/members/" + dan.ID, header: cookie(sess.CSRFToken), status: 200},
			{name: "unknown cookie value", method: "GET", path: "/notebooks", header: apitest.SessionHeader("not-a-session", ""), status: 401, code: "UNAUTHENTICATED"},
			{name: "empty cookie value", method: "GET", path: "/notebooks", header: apitest.SessionHeader("", ""), status: 401, code: "UNAUTHENTICATED"},
			{name: "Authorization header wins: bad key + good cookie", method: "GET", path: "/notebooks", header: withAuth(cookie(""), "Bearer not-a-key"), status: 401, code: "UNAUTHENTICATED"},
			{name: "Authorization header wins: revoked key + good cookie", method: "GET", path: "/notebooks", header: withAuth(cookie(""), "Bearer "+w.annRevoked), status: 401, code: "UNAUTHENTICATED"},
			{name: "Authorization header wins: read-only key + good cookie, POST", method: "POST", path: "/notebooks", body: map[string]any{"name": "s"}, header: withAuth(cookie(sess.CSRFToken), "Bearer "+w.annRead), status: 403, code: "INSUFFICIENT_SCOPE"},
			{name: "Authorization header wins: good key, no CSRF needed", method: "POST", path: "/notebooks", body: map[string]any{"name": "k"}, header: withAuth(cookie(""), "Bearer "+w.annRW), status: 201},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.Do(t, apitest.Request{Method: tc.method, Path: tc.path, Body: tc.body, Header: tc.header})
				if tc.code == "" {
					apitest.Must(t, r, tc.status)
				} else {
					apitest.CheckEnvelope(t, r, tc.status, tc.code)
				}
			})
		}

		t.Run("session actions are audited without a key", func(t *testing.T) {
			nb := apitest.Must(t, s.Do(t, apitest.Request{Method: "POST", Path: "/notebooks", Body: map[string]any{"name": "audited"}, Header: cookie(sess.CSRFToken)}), 201).Str(t, "id")
			entries := apitest.Must(t, s.Do(t, apitest.Request{Method: "GET", Path: "/audit-log", Header: cookie("")}), 200).Data(t)
			if len(entries) == 0 || entries[0]["resourceId"] != nb || entries[0]["action"] != "notebook.create" {
				t.Fatalf("newest audit entry is not the session's notebook.create of %s: %v", nb, entries)
			}
			if entries[0]["apiKeyName"] != nil || entries[0]["apiKeyPrefix"] != nil {
				t.Fatalf("a session action names a key: %v", entries[0])
			}
		})

		t.Run("signed out session is refused at once", func(t *testing.T) {
			apitest.Must(t, s.Do(t, apitest.Request{Method: "GET", Path: "/notebooks", Header: cookie("")}), 200) // cached
			if err := s.Accounts.SignOut(context.Background(), sess.Token); err != nil {
				t.Fatal(err)
			}
			apitest.CheckEnvelope(t, s.Do(t, apitest.Request{Method: "GET", Path: "/notebooks", Header: cookie("")}), 401, "UNAUTHENTICATED")
			apitest.CheckEnvelope(t, s.Do(t, apitest.Request{Method: "POST", Path: "/notebooks", Body: map[string]any{"name": "x"}, Header: cookie(sess.CSRFToken)}), 401, "UNAUTHENTICATED")
			// The user's other session is untouched.
			apitest.Must(t, s.Do(t, apitest.Request{Method: "GET", Path: "/notebooks", Header: apitest.SessionHeader(otherSess.Token, "")}), 200)
		})
	})
}

// TestSessionExpiry controls time: a session is accepted until its TTL has passed, then refused.
func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	apitest.ForEachDBWithClock(t, time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC), func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		ann := s.NewUser(t, "Ann Expiry")
		sess := s.OpenSession(t, ann)
		get := func() apitest.Response {
			return s.Do(t, apitest.Request{Method: "GET", Path: "/notebooks", Header: apitest.SessionHeader(sess.Token, "")})
		}
		apitest.Must(t, get(), 200)
		fake.Advance(s.Config.SessionTTL - time.Second)
		apitest.Must(t, get(), 200)
		fake.Advance(time.Second)
		apitest.CheckEnvelope(t, get(), 401, "UNAUTHENTICATED")
	})
}
