package web

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"folio/tests/apitest"
)

var (
	itemETagRe = regexp.MustCompile(`name="item_etag" value="([^"]*)"`)
	versionRe  = regexp.MustCompile(`data-version="([^"]+)"`)
)

// itemETag is the item version a page's approve or restore form sends.
func itemETag(t *testing.T, p page) string {
	t.Helper()
	m := itemETagRe.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("no item_etag field on the page:\n%s", p.Text)
	}
	return strings.ReplaceAll(m[1], "&#34;", `"`)
}

var tagRe = regexp.MustCompile(`<[^>]+>`)

// wantSaid fails the test unless the page, read as text without its markup (as a screen reader
// would), says every text.
func wantSaid(t *testing.T, p page, texts ...string) {
	t.Helper()
	plain := html.UnescapeString(tagRe.ReplaceAllString(p.Body, ""))
	for _, s := range texts {
		if !strings.Contains(plain, s) {
			t.Fatalf("the page (status %d) does not say %q:\n%s", p.Status, s, plain)
		}
	}
}

// reviewFixture is a person signed in to the UI with a notebook, a note and a task, and an
// assistant key of theirs that proposes changes over the API.
type reviewFixture struct {
	s          *apitest.Server
	b          *browser
	key        string
	notebook   string
	note, task string
	noteText   string
	taskTitle  string
	taskNotes  string
}

func newReviewFixture(t *testing.T, kind string) *reviewFixture {
	s := apitest.Start(t, kind)
	b := newBrowser(t, s)
	signUp(t, b, "Rita Reviewer")
	f := &reviewFixture{s: s, b: b, key: createKey(t, b, "Research assistant", 3, "")}
	f.notebook = apitest.Must(t, s.Post(t, f.key, "/notebooks", map[string]any{"name": "Planning"}), 201).Str(t, "id")
	f.noteText = "Q4 plan\n\nShip the importer in #october.\n\nOwner: @dana"
	f.note = apitest.Must(t, s.Post(t, f.key, "/notes", map[string]any{"notebookId": f.notebook, "content": f.noteText}), 201).Str(t, "id")
	f.taskTitle, f.taskNotes = "Write the launch email", "Draft by Friday."
	f.task = apitest.Must(t, s.Post(t, f.key, "/tasks", map[string]any{"notebookId": f.notebook, "title": f.taskTitle, "notes": f.taskNotes}), 201).Str(t, "id")
	return f
}

func (f *reviewFixture) suggest(t *testing.T, kind, id, content, rationale string) string {
	t.Helper()
	return apitest.Must(t, f.s.Post(t, f.key, "/"+kind+"s/"+id+"/suggest", map[string]any{"content": content, "rationale": rationale}), 201).Str(t, "id")
}

