package e2e

import (
	"net/http"
	"slices"
	"testing"

	"folio/modules/accounts"
	"folio/platform/auth"
	"folio/tests/apitest"
)

// TestVersions: every replaced content is a version, listed newest first with what replaced it
// and which key; a version reads back as it was; restoring one is a change of its own (a new
// version, tags and hasDecision derived again, an audit entry, an event, a new ETag) that takes
// If-Match; versions of another item are not found.
func TestVersions(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		_, keyName, prefix := auditKeyInfo(t, s, w.ann, w.annRW)
		id := createNote(t, s, w.annRW, w.teamNB, "v1 #first\n\n> **Decision:** keep")["id"].(string)
		path := "/notes/" + id
		apitest.Must(t, patch(t, s, w.annRW, path, map[string]any{"content": "v2 #second"}), http.StatusOK)
		// Bob proposes v3, Ann approves it: the approval replaces v2.
		sg := apitest.Must(t, suggest(t, s, w.bobRW, "note", id, "v3 #third"), http.StatusCreated).Str(t, "id")
		apitest.Must(t, s.Post(t, w.annRW, "/suggestions/"+sg+"/approve", nil), http.StatusOK)
		// A change through the settings UI's session names no key.
		sess, err := s.Accounts.OpenSession(t.Context(), accounts.User{ID: w.ann.ID})
		if err != nil {
			t.Fatal(err)
		}
		apitest.Must(t, s.Do(t, apitest.Request{Method: "PATCH", Path: path, Body: map[string]any{"content": "v4 #fourth"},
			Header: map[string]string{"Cookie": auth.SessionCookie + "=" + sess.Token, auth.CSRFHeader: sess.CSRFToken}}), http.StatusOK)

		list := apitest.Must(t, s.Get(t, w.bobRW, path+"/versions"), http.StatusOK).Data(t)
		if len(list) != 3 {
			t.Fatalf("%d versions, want 3: %v", len(list), list)
		}
		if got := fieldNames(list[0]); !slices.Equal(got, []string{"apiKeyName", "apiKeyPrefix", "createdAt", "id", "reason"}) {
			t.Fatalf("version fields %v", got)
		}
		byKey := func(v map[string]any) bool { return v["apiKeyName"] == keyName && v["apiKeyPrefix"] == prefix }
		// Newest first: v3 (replaced by the session's PATCH), v2 (by the approval), v1 (by a PATCH).
		if list[0]["reason"] != "update" || list[0]["apiKeyName"] != nil || list[0]["apiKeyPrefix"] != nil ||
			list[1]["reason"] != "suggestion" || !byKey(list[1]) || list[2]["reason"] != "update" || !byKey(list[2]) {
			t.Fatalf("versions %v (Ann's key prefix %s)", list, prefix)
		}
		content := func(v map[string]any) string {
			return apitest.Must(t, s.Get(t, w.annRW, path+"/versions/"+v["id"].(string)), http.StatusOK).Str(t, "content")
		}
		if got := []string{content(list[0]), content(list[1]), content(list[2])}; !slices.Equal(got, []string{"v3 #third", "v2 #second", "v1 #first\n\n> **Decision:** keep"}) {
			t.Fatalf("version contents %q", got)
		}
		// Pages: one version per page, in the same order.
		second := apitest.Must(t, s.Get(t, w.annRW, path+"/versions?limit=1&cursor="+list[0]["id"].(string)), http.StatusOK)
		if d := second.Data(t); len(d) != 1 || d[0]["id"] != list[1]["id"] {
			t.Fatalf("second page %v", d)
		}

		// Restore the approved suggestion's original (v2): tags follow, the audit log and the
		// feed say restore, the ETag moves, and v4 is a version now.
		before := apitest.Must(t, s.Get(t, w.annRW, path), http.StatusOK)
		restored := apitest.Must(t, s.Post(t, w.annRW, path+"/versions/"+list[1]["id"].(string)+"/restore", nil), http.StatusOK)
		note := restored.JSON(t)
		if note["content"] != "v2 #second" || note["hasDecision"] != false || !slices.Equal(tagNames(t, note), []string{"TAG:second"}) {
			t.Fatalf("restored note %v", note)
		}
		if tag := restored.Header.Get("ETag"); tag == "" || tag == before.Header.Get("ETag") || tag != apitest.Must(t, s.Get(t, w.annRW, path), http.StatusOK).Header.Get("ETag") {
			t.Fatalf("ETag after restore %q (before %q)", tag, before.Header.Get("ETag"))
		}
		now := apitest.Must(t, s.Get(t, w.annRW, path+"/versions"), http.StatusOK).Data(t)
		if len(now) != 4 || now[0]["reason"] != "restore" || !byKey(now[0]) || content(now[0]) != "v4 #fourth" {
			t.Fatalf("versions after restore %v", now)
		}
		entries, _ := auditPage(t, s.Get(t, w.annRW, "/audit-log?limit=5"))
		if entries[0]["action"] != "note.restore" || entries[0]["resourceId"] != id {
			t.Fatalf("newest audit entry %v", entries[0])
		}
		// Restore twice: v1 back (its Decision callout too), then v4 back again.
		note = apitest.Must(t, s.Post(t, w.annRW, path+"/versions/"+list[2]["id"].(string)+"/restore", nil), http.StatusOK).JSON(t)
		if note["content"] != "v1 #first\n\n> **Decision:** keep" || note["hasDecision"] != true || !slices.Equal(tagNames(t, note), []string{"TAG:first"}) {
			t.Fatalf("second restore %v", note)
		}
		note = apitest.Must(t, s.Post(t, w.annRW, path+"/versions/"+now[0]["id"].(string)+"/restore", nil), http.StatusOK).JSON(t)
		if note["content"] != "v4 #fourth" || note["hasDecision"] != false {
			t.Fatalf("third restore %v", note)
		}
		if n := len(apitest.Must(t, s.Get(t, w.annRW, path+"/versions?limit=100"), http.StatusOK).Data(t)); n != 6 {
			t.Fatalf("%d versions after three restores, want 6", n)
		}

		// If-Match: a stale ETag is 412 and nothing changes; the current one works.
		stale := before.Header.Get("ETag")
		r := s.Do(t, apitest.Request{Method: "POST", Path: path + "/versions/" + list[2]["id"].(string) + "/restore", Key: w.annRW, Header: map[string]string{"If-Match": stale}})
		wantErr(t, r, http.StatusPreconditionFailed, "PRECONDITION_FAILED")
		if c := apitest.Must(t, s.Get(t, w.annRW, path), http.StatusOK).Str(t, "content"); c != "v4 #fourth" {
			t.Fatalf("content after a refused restore %q", c)
		}
		current := apitest.Must(t, s.Get(t, w.annRW, path), http.StatusOK).Header.Get("ETag")
		apitest.Must(t, s.Do(t, apitest.Request{Method: "POST", Path: path + "/versions/" + list[2]["id"].(string) + "/restore", Key: w.annRW, Header: map[string]string{"If-Match": current}}), http.StatusOK)

		// A version of another item, an unknown one, a malformed id: 404 VERSION_NOT_FOUND.
		other := createNote(t, s, w.annRW, w.teamNB, "other")["id"].(string)
		apitest.Must(t, patch(t, s, w.annRW, "/notes/"+other, map[string]any{"content": "other, changed"}), http.StatusOK)
		otherVersion := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+other+"/versions"), http.StatusOK).Data(t)[0]["id"].(string)
		for _, v := range []string{otherVersion, "zzzzzzzzzzzzzzzzzzzzzzzz", "Not-An-Id"} {
			wantErr(t, s.Get(t, w.annRW, path+"/versions/"+v), http.StatusNotFound, "VERSION_NOT_FOUND")
			wantErr(t, s.Post(t, w.annRW, path+"/versions/"+v+"/restore", nil), http.StatusNotFound, "VERSION_NOT_FOUND")
		}

		// Tasks: the notes are the content.
		task := apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"title": "T", "notebookId": w.teamNB, "notes": "old #t1"}), http.StatusCreated).Str(t, "id")
		apitest.Must(t, patch(t, s, w.annRW, "/tasks/"+task, map[string]any{"notes": "new #t2", "status": "DONE"}), http.StatusOK)
		tv := apitest.Must(t, s.Get(t, w.annRW, "/tasks/"+task+"/versions"), http.StatusOK).Data(t)
		if len(tv) != 1 || tv[0]["reason"] != "update" {
			t.Fatalf("task versions %v", tv)
		}
		got := apitest.Must(t, s.Post(t, w.annRW, "/tasks/"+task+"/versions/"+tv[0]["id"].(string)+"/restore", nil), http.StatusOK).JSON(t)
		if got["notes"] != "old #t1" || got["status"] != "DONE" || !slices.Equal(tagNames(t, got), []string{"TAG:t1"}) {
			t.Fatalf("restored task %v", got)
		}
	})
}
