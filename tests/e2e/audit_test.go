package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/modules/accounts"

	"folio/modules/audit"
	"folio/platform/auth"
	"folio/platform/ids"
	"folio/tests/apitest"
)

// auditKeyInfo returns the stored id and name of one of a user's keys, found by its raw form.
func auditKeyInfo(t testing.TB, s *apitest.Server, u apitest.User, raw string) (id, name, displayPrefix string) {
	t.Helper()
	prefix, _, err := auth.ParseKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := s.Accounts.Keys(t.Context(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.Prefix == prefix {
			return k.ID, k.Name, "svc_live_" + prefix
		}
	}
	t.Fatalf("no key with prefix %s", prefix)
	return "", "", ""
}

// auditPage decodes an audit log page, checking that every id is a JSON integer and that ids
// strictly decrease. It returns the entries and their resourceIds in order.
func auditPage(t testing.TB, r apitest.Response) (entries []map[string]any, resourceIDs []string) {
	t.Helper()
	apitest.Must(t, r, http.StatusOK)
	var page struct {
		Data       []map[string]any `json:"data"`
		NextCursor *string          `json:"nextCursor"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	if err := dec.Decode(&page); err != nil || page.Data == nil {
		t.Fatalf("not an audit page (%v): %s", err, r.Body)
	}
	prev := int64(-1)
	for _, e := range page.Data {
		num, ok := e["id"].(json.Number)
		if !ok {
			t.Fatalf("id %#v is not a JSON number", e["id"])
		}
		id, err := strconv.ParseInt(num.String(), 10, 64)
		if err != nil || id <= 0 {
			t.Fatalf("id %s is not a positive integer", num)
		}
		if prev != -1 && id >= prev {
			t.Fatalf("ids are not in descending order: %d after %d", id, prev)
		}
		prev = id
		resourceIDs = append(resourceIDs, e["resourceId"].(string))
	}
	return page.Data, resourceIDs
}

func TestAuditLog(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		create := func(key string, body map[string]any) string {
			t.Helper()
			return apitest.Must(t, s.Post(t, key, "/notebooks", body), http.StatusCreated).Str(t, "id")
		}
		// In newWorld: Ann (annRW) created annNB then teamNB; Carl created carlNB.
		bobTeamNB := create(w.bobRW, map[string]any{"name": "Bob in Team", "workspaceId": w.team})
		bobNB := create(w.bobRW, map[string]any{"name": "Bob personal"})
		annWriteNB := create(w.annWrite, map[string]any{"name": "Ann via write key"})

		sess, err := s.Accounts.OpenSession(t.Context(), accounts.User{ID: w.ann.ID})
		if err != nil {
			t.Fatal(err)
		}
		cookie := map[string]string{"Cookie": auth.SessionCookie + "=" + sess.Token}
		sessionNB := apitest.Must(t, s.Do(t, apitest.Request{Method: "POST", Path: "/notebooks",
			Body:   map[string]any{"name": "Ann via session", "workspaceId": w.team},
			Header: map[string]string{"Cookie": cookie["Cookie"], auth.CSRFHeader: sess.CSRFToken}}), http.StatusCreated).Str(t, "id")
		sessionGet := func(path string) apitest.Response {
			return s.Do(t, apitest.Request{Method: "GET", Path: path, Header: cookie})
		}

		t.Run("entry made with a key", func(t *testing.T) {
			_, name, prefix := auditKeyInfo(t, s, w.ann, w.annRW)
			entries, _ := auditPage(t, s.Get(t, w.annRW, "/audit-log"))
			var e map[string]any
			for _, x := range entries {
				if x["resourceId"] == w.annNB {
					e = x
				}
			}
			if e == nil {
				t.Fatalf("no entry for %s", w.annNB)
			}
			wantFields(t, e, "id", "action", "resourceType", "resourceId", "apiKeyName", "apiKeyPrefix", "createdAt")
			if e["action"] != "notebook.create" || e["resourceType"] != "notebook" {
				t.Fatalf("entry %v", e)
			}
			if e["apiKeyName"] != name {
				t.Fatalf("apiKeyName %#v, want %q", e["apiKeyName"], name)
			}
			if got, _ := e["apiKeyPrefix"].(string); got != prefix || len(got) != 17 || !strings.HasPrefix(w.annRW, got+"_") {
				t.Fatalf("apiKeyPrefix %#v, want %q (17 characters, the start of the key)", e["apiKeyPrefix"], prefix)
			}
			if v, _ := e["createdAt"].(string); !wireTimeRE.MatchString(v) {
				t.Fatalf("createdAt %#v", e["createdAt"])
			}
		})
		t.Run("entry made with another key names that key", func(t *testing.T) {
			_, name, prefix := auditKeyInfo(t, s, w.ann, w.annWrite)
			entries, _ := auditPage(t, s.Get(t, w.annRW, "/audit-log?limit=100"))
			for _, e := range entries {
				if e["resourceId"] == annWriteNB {
					if e["apiKeyName"] != name || e["apiKeyPrefix"] != prefix {
						t.Fatalf("entry %v, want key %q %q", e, name, prefix)
					}
					return
				}
			}
			t.Fatal("no entry for the write key's notebook")
		})
		t.Run("entry made through a session has null key fields", func(t *testing.T) {
			entries, _ := auditPage(t, sessionGet("/audit-log"))
			if len(entries) == 0 || entries[0]["resourceId"] != sessionNB {
				t.Fatalf("newest entry is not the session's notebook: %v", entries)
			}
			e := entries[0]
			wantFields(t, e, "id", "action", "resourceType", "resourceId", "apiKeyName", "apiKeyPrefix", "createdAt")
			if e["apiKeyName"] != nil || e["apiKeyPrefix"] != nil {
				t.Fatalf("apiKeyName %#v apiKeyPrefix %#v, want null and null", e["apiKeyName"], e["apiKeyPrefix"])
			}
			if e["action"] != "notebook.create" || e["resourceType"] != "notebook" {
				t.Fatalf("entry %v", e)
			}
		})
		var tempNB string // made by a key revoked since
		t.Run("an entry keeps the key's name and prefix after the key is revoked", func(t *testing.T) {
			temp := s.NewKey(t, w.ann, auth.ScopeReadWrite)
			_, name, prefix := auditKeyInfo(t, s, w.ann, temp)
			tempNB = create(temp, map[string]any{"name": "Made by a temporary key"})
			if _, err := s.Accounts.RevokeKey(t.Context(), prefix); err != nil {
				t.Fatal(err)
			}
			entries, _ := auditPage(t, s.Get(t, w.annRW, "/audit-log"))
			if entries[0]["resourceId"] != tempNB || entries[0]["apiKeyName"] != name || entries[0]["apiKeyPrefix"] != prefix {
				t.Fatalf("newest entry %v, want %s by %q %q", entries[0], tempNB, name, prefix)
			}
		})

		bobTeamKey := s.NewKey(t, w.bob, auth.ScopeRead, apitest.KeyOpts{Workspace: w.team})
		t.Run("visibility", func(t *testing.T) {
			annAll := []string{tempNB, sessionNB, annWriteNB, w.teamNB, w.annNB}
			teamAll := []string{sessionNB, bobTeamNB, w.teamNB}
			for _, tc := range []struct {
				name string
				get  func(path string) apitest.Response
				want []string
			}{
				{"unrestricted key: every entry its user caused, with any key or session", keyGet(t, s, w.annRW), annAll},
				{"another unrestricted key of the same user sees the same", keyGet(t, s, w.annRead), annAll},
				{"session: every entry its user caused", sessionGet, annAll},
				{"member's unrestricted key: only the member's own entries", keyGet(t, s, w.bobRW), []string{bobNB, bobTeamNB}},
				{"outsider: only their own", keyGet(t, s, w.carlRW), []string{w.carlNB}},
				{"workspace key: entries on the workspace's resources, by any member", keyGet(t, s, w.annTeam), teamAll},
				{"read-only workspace key sees the same", keyGet(t, s, w.annTeamRead), teamAll},
				{"member's workspace key sees the owner's entries in the workspace", keyGet(t, s, bobTeamKey), teamAll},
				{"notebook key: only its notebook's entries", keyGet(t, s, w.annTeamNB), []string{w.teamNB}},
				{"personal notebook key: only its notebook's entries", keyGet(t, s, w.annPersonalNB), []string{w.annNB}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					entries, got := auditPage(t, tc.get("/audit-log"))
					if strings.Join(got, ",") != strings.Join(tc.want, ",") {
						t.Fatalf("resourceIds %v, want %v", got, tc.want)
					}
					for _, e := range entries {
						if e["action"] != "notebook.create" || e["resourceType"] != "notebook" {
							t.Fatalf("entry %v", e)
						}
					}
				})
			}
		})

		t.Run("resourceType filter", func(t *testing.T) {
			// Notes and tasks have no endpoints in this issue: write their entries directly.
			noteID, taskID := ids.New(), ids.New()
			for _, e := range []audit.Entry{
				{Action: "note.create", ResourceType: "note", ResourceID: noteID, ActorUserID: w.ann.ID, NotebookID: &w.annNB, CreatedAt: time.Now().UTC()},
				{Action: "task.update", ResourceType: "task", ResourceID: taskID, ActorUserID: w.ann.ID, NotebookID: &w.annNB, CreatedAt: time.Now().UTC()},
			} {
				if err := s.DB.Create(&e).Error; err != nil {
					t.Fatal(err)
				}
			}
			for _, tc := range []struct {
				query string
				want  []string
			}{
				{"", []string{taskID, noteID, tempNB, sessionNB, annWriteNB, w.teamNB, w.annNB}},
				{"resourceType=notebook", []string{tempNB, sessionNB, annWriteNB, w.teamNB, w.annNB}},
				{"resourceType=note", []string{noteID}},
				{"resourceType=task", []string{taskID}},
				{"resourceType=note&limit=1", []string{noteID}},
			} {
				t.Run(tc.query, func(t *testing.T) {
					_, got := auditPage(t, s.Get(t, w.annRW, withQuery("/audit-log", tc.query)))
					if strings.Join(got, ",") != strings.Join(tc.want, ",") {
						t.Fatalf("resourceIds %v, want %v", got, tc.want)
					}
				})
			}
			// A notebook key sees the note and task entries of its notebook.
			_, got := auditPage(t, s.Get(t, w.annPersonalNB, "/audit-log?resourceType=note"))
			if strings.Join(got, ",") != noteID {
				t.Fatalf("notebook key, resourceType=note: %v", got)
			}
			for _, bad := range []string{"notes", "Notebook", "NOTE", "workspace", "note,task", "tag", "%20note"} {
				t.Run("bad "+bad, func(t *testing.T) {
					wantErr(t, s.Get(t, w.annRW, "/audit-log?resourceType="+bad), 400, "VALIDATION_ERROR", "resourceType")
				})
			}
		})

		t.Run("apiKeyId filter", func(t *testing.T) {
			rwID, _, _ := auditKeyInfo(t, s, w.ann, w.annRW)
			writeID, _, _ := auditKeyInfo(t, s, w.ann, w.annWrite)
			readID, _, _ := auditKeyInfo(t, s, w.ann, w.annRead)
			bobID, _, _ := auditKeyInfo(t, s, w.bob, w.bobRW)
			for _, tc := range []struct {
				name, key, keyID string
				want             []string
			}{
				{"the key that made Ann's first notebooks", w.annRW, rwID, []string{w.teamNB, w.annNB}},
				{"the write key", w.annRW, writeID, []string{annWriteNB}},
				{"a key that never wrote", w.annRW, readID, nil},
				{"an unknown key id", w.annRW, ids.New(), nil},
				{"another user's key", w.annRW, bobID, nil},
				{"a workspace key narrows its workspace's entries to one of its user's keys", w.annTeam, rwID, []string{w.teamNB}},
				{"a workspace key and another member's key", w.annTeam, bobID, nil},
				{"a notebook key", w.annPersonalNB, rwID, []string{w.annNB}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					_, got := auditPage(t, s.Get(t, tc.key, "/audit-log?apiKeyId="+tc.keyID))
					if strings.Join(got, ",") != strings.Join(tc.want, ",") {
						t.Fatalf("resourceIds %v, want %v", got, tc.want)
					}
				})
			}
			for _, bad := range []string{"abc", "12345", strings.ToUpper(rwID), rwID + "x", "svc_live_ABCDEFGH"} {
				t.Run("malformed "+bad, func(t *testing.T) {
					wantErr(t, s.Get(t, w.annRW, "/audit-log?apiKeyId="+bad), 400, "VALIDATION_ERROR", "apiKeyId")
				})
			}
			t.Run("combined with resourceType", func(t *testing.T) {
				_, got := auditPage(t, s.Get(t, w.annRW, "/audit-log?resourceType=notebook&apiKeyId="+writeID))
				if strings.Join(got, ",") != annWriteNB {
					t.Fatalf("resourceIds %v", got)
				}
				_, got = auditPage(t, s.Get(t, w.annRW, "/audit-log?resourceType=note&apiKeyId="+writeID))
				if len(got) != 0 {
					t.Fatalf("resourceIds %v, want none", got)
				}
			})
		})
	})
}

// keyGet returns a GET with the given key.
func keyGet(t *testing.T, s *apitest.Server, key string) func(path string) apitest.Response {
	return func(path string) apitest.Response { return s.Get(t, key, path) }
}