// TestReviewPages: a person reviews what an assistant key proposed, through the pages alone (no
// JavaScript): the list of pending suggestions, a suggestion's diff, approve (the API then shows
// the new content and a version of the old), reject, a stale approve's conflict page, the
// history with a restore, and who may see what. On SQLite and PostgreSQL.
func TestReviewPages(t *testing.T) {
	apitest.EachDB(t, func(t *testing.T, kind string) {
		f := newReviewFixture(t, kind)
		s, b := f.s, f.b
		newText := "Q4 plan\n\nShip the importer in #november.\n\nOwner: @dana"
		noteSug := f.suggest(t, "note", f.note, newText, "The vendor slipped a month.")
		taskSug := f.suggest(t, "task", f.task, "Draft by Thursday.", "Legal needs a day.")

		// The list: both, newest first, with item, notebook, who and state.
		p := b.get("/review")
		want(t, p, http.StatusOK, "Review", "Q4 plan", "Write the launch email", "Planning", "key “Research assistant” (svc_live_", "Pending")
		if strings.Index(p.Body, taskSug) > strings.Index(p.Body, noteSug) {
			t.Fatalf("the newest suggestion (the task's) is not first:\n%s", p.Text)
		}
		if p.Header.Get("Content-Security-Policy") == "" || p.Header.Get("X-Frame-Options") != "DENY" || p.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("the review page lacks the settings UI's security headers: %v", p.Header)
		}

		// The suggestion: a diff whose lines are marked in text, the rationale, the two forms.
		p = b.get("/review/suggestions/" + noteSug)
		want(t, p, http.StatusOK, "Suggested change to “Q4 plan”", "The vendor slipped a month.", "Approve", "Reject")
		wantSaid(t, p, "Removed: Ship the importer in #october.", "Added: Ship the importer in #november.")
		if !strings.Contains(p.Body, "<del>") || !strings.Contains(p.Body, "<ins>") || strings.Contains(tagRe.ReplaceAllString(p.Body, ""), "Added: Q4 plan") {
			t.Fatalf("the diff is not marked line by line:\n%s", p.Body)
		}
		noteETag := itemETag(t, p)

		// Approve without the form's token: refused, nothing changed.
		want(t, b.post("/review/suggestions/"+noteSug+"/approve", url.Values{"item_etag": {noteETag}}), http.StatusForbidden, "This form has expired")
		// Approve: the API shows the new content, and the old one as a version.
		wantRedirect(t, b.submit("/review/suggestions/"+noteSug+"/approve", url.Values{"item_etag": {noteETag}}), "/review?done=approved")
		want(t, b.get("/review?done=approved"), http.StatusOK, "Approved.")
		if got := apitest.Must(t, s.Get(t, f.key, "/notes/"+f.note), 200).Str(t, "content"); got != newText {
			t.Fatalf("after approval the note says %q", got)
		}
		versions := apitest.Must(t, s.Get(t, f.key, "/notes/"+f.note+"/versions"), 200).Data(t)
		if len(versions) != 1 || versions[0]["reason"] != "suggestion" {
			t.Fatalf("versions after approval: %v", versions)
		}
		old := apitest.Must(t, s.Get(t, f.key, fmt.Sprintf("/notes/%s/versions/%s", f.note, versions[0]["id"])), 200).Str(t, "content")
		if old != f.noteText {
			t.Fatalf("the version keeps %q, want the original", old)
		}
		// Approving again (an old tab): already decided, nothing changes.
		want(t, b.submit("/review/suggestions/"+noteSug+"/approve", url.Values{"item_etag": {noteETag}}), http.StatusConflict, "Already decided")

		// A stale approve: the task changes after the page is shown; the conflict page says so and
		// nothing is overwritten; opened again, the page shows the two changes of the one line side
		// by side, and offers no change to approve.
		p = b.get("/review/suggestions/" + taskSug)
		want(t, p, http.StatusOK, "Write the launch email")
		wantSaid(t, p, "Removed: Draft by Friday.", "Added: Draft by Thursday.")
		staleETag := itemETag(t, p)
		apitest.Must(t, s.Do(t, apitest.Request{Method: http.MethodPatch, Path: "/tasks/" + f.task, Key: f.key, Body: map[string]any{"notes": "Draft by Friday, reviewed by Sam."}}), 200)
		want(t, b.get("/review"), http.StatusOK, "Stale")
		p = b.submit("/review/suggestions/"+taskSug+"/approve", url.Values{"item_etag": {staleETag}})
		want(t, p, http.StatusPreconditionFailed, "This task changed since you opened it", "nothing was overwritten", "Open it again")
		if got := apitest.Must(t, s.Get(t, f.key, "/tasks/"+f.task), 200).Str(t, "notes"); got != "Draft by Friday, reviewed by Sam." {
			t.Fatalf("a stale approve changed the task: %q", got)
		}
		p = b.get("/review/suggestions/" + taskSug)
		want(t, p, http.StatusOK, "Conflicts", "When proposed", "Now", "Suggested", "Conflict 1, at line 1 of the current content",
			`<td class="conflict-base"><span class="line">Draft by Friday.</span></td>`,
			`<td class="conflict-current"><span class="line">Draft by Friday, reviewed by Sam.</span></td>`,
			`<td class="conflict-suggested"><span class="line">Draft by Thursday.</span></td>`,
			"No change can be applied without a conflict.")
		if strings.Contains(string(p.Body), `id="approve"`) {
			t.Fatalf("a suggestion with nothing to apply offers to approve:\n%s", p.Body)
		}
		// Reject it: the content stays, the suggestion is REJECTED.
		wantRedirect(t, b.submit("/review/suggestions/"+taskSug+"/reject", nil), "/review?done=rejected")
		sug := apitest.Must(t, s.Get(t, f.key, "/suggestions/"+taskSug), 200)
		if sug.Str(t, "status") != "REJECTED" {
			t.Fatalf("after reject the suggestion is %s", sug.Str(t, "status"))
		}
		want(t, b.get("/review"), http.StatusOK, "Nothing to review")

		// History: the version with what replaced it and who; view it; restore it.
		p = b.get("/review/notes/" + f.note + "/history")
		want(t, p, http.StatusOK, "History of “Q4 plan”", "replaced by an approved suggestion", "you")
		m := versionRe.FindStringSubmatch(p.Body)
		if m == nil {
			t.Fatalf("no version row:\n%s", p.Text)
		}
		p = b.get("/review/notes/" + f.note + "/history/" + m[1])
		want(t, p, http.StatusOK, "Ship the importer in #october.", "Restore this version?")
		wantSaid(t, p, "Removed: Ship the importer in #november.", "Added: Ship the importer in #october.")
		restoreETag := itemETag(t, p)
		// A change meanwhile: the restore is refused with the conflict page.
		apitest.Must(t, s.Do(t, apitest.Request{Method: http.MethodPatch, Path: "/notes/" + f.note, Key: f.key, Body: map[string]any{"content": newText + "\n\nUpdated."}}), 200)
		want(t, b.submit("/review/notes/"+f.note+"/history/"+m[1]+"/restore", url.Values{"item_etag": {restoreETag}}), http.StatusPreconditionFailed, "This note changed since you opened it")
		p = b.get("/review/notes/" + f.note + "/history/" + m[1])
		wantRedirect(t, b.submit("/review/notes/"+f.note+"/history/"+m[1]+"/restore", url.Values{"item_etag": {itemETag(t, p)}}), "/review/notes/"+f.note+"/history?done=restored")
		if got := apitest.Must(t, s.Get(t, f.key, "/notes/"+f.note), 200).Str(t, "content"); got != f.noteText {
			t.Fatalf("after restore the note says %q", got)
		}
		want(t, b.get("/review/notes/"+f.note+"/history?done=restored"), http.StatusOK, "Restored.", "replaced by a restore", "replaced by an edit")
		tags := apitest.Must(t, s.Get(t, f.key, "/notes/"+f.note), 200).JSON(t)["tags"]
		if !strings.Contains(fmt.Sprint(tags), "october") {
			t.Fatalf("restore did not re-derive the tags: %v", tags)
		}

		// Someone else: sees nothing of it, can decide nothing, and a signed-out browser is sent
		// to sign in.
		third := f.suggest(t, "note", f.note, "Q4 plan\n\nCancelled.", "")
		other := newBrowser(t, s)
		signUp(t, other, "Olga Other")
		want(t, other.get("/review"), http.StatusOK, "Nothing to review")
		want(t, other.get("/review/suggestions/"+third), http.StatusNotFound, "Not found")
		want(t, other.submit("/review/suggestions/"+third+"/approve", url.Values{"item_etag": {`"v1"`}}), http.StatusNotFound)
		want(t, other.get("/review/notes/"+f.note+"/history"), http.StatusNotFound)
		want(t, other.submit("/review/notes/"+f.note+"/history/"+m[1]+"/restore", url.Values{"item_etag": {`"v1"`}}), http.StatusNotFound)
		wantRedirect(t, newBrowser(t, s).get("/review"), signInFor("/review"))
		if got := apitest.Must(t, s.Get(t, f.key, "/suggestions/"+third), 200).Str(t, "status"); got != "PENDING" {
			t.Fatalf("another user's approve changed the suggestion: %s", got)
		}
		// A form without the version the page showed (hand-made, or "*") is refused like a change
		// meanwhile: it would otherwise apply whatever happened since.
		for _, v := range []string{"", "*"} {
			want(t, b.submit("/review/suggestions/"+third+"/approve", url.Values{"item_etag": {v}}), http.StatusPreconditionFailed, "changed since you opened it")
			want(t, b.submit("/review/notes/"+f.note+"/history/"+m[1]+"/restore", url.Values{"item_etag": {v}}), http.StatusPreconditionFailed, "This note changed since you opened it")
		}
		if got := apitest.Must(t, s.Get(t, f.key, "/suggestions/"+third), 200).Str(t, "status"); got != "PENDING" {
			t.Fatalf("an approve without the shown version changed the suggestion: %s", got)
		}
		// A removed Markdown rule ("---", "----" in the diff) and a line starting with "--" show
		// as removed lines: only the diff's two header lines are left out.
		ruled := apitest.Must(t, s.Post(t, f.key, "/notes", map[string]any{"notebookId": f.notebook, "content": "team note\n\n---\n\nline after rule\n\n-- signed"}), 201).Str(t, "id")
		ruledSug := f.suggest(t, "note", ruled, "team note\n\nline after rule", "")
		wantSaid(t, b.get("/review/suggestions/"+ruledSug), "Removed: ---", "Removed: -- signed")
		// A well-formed cursor that names none of their suggestions (or versions) starts over.
		wantRedirect(t, b.get("/review?cursor="+f.note), "/review")
		wantRedirect(t, b.get("/review/notes/"+f.note+"/history?cursor="+f.task), "/review/notes/"+f.note+"/history")
		// Every review page has the settings UI's security headers.
		for _, path := range []string{"/review/suggestions/" + third, "/review/notes/" + f.note + "/history", "/review/notes/" + f.note + "/history/" + m[1]} {
			if h := b.get(path).Header; h.Get("Content-Security-Policy") == "" || h.Get("X-Frame-Options") != "DENY" || h.Get("Cache-Control") != "no-store" {
				t.Fatalf("%s lacks the security headers: %v", path, h)
			}
		}
		// Unknown ids are a page, never a 500.
		want(t, b.get("/review/suggestions/nope"), http.StatusNotFound)
		want(t, b.get("/review/tasks/nope/history"), http.StatusNotFound)
		want(t, b.get("/review/notes/"+f.note+"/history/nope"), http.StatusNotFound)
		want(t, b.get("/review?cursor=%00"), http.StatusSeeOther)
	})
}

