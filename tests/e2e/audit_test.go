package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/modules/accounts"
	"folio/modules/audit"
	"folio/modules/versions"
	"folio/platform/auth"
	"folio/platform/config"
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
	t.Parallel()
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

// auditCount is the number of audit entries on one resource, read from the table itself (every
// principal's view of the log is narrower than "all").
func auditCount(t testing.TB, s *apitest.Server, resourceID string) int64 {
	t.Helper()
	var n int64
	if err := s.DB.Table("audit_entries").Where("resource_id = ?", resourceID).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// auditActor is who an entry should name: a key (its name and display prefix) or a session.
type auditActor struct{ name, prefix *string }

func keyActor(t testing.TB, s *apitest.Server, u apitest.User, raw string) auditActor {
	t.Helper()
	_, name, prefix := auditKeyInfo(t, s, u, raw)
	return auditActor{&name, &prefix}
}

// wantEntry is one expected audit entry.
type wantEntry struct {
	action string
	actor  auditActor
}

// entriesFor returns, newest first, the entries on resourceID that key sees in the audit log
// (walking every page of the resourceType's log).
func entriesFor(t testing.TB, s *apitest.Server, key, query, resourceID string) []map[string]any {
	t.Helper()
	var out []map[string]any
	cursor := ""
	for {
		path := "/audit-log?limit=100&" + query
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		r := s.Get(t, key, path)
		entries, _ := auditPage(t, r)
		for _, e := range entries {
			if e["resourceId"] == resourceID {
				out = append(out, e)
			}
		}
		next, more := nextCursor(t, r)
		if !more {
			return out
		}
		cursor = next
	}
}

func checkEntries(t testing.TB, got []map[string]any, resourceType, resourceID string, want []wantEntry) {
	t.Helper()
	actions := make([]string, len(got))
	for i, e := range got {
		actions[i] = fmt.Sprint(e["action"])
	}
	wantActions := make([]string, len(want))
	for i, e := range want {
		wantActions[i] = e.action
	}
	if !slices.Equal(actions, wantActions) {
		t.Fatalf("entries on %s %s: %v, want %v", resourceType, resourceID, actions, wantActions)
	}
	for i, e := range got {
		wantFields(t, e, "id", "action", "resourceType", "resourceId", "apiKeyName", "apiKeyPrefix", "createdAt")
		if e["resourceType"] != resourceType || e["resourceId"] != resourceID || !wireTimeRE.MatchString(fmt.Sprint(e["createdAt"])) {
			t.Fatalf("entry %v", e)
		}
		a := want[i].actor
		if (a.name == nil) != (e["apiKeyName"] == nil) || (a.name != nil && e["apiKeyName"] != *a.name) ||
			(a.prefix == nil) != (e["apiKeyPrefix"] == nil) || (a.prefix != nil && e["apiKeyPrefix"] != *a.prefix) {
			t.Fatalf("entry %s names key %v / %v, want %v / %v", e["action"], e["apiKeyName"], e["apiKeyPrefix"], deref(a.name), deref(a.prefix))
		}
	}
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// TestContentAuditEntries: every write on a note or a task leaves exactly one entry
// (<kind>.create, update, suggest, approve, reject, delete) naming the resource and the key that
// acted (null for a session), and each principal sees the entries CONTRACT.md section 7 gives it:
// its own user's (session or unrestricted key), its workspace's, or its notebook's.
func TestContentAuditEntries(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		session := s.OpenSession(t, w.ann)
		bySession := func(method, path string) apitest.Response {
			return s.Do(t, apitest.Request{Method: method, Path: path, Header: apitest.SessionHeader(session.Token, session.CSRFToken)})
		}
		teamKey, teamNBKey := keyActor(t, s, w.ann, w.annTeam), keyActor(t, s, w.ann, w.annTeamNB)
		annRW, annWrite := keyActor(t, s, w.ann, w.annRW), keyActor(t, s, w.ann, w.annWrite)
		personalNB, bob := keyActor(t, s, w.ann, w.annPersonalNB), keyActor(t, s, w.bob, w.bobRW)
		sessionActor := auditActor{}
		teamKeyID, _, _ := auditKeyInfo(t, s, w.ann, w.annTeam)
		bobKeyID, _, _ := auditKeyInfo(t, s, w.bob, w.bobRW)

		for _, kind := range []string{"note", "task"} {
			t.Run(kind, func(t *testing.T) {
				base, field := "/"+kind+"s", textField(kind)
				// A Team item through its life, by six different principals.
				id := newContent(t, s, w.annTeam, kind, w.teamNB, "first #draft")
				p := base + "/" + id
				apitest.Must(t, patch(t, s, w.annTeamNB, p, map[string]any{field: "second"}), http.StatusOK)
				sg := apitest.Must(t, s.Post(t, w.bobRW, p+"/suggest", map[string]any{"content": "third"}), http.StatusCreated).Str(t, "id")
				apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+sg+"/approve", nil), http.StatusOK)
				sg = apitest.Must(t, s.Post(t, w.bobRW, p+"/suggest", map[string]any{"content": "fourth"}), http.StatusCreated).Str(t, "id")
				apitest.Must(t, bySession("POST", "/suggestions/"+sg+"/reject"), http.StatusOK)
				apitest.Must(t, s.Delete(t, w.annWrite, p), http.StatusOK)

				all := []wantEntry{
					{kind + ".delete", annWrite}, {kind + ".reject", sessionActor}, {kind + ".suggest", bob},
					{kind + ".approve", annRW}, {kind + ".suggest", bob}, {kind + ".update", teamNBKey}, {kind + ".create", teamKey},
				}
				byAnn := []wantEntry{all[0], all[1], all[3], all[5], all[6]}
				byBob := []wantEntry{all[2], all[4]}
				q := "resourceType=" + kind
				for _, tc := range []struct {
					name, key, query string
					want             []wantEntry
				}{
					{"workspace key: the workspace's entries, every author", w.annTeamRead, q, all},
					{"workspace key, whole log", w.annTeam, "", all},
					{"Team notebook key: the notebook's entries", w.annTeamNB, q, all},
					{"Ann's unrestricted key: what Ann did (keys and session)", w.annRW, q, byAnn},
					{"Bob's key: what Bob did", w.bobRW, q, byBob},
					{"Ann's personal notebook key: nothing of Team", w.annPersonalNB, q, nil},
					{"Carl: nothing", w.carlRW, "", nil},
					{"apiKeyId of Ann's workspace key", w.annRW, q + "&apiKeyId=" + teamKeyID, all[6:]},
					{"apiKeyId of Bob's key, asked by Ann", w.annRW, q + "&apiKeyId=" + bobKeyID, nil},
					{"apiKeyId of Bob's key, asked by Bob", w.bobRW, "apiKeyId=" + bobKeyID, byBob},
					{"the other resourceType", w.annTeam, "resourceType=" + map[string]string{"note": "task", "task": "note"}[kind], nil},
				} {
					checkEntries(t, entriesFor(t, s, tc.key, tc.query, id), kind, id, tc.want)
				}
				// The session sees what its user did, like Ann's unrestricted key.
				r := bySession("GET", "/audit-log?limit=100&"+q)
				var got []map[string]any
				for _, e := range apitest.Must(t, r, http.StatusOK).Data(t) {
					if e["resourceId"] == id {
						got = append(got, e)
					}
				}
				checkEntries(t, got, kind, id, byAnn)

				// A personal item moved into Team: each entry stays with the notebook it was written in.
				id = newContent(t, s, w.annPersonalNB, kind, w.annNB, "private")
				p = base + "/" + id
				apitest.Must(t, patch(t, s, w.annRW, p, map[string]any{"notebookId": w.teamNB}), http.StatusOK)
				created, moved := wantEntry{kind + ".create", personalNB}, wantEntry{kind + ".update", annRW}
				checkEntries(t, entriesFor(t, s, w.annRW, q, id), kind, id, []wantEntry{moved, created})
				checkEntries(t, entriesFor(t, s, w.annPersonalNB, q, id), kind, id, []wantEntry{created})
				checkEntries(t, entriesFor(t, s, w.annTeam, q, id), kind, id, []wantEntry{moved})
				checkEntries(t, entriesFor(t, s, w.bobRW, q, id), kind, id, nil)
				checkEntries(t, entriesFor(t, s, w.annTeamNB, q, id), kind, id, []wantEntry{moved})
			})
		}
	})
}