// TestReviewPagination: the list pages by 20, newest first, with a link to the older ones.
func TestReviewPagination(t *testing.T) {
	f := newReviewFixture(t, "sqlite")
	var ids []string
	for i := range 23 {
		note := apitest.Must(t, f.s.Post(t, f.key, "/notes", map[string]any{"notebookId": f.notebook, "content": fmt.Sprintf("Note %02d", i)}), 201).Str(t, "id")
		ids = append(ids, f.suggest(t, "note", note, fmt.Sprintf("Note %02d, edited", i), ""))
	}
	p := f.b.get("/review")
	want(t, p, http.StatusOK, "Older suggestions")
	rows := regexp.MustCompile(`data-suggestion="([^"]+)"`).FindAllStringSubmatch(p.Body, -1)
	if len(rows) != 20 || rows[0][1] != ids[22] {
		t.Fatalf("first page: %d rows, first %v; want 20, newest first", len(rows), rows[0])
	}
	next := regexp.MustCompile(`href="(/review\?cursor=[^"]+)" rel="next"`).FindStringSubmatch(p.Body)
	if next == nil {
		t.Fatal("no next link")
	}
	p = f.b.get(strings.ReplaceAll(next[1], "&amp;", "&"))
	rows2 := regexp.MustCompile(`data-suggestion="([^"]+)"`).FindAllStringSubmatch(p.Body, -1)
	if len(rows2) != 3 || p.Contains("Older suggestions") || rows2[2][1] != ids[0] {
		t.Fatalf("second page: %d rows", len(rows2))
	}
}