// auditTotal is the number of audit entries in the database.
func auditTotal(t testing.TB, s *apitest.Server) int64 {
	t.Helper()
	var n int64
	if err := s.DB.Table("audit_entries").Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// TestContentAuditFailedWrites: a write that fails writes no entry, whatever stage it fails at
// (scope, shape, access, item limit, a resolved suggestion), and leaves everything as it was.
func TestContentAuditFailedWrites(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		full := apitest.Must(t, s.Post(t, w.annRW, "/notebooks", map[string]any{"name": "full"}), http.StatusCreated).Str(t, "id")
		newContent(t, s, w.annRW, "note", full, "one")
		newContent(t, s, w.annRW, "task", full, "two")
		note := "/notes/" + newContent(t, s, w.annRW, "note", w.annNB, "personal #kept")
		task := "/tasks/" + newContent(t, s, w.annRW, "task", w.teamNB, "team #kept")
		gone := "/notes/" + newContent(t, s, w.annRW, "note", w.annNB, "deleted")
		apitest.Must(t, s.Delete(t, w.annRW, gone), http.StatusOK)
		approved := apitest.Must(t, s.Post(t, w.annRW, note+"/suggest", map[string]any{"content": "approved"}), http.StatusCreated).Str(t, "id")
		apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+approved+"/approve", nil), http.StatusOK)
		pending := apitest.Must(t, s.Post(t, w.annRW, note+"/suggest", map[string]any{"content": "pending"}), http.StatusCreated).Str(t, "id")
		onTask := apitest.Must(t, s.Post(t, w.bobRW, task+"/suggest", map[string]any{"content": "pending on the task"}), http.StatusCreated).Str(t, "id")

		for _, tc := range []struct {
			name, key, method, path string
			body                    any
			status                  int
			code                    string
		}{
			{"create in a full notebook", w.annRW, "POST", "/notes", contentBody("note", full, "three"), 403, "ITEM_LIMIT_REACHED"},
			{"create a task in a full notebook", w.annRW, "POST", "/tasks", contentBody("task", full, "three"), 403, "ITEM_LIMIT_REACHED"},
			{"move into a full notebook, with new content", w.annRW, "PATCH", note, map[string]any{"notebookId": full, "content": "moved #lost"}, 403, "ITEM_LIMIT_REACHED"},
			{"move a task into a full notebook, with new notes", w.annRW, "PATCH", task, map[string]any{"notebookId": full, "notes": "moved #lost", "status": "DONE"}, 403, "ITEM_LIMIT_REACHED"},
			{"create with an image", w.annRW, "POST", "/notes", contentBody("note", w.annNB, "![i](x.png)"), 400, "INVALID_MARKDOWN"},
			{"create by a read key", w.annRead, "POST", "/tasks", contentBody("task", w.annNB, "x"), 403, "INSUFFICIENT_SCOPE"},
			{"create in another notebook than the key's", w.annTeamNB, "POST", "/notes", contentBody("note", w.annNB, "x"), 403, "KEY_NOTEBOOK_MISMATCH"},
			{"create outside the key's workspace", w.annTeam, "POST", "/tasks", contentBody("task", w.annNB, "x"), 403, "KEY_WORKSPACE_MISMATCH"},
			{"create in Carl's notebook", w.annRW, "POST", "/notes", contentBody("note", w.carlNB, "x"), 404, "NOTEBOOK_NOT_FOUND"},
			{"patch another user's note", w.carlRW, "PATCH", note, map[string]any{"content": "carl was here"}, 404, "NOTE_NOT_FOUND"},
			{"patch with a bad status", w.annRW, "PATCH", task, map[string]any{"status": "done", "notes": "x"}, 400, "VALIDATION_ERROR"},
			{"patch a deleted note", w.annRW, "PATCH", gone, map[string]any{"content": "back"}, 404, "NOTE_NOT_FOUND"},
			{"delete a deleted note", w.annRW, "DELETE", gone, nil, 404, "NOTE_NOT_FOUND"},
			{"delete by a member, of a personal note", w.bobRW, "DELETE", note, nil, 404, "NOTE_NOT_FOUND"},
			{"suggest on a deleted note", w.annRW, "POST", gone + "/suggest", map[string]any{"content": "x"}, 404, "NOTE_NOT_FOUND"},
			{"suggest with a long rationale", w.annRW, "POST", note + "/suggest", map[string]any{"content": "x", "rationale": strings.Repeat("r", 2001)}, 400, "VALIDATION_ERROR"},
			{"suggest by an outsider", w.carlRW, "POST", task + "/suggest", map[string]any{"content": "x"}, 404, "TASK_NOT_FOUND"},
			{"approve an approved suggestion", w.annRW, "POST", "/suggestions/" + approved + "/approve", nil, 409, "SUGGESTION_ALREADY_RESOLVED"},
			{"reject an approved suggestion", w.annRW, "POST", "/suggestions/" + approved + "/reject", nil, 409, "SUGGESTION_ALREADY_RESOLVED"},
			{"approve another user's suggestion", w.carlRW, "POST", "/suggestions/" + pending + "/approve", nil, 404, "SUGGESTION_NOT_FOUND"},
			{"reject outside the key's notebook", w.annPersonalNB, "POST", "/suggestions/" + onTask + "/reject", nil, 404, "SUGGESTION_NOT_FOUND"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before, noteBefore, taskBefore := auditTotal(t, s), s.Get(t, w.annRW, note).Body, s.Get(t, w.annRW, task).Body
				wantErr(t, s.Do(t, apitest.Request{Method: tc.method, Path: tc.path, Key: tc.key, Body: tc.body}), tc.status, tc.code)
				if after := auditTotal(t, s); after != before {
					t.Fatalf("a failed write left %d audit entries", after-before)
				}
				if got := s.Get(t, w.annRW, note).Body; string(got) != string(noteBefore) {
					t.Fatalf("the note changed:\n%s\n%s", noteBefore, got)
				}
				if got := s.Get(t, w.annRW, task).Body; string(got) != string(taskBefore) {
					t.Fatalf("the task changed:\n%s\n%s", taskBefore, got)
				}
			})
		}
	}, func(c *config.Config) { c.NotebookItemLimit = 2 })
}

// injectFailure makes the database refuse the statements of table matching when (a SQL condition
// on NEW), until the returned function is called: a fault in the middle of a write's transaction.
func injectFailure(t *testing.T, s *apitest.Server, event, table, when string) func() {
	t.Helper()
	var stmts []string
	drop := "DROP TRIGGER folio_test_fault"
	if s.IsPostgres() {
		stmts = []string{
			`CREATE OR REPLACE FUNCTION folio_test_fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`,
			fmt.Sprintf("CREATE TRIGGER folio_test_fault BEFORE %s ON %s FOR EACH ROW WHEN (%s) EXECUTE FUNCTION folio_test_fault()", event, table, when),
		}
		drop += " ON " + table
	} else {
		stmts = []string{fmt.Sprintf("CREATE TRIGGER folio_test_fault BEFORE %s ON %s WHEN %s BEGIN SELECT RAISE(ABORT, 'injected failure'); END", event, table, when)}
	}
	for _, stmt := range stmts {
		if err := s.DB.Exec(stmt).Error; err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	return func() {
		if err := s.DB.Exec(drop).Error; err != nil {
			t.Fatalf("%s: %v", drop, err)
		}
	}
}

// TestContentAuditSameTransaction: the entry and the change are one transaction. When writing the
// entry fails, the change is not made (content, notebook, tags, snapshots, item counts); when a
// step after the entry fails (marking an approved suggestion), the entry is not kept either.
func TestContentAuditSameTransaction(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		snapshots := func(kind, id string) int {
			snaps, err := versions.NewStore(nil, nil).List(t.Context(), s.DB, kind, id)
			if err != nil {
				t.Fatal(err)
			}
			return len(snaps)
		}
		itemCount := func(nb string) int {
			var n int
			if err := s.DB.Table("notebooks").Select("item_count").Where("id = ?", nb).Scan(&n).Error; err != nil {
				t.Fatal(err)
			}
			return n
		}
		for _, kind := range []string{"note", "task"} {
			t.Run(kind, func(t *testing.T) {
				base, field := "/"+kind+"s", textField(kind)
				p := base + "/" + newContent(t, s, w.annRW, kind, w.teamNB, "stable #before")
				id := strings.TrimPrefix(p, base+"/")
				sg := apitest.Must(t, s.Post(t, w.bobRW, p+"/suggest", map[string]any{"content": "suggested #after"}), http.StatusCreated).Str(t, "id")
				state := func() string {
					return string(s.Get(t, w.annRW, p).Body) + string(s.Get(t, w.annRW, p+"/suggestions").Body) +
						fmt.Sprint(snapshots(kind, id), itemCount(w.teamNB), itemCount(w.annNB), auditCount(t, s, id))
				}
				var rows int64
				countRows := func() int64 {
					if err := s.DB.Table(kind + "s").Count(&rows).Error; err != nil {
						t.Fatal(err)
					}
					return rows
				}
				for _, tc := range []struct {
					name               string
					event, table, when string
					method, path       string
					body               any
				}{
					{"update: the entry fails", "INSERT", "audit_entries", fmt.Sprintf("NEW.action = '%s.update'", kind),
						"PATCH", p, map[string]any{field: "changed #during", "notebookId": w.annNB}},
					{"delete: the entry fails", "INSERT", "audit_entries", fmt.Sprintf("NEW.action = '%s.delete'", kind),
						"DELETE", p, nil},
					{"create: the entry fails", "INSERT", "audit_entries", fmt.Sprintf("NEW.action = '%s.create'", kind),
						"POST", base, contentBody(kind, w.teamNB, "never #created")},
					{"suggest: the entry fails", "INSERT", "audit_entries", fmt.Sprintf("NEW.action = '%s.suggest'", kind),
						"POST", p + "/suggest", map[string]any{"content": "never suggested"}},
					{"approve: the entry fails", "INSERT", "audit_entries", fmt.Sprintf("NEW.action = '%s.approve'", kind),
						"POST", "/suggestions/" + sg + "/approve", nil},
					{"reject: the entry fails", "INSERT", "audit_entries", fmt.Sprintf("NEW.action = '%s.reject'", kind),
						"POST", "/suggestions/" + sg + "/reject", nil},
					{"approve: marking the suggestion fails after the entry", "UPDATE", "suggestions", "NEW.status = 'APPROVED'",
						"POST", "/suggestions/" + sg + "/approve", nil},
					{"reject: marking the suggestion fails after the entry", "UPDATE", "suggestions", "NEW.status = 'REJECTED'",
						"POST", "/suggestions/" + sg + "/reject", nil},
					{"suggest: superseding fails", "UPDATE", "suggestions", "NEW.status = 'SUPERSEDED'",
						"POST", p + "/suggest", map[string]any{"content": "never suggested"}},
				} {
					t.Run(tc.name, func(t *testing.T) {
						before, total, itemRows := state(), auditTotal(t, s), countRows()
						restore := injectFailure(t, s, tc.event, tc.table, tc.when)
						r := s.Do(t, apitest.Request{Method: tc.method, Path: tc.path, Key: w.annRW, Body: tc.body})
						restore()
						wantErr(t, r, http.StatusInternalServerError, "INTERNAL_ERROR")
						if after := state(); after != before {
							t.Fatalf("the failed write changed state:\n before %s\n after  %s", before, after)
						}
						if got := auditTotal(t, s); got != total {
							t.Fatalf("the failed write left %d audit entries", got-total)
						}
						if got := countRows(); got != itemRows {
							t.Fatalf("the failed write left %d %s rows", got-itemRows, kind)
						}
					})
				}
				// With the fault gone, the same writes go through and each leaves its entry.
				n := auditCount(t, s, id)
				apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+sg+"/approve", nil), http.StatusOK)
				apitest.Must(t, patch(t, s, w.annRW, p, map[string]any{field: "changed #after"}), http.StatusOK)
				if got := auditCount(t, s, id); got != n+2 {
					t.Fatalf("approve and update wrote %d entries, want 2", got-n)
				}
			})
		}
	})
}
