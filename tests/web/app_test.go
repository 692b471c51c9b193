package web

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"folio/tests/apitest"
)

// appFixture is a person signed in to the web app with a notebook, a note and a task made over
// the API with the same session.
type appFixture struct {
	s                    *apitest.Server
	b                    *browser
	person               account
	notebook, note, task string
}

func newAppFixture(t *testing.T, kind string) *appFixture {
	t.Helper()
	s := apitest.Start(t, kind)
	b := newBrowser(t, s)
	f := &appFixture{s: s, b: b, person: signUp(t, b, "Mia Manager")}
	f.notebook = f.create(t, "/notebooks", map[string]any{"name": "Leadership"})
	f.note = f.create(t, "/notes", map[string]any{"notebookId": f.notebook,
		"content": "Hiring plan\n\nOpen two #backend roles with @sam.\n\n> **Decision:** start with one senior hire."})
	f.task = f.create(t, "/tasks", map[string]any{"notebookId": f.notebook, "title": "Write the job ad", "notes": "Ask @sam for the #backend stack."})
	return f
}

// create posts a JSON body with the session and returns the new resource's id.
func (f *appFixture) create(t *testing.T, path string, body map[string]any) string {
	t.Helper()
	raw, _ := json.Marshal(body)
	r := f.b.api(http.MethodPost, path, string(raw))
	if r.Status != http.StatusCreated {
		t.Fatalf("POST %s: %d %s", path, r.Status, r.Body)
	}
	var out struct{ ID string }
	if err := json.Unmarshal(r.Body, &out); err != nil || out.ID == "" {
		t.Fatalf("POST %s: %s", path, r.Body)
	}
	return out.ID
}

// content is a note's content as the API reads it.
func (f *appFixture) content(t *testing.T, id string) string {
	t.Helper()
	r := f.b.api(http.MethodGet, "/notes/"+id, "")
	var out struct{ Content string }
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &out) != nil {
		t.Fatalf("GET /notes/%s: %d %s", id, r.Status, r.Body)
	}
	return out.Content
}

var noteVersionRe = regexp.MustCompile(`name="version" value="([^"]+)"`)

func shownVersionOf(t *testing.T, p page) string {
	t.Helper()
	m := noteVersionRe.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("no version on the page:\n%s", p.Body)
	}
	return strings.ReplaceAll(m[1], "&#34;", `"`)
}

// TestAppPages opens every page of the web app over HTTP, on both databases: each answers with
// what it is for and the settings UI's security headers, signed out it goes to /signin.
func TestAppPages(t *testing.T) {
	apitest.EachDB(t, func(t *testing.T, kind string) {
		f := newAppFixture(t, kind)
		for _, tc := range []struct {
			path  string
			texts []string
		}{
			{"/app", []string{"Focus", "On the day", "Follow-ups due", "Tasks due", "in UTC"}},
			{"/app/notebooks", []string{"Leadership"}},
			{"/app/notebooks/" + f.notebook, []string{"Leadership", "Hiring plan", "Write the job ad"}},
			{"/app/notes/" + f.note, []string{"Hiring plan", "Open two", "@sam", "#backend", "Decision", "History"}},
			{"/app/notes/" + f.note + "/edit", []string{"Edit note", "Open two #backend roles with @sam."}},
			{"/app/notes/new?notebookId=" + f.notebook, []string{"New note", "Leadership"}},
			{"/app/notes/" + f.note + "/delete", []string{"Delete “Hiring plan”?"}},
			{"/app/tasks", []string{"To do", "In progress", "Blocked", "Done", "Write the job ad"}},
			{"/app/tasks/" + f.task, []string{"Write the job ad", "To do", "#backend"}},
			{"/app/tasks/" + f.task + "/edit", []string{"Edit task", "Write the job ad", "Ask @sam for the #backend stack."}},
			{"/app/tasks/new?notebookId=" + f.notebook, []string{"New task", "Leadership"}},
			{"/app/notebooks/new", []string{"New notebook", "Personal"}},
			{"/app/people/sam", []string{"@sam", "Hiring plan", "Write the job ad", "start with one senior hire."}},
			{"/app/tags/backend", []string{"#backend", "Hiring plan", "Write the job ad"}},
			{"/app/decisions", []string{"Decisions", "Hiring plan", "start with one senior hire."}},
			{"/app/decisions?notebookId=" + f.notebook, []string{"Hiring plan"}},
			{"/app/search?q=hiring", []string{"Hiring plan"}},
			{"/app/search?q=ad", []string{"Write the job ad"}},
			{"/app/search", []string{"Search"}},
			{"/settings/time-zone", []string{"Time zone"}},
		} {
			p := f.b.get(tc.path)
			want(t, p, http.StatusOK, tc.texts...)
			checkPageHeaders(t, p)
			if strings.Contains(p.Body, "<script>") || strings.Contains(p.Body, " style=") || strings.Contains(p.Body, "<style") {
				t.Fatalf("%s has inline script or style", tc.path)
			}
		}
		// The note's content is HTML built from the document: tags and people link to their pages.
		p := f.b.get("/app/notes/" + f.note)
		for _, s := range []string{`<a class="person" href="/app/people/sam">@sam</a>`, `<a class="tag" href="/app/tags/backend">#backend</a>`, `href="/review/notes/` + f.note + `/history"`} {
			if !strings.Contains(p.Body, s) {
				t.Fatalf("the note page lacks %s", s)
			}
		}
		wantRedirect(t, f.b.get("/"), "/app")

		// A note is named in lists and on its page by the text a reader sees on its first line,
		// not by its Markdown.
		marked := f.create(t, "/notes", map[string]any{"notebookId": f.notebook,
			"content": "## **Q3** plan for \\#hiring [board](https://x.example/b)\n\nMore."})
		for _, path := range []string{"/app/notebooks/" + f.notebook, "/app/notes/" + marked} {
			p := f.b.get(path)
			want(t, p, http.StatusOK, "Q3 plan for #hiring board")
			if strings.Contains(p.Body, `\#hiring`) || strings.Contains(p.Body, "**Q3**") || strings.Contains(p.Body, "[board]") {
				t.Fatalf("%s names the note by its Markdown:\n%s", path, p.Body)
			}
		}

		// Signed out: every page goes to the sign-in page, and so does /.
		out := newBrowser(t, f.s)
		// A page other than Focus is named in next, and the sign-in returns to it; Focus and / are
		// where a sign-in lands anyway.
		for _, path := range []string{"/", "/app"} {
			wantRedirect(t, out.get(path), "/signin")
		}
		for _, path := range []string{"/app/notebooks", "/app/notes/" + f.note, "/app/tasks", "/app/people/sam", "/app/decisions", "/app/search?q=x"} {
			wantRedirect(t, out.get(path), signInFor(path))
		}
		wantRedirect(t, out.post("/app/notes", url.Values{"content": {"x"}}), "/signin")

		// The sign-in page carries next in its form and returns there; a next that names another
		// site (or is not a path) is dropped, and the sign-in lands on Focus.
		creds := url.Values{"email": {f.person.Email}, "password": {f.person.Password}}
		notePage := "/app/notes/" + f.note
		want(t, out.get("/signin?next="+url.QueryEscape(notePage)), http.StatusOK, `name="next" value="`+notePage+`"`)
		wantRedirect(t, out.submit("/signin", url.Values{"email": creds["email"], "password": creds["password"], "next": {notePage}}), notePage)
		want(t, out.get(notePage), http.StatusOK)
		wantRedirect(t, out.get("/signin?next="+url.QueryEscape("/app/tasks")), "/app/tasks") // signed in already
		for _, bad := range []string{"https://evil.example/x", "//evil.example/x", "/\\evil.example/x", "/\t/evil.example/x", "/\n/evil.example/x", "evil.example", "/app\r\nSet-Cookie:x", "javascript:alert(1)"} {
			b := newBrowser(t, f.s)
			if page := b.get("/signin?next=" + url.QueryEscape(bad)); page.Status != http.StatusOK || strings.Contains(page.Body, `name="next"`) {
				t.Fatalf("next=%q: the sign-in page is %d and carries it: %v", bad, page.Status, strings.Contains(page.Body, `name="next"`))
			}
			wantRedirect(t, b.submit("/signin", url.Values{"email": creds["email"], "password": creds["password"], "next": {bad}}), "/app")
		}
	})
}

// TestAppNoteForms creates, previews, edits, archives, moves and deletes a note through the forms
// alone (as a browser without JavaScript does), meets a stale edit, and is refused without CSRF
// and on another user's ids. On both databases.
func TestAppNoteForms(t *testing.T) {
	apitest.EachDB(t, func(t *testing.T, kind string) {
		f := newAppFixture(t, kind)
		b := f.b

		// Create, with a preview first.
		want(t, b.get("/app/notes/new?notebookId="+f.notebook), http.StatusOK)
		p := b.submit("/app/notes", url.Values{"notebookId": {f.notebook}, "content": {"1:1 with @ana\n\n**Agenda** <b>raw</b>"}, "action": {"preview"}})
		want(t, p, http.StatusOK, "Preview", "1:1 with @ana")
		if !strings.Contains(p.Body, "<strong>Agenda</strong>") || !strings.Contains(p.Body, "&lt;b&gt;raw&lt;/b&gt;") {
			t.Fatalf("the preview is not the escaped HTML of the document:\n%s", p.Body)
		}
		p = b.submit("/app/notes", url.Values{"notebookId": {f.notebook}, "content": {"1:1 with @ana\n\nAgenda"}, "action": {"save"}})
		if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location(), "/app/notes/") {
			t.Fatalf("create: %d to %q\n%s", p.Status, p.Location(), p.Text)
		}
		id := strings.TrimSuffix(strings.TrimPrefix(p.Location(), "/app/notes/"), "?done=created")
		want(t, b.get(p.Location()), http.StatusOK, "Note created.", "1:1 with @ana")
		if got := f.content(t, id); got != "1:1 with @ana\n\nAgenda" {
			t.Fatalf("the API reads %q", got)
		}
		// The module's validation, in its words, with the text kept.
		p = b.submit("/app/notes", url.Values{"notebookId": {f.notebook}, "content": {"see <localhost:3000>"}, "action": {"save"}})
		want(t, p, http.StatusBadRequest, "Not saved", `field "content"`, "see <localhost:3000>")
		p = b.submit("/app/notes", url.Values{"notebookId": {"nope"}, "content": {"kept text"}, "action": {"save"}})
		if p.Status < 400 || p.Status >= 500 || !p.Contains("kept text") {
			t.Fatalf("an unknown notebook: %d\n%s", p.Status, p.Text)
		}

		// Edit with the version opened.
		p = b.get("/app/notes/" + id + "/edit")
		want(t, p, http.StatusOK, "1:1 with @ana")
		v1 := shownVersionOf(t, p)
		wantRedirect(t, b.submit("/app/notes/"+id+"/edit", url.Values{"version": {v1}, "content": {"1:1 with @ana\n\nAgenda: hiring"}, "action": {"save"}}), "/app/notes/"+id+"?done=saved")
		if got := f.content(t, id); got != "1:1 with @ana\n\nAgenda: hiring" {
			t.Fatalf("after the edit the API reads %q", got)
		}
		// A stale edit: the version opened before the last save. Nothing is overwritten; both texts show.
		p = b.submit("/app/notes/"+id+"/edit", url.Values{"version": {v1}, "content": {"My stale text"}, "action": {"save"}})
		want(t, p, http.StatusConflict, "This note changed since you opened it", "My stale text", "Agenda: hiring")
		if got := f.content(t, id); got != "1:1 with @ana\n\nAgenda: hiring" {
			t.Fatalf("a stale edit overwrote the note: %q", got)
		}
		// Saving mine from the conflict page is a knowing choice, with the version it showed.
		v2 := shownVersionOf(t, p)
		wantRedirect(t, b.submit("/app/notes/"+id+"/edit", url.Values{"version": {v2}, "content": {"My text after all"}, "action": {"save"}}), "/app/notes/"+id+"?done=saved")
		// A form without a version (or with *) is never applied unconditionally.
		for _, v := range []string{"", "*"} {
			p = b.submit("/app/notes/"+id+"/edit", url.Values{"version": {v}, "content": {"forced"}, "action": {"save"}})
			want(t, p, http.StatusConflict, "forced", "My text after all")
		}
		if got := f.content(t, id); got != "My text after all" {
			t.Fatalf("the API reads %q", got)
		}
		// A browser sends a textarea's line breaks as CRLF: a note of many lines, within the notes
		// module's limit as the API took it, saves back from its edit page as it was.
		long := strings.Repeat("a line\n", 13000)
		lid := f.create(t, "/notes", map[string]any{"notebookId": f.notebook, "content": long})
		p = b.get("/app/notes/" + lid + "/edit")
		wantRedirect(t, b.submit("/app/notes/"+lid+"/edit", url.Values{"version": {shownVersionOf(t, p)}, "content": {strings.ReplaceAll(long, "\n", "\r\n") + "end"}, "action": {"save"}}), "/app/notes/"+lid+"?done=saved")
		if got := f.content(t, lid); got != long+"end" {
			t.Fatalf("the API reads %d characters, not the %d saved", len(got), len(long)+3)
		}
		// A note at the notes module's limit in 4-byte characters (396 KB as the API's JSON) is 1.2 MB
		// as a browser's form sends it, percent-encoded: it saves back from its edit page too.
		wide := strings.Repeat("😀", 99990)
		wid := f.create(t, "/notes", map[string]any{"notebookId": f.notebook, "content": wide})
		p = b.get("/app/notes/" + wid + "/edit")
		wantRedirect(t, b.submit("/app/notes/"+wid+"/edit", url.Values{"version": {shownVersionOf(t, p)}, "content": {wide + "!"}, "action": {"save"}}), "/app/notes/"+wid+"?done=saved")
		if p = b.submit("/app/notes", url.Values{"notebookId": {f.notebook}, "content": {wide}, "action": {"save"}}); p.Status != http.StatusSeeOther {
			t.Fatalf("a new note at the limit: %d\n%s", p.Status, p.Text)
		}

		// Archive, unarchive, move, delete: each with the version shown.
		other := f.create(t, "/notebooks", map[string]any{"name": "1:1s"})
		v := shownVersionOf(t, b.get("/app/notes/"+id))
		wantRedirect(t, b.submit("/app/notes/"+id+"/archive", url.Values{"version": {v}, "archived": {"true"}}), "/app/notes/"+id+"?done=archived")
		want(t, b.get("/app/notes/"+id+"?done=archived"), http.StatusOK, "Archived.", "Unarchive")
		want(t, b.submit("/app/notes/"+id+"/archive", url.Values{"version": {v}, "archived": {"false"}}), http.StatusPreconditionFailed, "changed since you opened it")
		v = shownVersionOf(t, b.get("/app/notes/"+id))
		wantRedirect(t, b.submit("/app/notes/"+id+"/archive", url.Values{"version": {v}, "archived": {"false"}}), "/app/notes/"+id+"?done=unarchived")
		v = shownVersionOf(t, b.get("/app/notes/"+id))
		wantRedirect(t, b.submit("/app/notes/"+id+"/move", url.Values{"version": {v}, "notebookId": {other}}), "/app/notes/"+id+"?done=moved")
		want(t, b.get("/app/notebooks/"+other), http.StatusOK, "My text after all")
		p = b.get("/app/notes/" + id + "/delete")
		v = shownVersionOf(t, p)
		wantRedirect(t, b.submit("/app/notes/"+id+"/delete", url.Values{"version": {v}, "notebookId": {other}}), "/app/notebooks/"+other+"?deleted=1")
		want(t, b.get("/app/notes/"+id), http.StatusNotFound, "Not found")
		// An edit opened before the delete (another tab): a 404, but the text written is not lost.
		for _, v := range []string{v, ""} {
			p = b.submit("/app/notes/"+id+"/edit", url.Values{"version": {v}, "content": {"Words written\nbefore the delete"}, "action": {"save"}})
			want(t, p, http.StatusNotFound, "Not found", "Words written\nbefore the delete", `action="/app/notes"`)
		}

		// CSRF: a form without the session's token, or with another's, is a 403 page and changes nothing.
		v = shownVersionOf(t, b.get("/app/notes/"+f.note+"/edit"))
		for _, token := range []string{"", "forged"} {
			p = b.post("/app/notes/"+f.note+"/edit", url.Values{"csrf_token": {token}, "version": {v}, "content": {"csrf"}, "action": {"save"}})
			want(t, p, http.StatusForbidden, "This form has expired")
			if !strings.Contains(p.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("the 403 is %q, not a page", p.Header.Get("Content-Type"))
			}
		}
		for _, path := range []string{"/app/notes", "/app/notes/" + f.note + "/delete", "/app/notes/" + f.note + "/archive", "/app/tasks/" + f.task + "/status", "/app/time-zone"} {
			want(t, b.post(path, url.Values{"version": {v}, "status": {"DONE"}, "archived": {"true"}, "tz": {"Europe/Berlin"}}), http.StatusForbidden, "This form has expired")
		}
		if got := f.content(t, f.note); strings.Contains(got, "csrf") {
			t.Fatalf("a form without CSRF changed the note: %q", got)
		}

		// Another user's ids: 404 pages on every page and form, and nothing changes.
		eve := newBrowser(t, f.s)
		signUp(t, eve, "Eve Else")
		for _, path := range []string{"/app/notebooks/" + f.notebook, "/app/notes/" + f.note, "/app/notes/" + f.note + "/edit",
			"/app/notes/" + f.note + "/delete", "/app/tasks/" + f.task, "/app/notes/nope", "/app/tasks/nope", "/app/notebooks/nope",
			"/app/notes/new?notebookId=" + f.notebook, "/app/tasks/new?notebookId=" + f.notebook} {
			p := eve.get(path)
			want(t, p, http.StatusNotFound, "Not found")
			if !strings.Contains(p.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("%s: %q, not a page", path, p.Header.Get("Content-Type"))
			}
		}
		for _, path := range []string{"/app/notes/" + f.note + "/edit", "/app/notes/" + f.note + "/archive", "/app/notes/" + f.note + "/move", "/app/notes/" + f.note + "/delete", "/app/tasks/" + f.task + "/status"} {
			want(t, eve.submit(path, url.Values{"version": {v}, "content": {"eve"}, "action": {"save"}, "archived": {"true"}, "notebookId": {f.notebook}, "status": {"DONE"}}), http.StatusNotFound, "Not found")
		}
		if got := f.content(t, f.note); strings.Contains(got, "eve") {
			t.Fatalf("another user changed the note: %q", got)
		}
		// Eve's search and person pages show nothing of Mia's.
		want(t, eve.get("/app/search?q=hiring"), http.StatusOK, "No notes.")
		if p := eve.get("/app/people/sam"); p.Contains("Hiring plan") || p.Contains("Write the job ad") {
			t.Fatalf("another user's person page shows Mia's items")
		}
	})
}

// TestAppTasksAndZone changes a task's status in one action from the list and the task page,
// refuses an unknown status in the tasks module's words, and keeps the user's time zone.
func TestAppTasksAndZone(t *testing.T) {
	apitest.EachDB(t, func(t *testing.T, kind string) {
		f := newAppFixture(t, kind)
		b := f.b
		p := b.get("/app/tasks?priority=MEDIUM")
		want(t, p, http.StatusOK, "Write the job ad")
		wantRedirect(t, b.submit("/app/tasks/"+f.task+"/status", url.Values{"status": {"IN_PROGRESS"}, "back": {"/app/tasks?priority=MEDIUM"}}), "/app/tasks?done=status&priority=MEDIUM")
		r := b.api(http.MethodGet, "/tasks/"+f.task, "")
		if !strings.Contains(string(r.Body), `"status":"IN_PROGRESS"`) {
			t.Fatalf("after the button the API reads %s", r.Body)
		}
		p = b.get("/app/tasks?done=status&priority=MEDIUM")
		want(t, p, http.StatusOK, "Status changed.")
		if i, j := strings.Index(p.Body, `id="group-IN_PROGRESS"`), strings.Index(p.Body, "Write the job ad"); i < 0 || j < i {
			t.Fatalf("the task is not under In progress")
		}
		wantRedirect(t, b.submit("/app/tasks/"+f.task+"/status", url.Values{"status": {"DONE"}, "back": {"https://evil.example/"}}), "/app/tasks/"+f.task+"?done=status")
		want(t, b.get("/app/tasks/"+f.task+"?done=status"), http.StatusOK, "Status changed to Done.")
		want(t, b.submit("/app/tasks/"+f.task+"/status", url.Values{"status": {"SOMEDAY"}}), http.StatusBadRequest, `"status" must be one of`)
		// Filters the tasks module refuses come back in its words, never a 500.
		want(t, b.get("/app/tasks?priority=SOON"), http.StatusBadRequest, `"priority" must be one of`)
		want(t, b.get("/app/search?q="+strings.Repeat("x", 300)), http.StatusBadRequest)
		for _, path := range []string{"/app/notebooks?cursor=zzz", "/app/decisions?cursor=zzz", "/app/search?q=a&cursor=zzz", "/app/notebooks/" + f.notebook + "?cursor=zzz", "/app?date=2026-13-40"} {
			if p := b.get(path); p.Status != http.StatusSeeOther {
				t.Fatalf("%s: %d, want a redirect to the first page", path, p.Status)
			}
		}

		// The time zone: UTC until learned; a zone the Focus view does not know is refused.
		want(t, b.get("/app"), http.StatusOK, "in UTC", `data-learn-zone="/app/time-zone"`)
		want(t, b.submit("/app/time-zone", url.Values{"tz": {"Mars/Olympus"}}), http.StatusBadRequest, "Mars/Olympus")
		wantRedirect(t, b.submit("/app/time-zone", url.Values{"tz": {"Europe/Berlin"}, "back": {"/app"}}), "/app")
		p = b.get("/app")
		want(t, p, http.StatusOK, "in Europe/Berlin")
		if strings.Contains(p.Body, "data-learn-zone") {
			t.Fatal("the Focus page still asks for the zone once one is known")
		}
		want(t, b.get("/settings/time-zone"), http.StatusOK, `value="Europe/Berlin"`)
	})
}

var hiddenFieldRe = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// hiddenFields are the hidden fields of a page's forms, as a browser sends them back, but the
// CSRF token (browser.submit adds it; browser.post leaves it out).
func hiddenFields(p page) url.Values {
	out := url.Values{}
	for _, m := range hiddenFieldRe.FindAllStringSubmatch(p.Body, -1) {
		if m[1] != "csrf_token" {
			out.Set(m[1], html.UnescapeString(m[2]))
		}
	}
	return out
}

// with is form with the fields of more added.
func with(form url.Values, more url.Values) url.Values {
	out := url.Values{}
	for k, v := range form {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// TestAppTaskAndNotebookForms creates a notebook and a task and edits the task through the forms
// alone (as a browser without JavaScript does): the modules' words on a refusal with the fields
// kept, days in the user's zone, only the dates the form changed sent, a stale edit meeting the
// conflict page with both versions, no CSRF a 403, another user's ids a 404. On both databases.
func TestAppTaskAndNotebookForms(t *testing.T) {
	apitest.EachDB(t, func(t *testing.T, kind string) {
		f := newAppFixture(t, kind)
		b := f.b

		// A notebook, refused first in the notebooks module's words.
		want(t, b.get("/app/notebooks"), http.StatusOK, `href="/app/notebooks/new"`)
		want(t, b.get("/app/notebooks/new"), http.StatusOK, "New notebook", "Personal", "teal")
		want(t, b.submit("/app/notebooks", url.Values{"name": {"1:1s"}, "color": {"plaid"}}), http.StatusBadRequest, "Not created", "color", `value="1:1s"`)
		want(t, b.submit("/app/notebooks", url.Values{"name": {strings.Repeat("n", 41)}, "color": {"teal"}}), http.StatusBadRequest, "Not created", "name")
		p := b.submit("/app/notebooks", url.Values{"name": {"1:1s"}, "color": {"teal"}, "workspaceId": {""}})
		if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location(), "/app/notebooks/") || !strings.HasSuffix(p.Location(), "?done=created") {
			t.Fatalf("create notebook: %d to %q\n%s", p.Status, p.Location(), p.Text)
		}
		nb := strings.TrimSuffix(strings.TrimPrefix(p.Location(), "/app/notebooks/"), "?done=created")
		want(t, b.get(p.Location()), http.StatusOK, "Notebook created.", "1:1s", `href="/app/tasks/new?notebookId=`+nb+`"`)
		if r := b.api(http.MethodGet, "/notebooks/"+nb, ""); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"color":"teal"`) || !strings.Contains(string(r.Body), `"workspaceId":null`) {
			t.Fatalf("the API reads the notebook as %d %s", r.Status, r.Body)
		}

		// A task, in Berlin: the days chosen are Berlin's days.
		wantRedirect(t, b.submit("/app/time-zone", url.Values{"tz": {"Europe/Berlin"}, "back": {"/app"}}), "/app")
		want(t, b.get("/app/tasks/new?notebookId="+nb), http.StatusOK, "New task", `<option value="`+nb+`" selected>`, "Europe/Berlin")
		task := url.Values{"title": {"Prepare the 1:1 with @ana"}, "notebookId": {nb}, "status": {"IN_PROGRESS"}, "priority": {"HIGH"},
			"dueAt": {"2026-03-05"}, "targetAt": {""}, "followUpAt": {"2026-03-10"}, "notes": {"Ask about #growth\n\n- one\n- two"}}
		// Refused in the tasks module's words, the fields kept.
		want(t, b.submit("/app/tasks", with(task, url.Values{"title": {""}})), http.StatusBadRequest, "Not saved", `"title"`, "Ask about #growth")
		want(t, b.submit("/app/tasks", with(task, url.Values{"dueAt": {"5 March"}})), http.StatusBadRequest, "Not saved", `field "dueAt"`, "Prepare the 1:1")
		want(t, b.submit("/app/tasks", with(task, url.Values{"priority": {"SOON"}})), http.StatusBadRequest, "Not saved", `"priority"`)
		p = b.submit("/app/tasks", task)
		if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location(), "/app/tasks/") || !strings.HasSuffix(p.Location(), "?done=created") {
			t.Fatalf("create task: %d to %q\n%s", p.Status, p.Location(), p.Text)
		}
		id := strings.TrimSuffix(strings.TrimPrefix(p.Location(), "/app/tasks/"), "?done=created")
		want(t, b.get(p.Location()), http.StatusOK, "Task created.", "Prepare the 1:1 with @ana", "In progress", "HIGH", "Thu 5 Mar 2026", "Tue 10 Mar 2026", "#growth", "1:1s")
		apiTask := func() string {
			r := b.api(http.MethodGet, "/tasks/"+id, "")
			if r.Status != http.StatusOK {
				t.Fatalf("GET /tasks/%s: %d %s", id, r.Status, r.Body)
			}
			return string(r.Body)
		}
		for _, s := range []string{`"status":"IN_PROGRESS"`, `"priority":"HIGH"`, `"dueAt":"2026-03-04T23:00:00`, `"targetAt":null`, `"followUpAt":"2026-03-09T23:00:00`, `"notes":"Ask about #growth`} {
			if got := apiTask(); !strings.Contains(got, s) {
				t.Fatalf("the API reads the new task without %s: %s", s, got)
			}
		}

		// Edit with the version opened: a date cleared, one set, one left as it was.
		p = b.get("/app/tasks/" + id + "/edit")
		want(t, p, http.StatusOK, "Edit task", `value="2026-03-05"`, `value="2026-03-10"`, "Ask about #growth")
		opened := hiddenFields(p)
		edit := with(opened, with(task, url.Values{"title": {"Prepare the 1:1"}, "status": {"BLOCKED"}, "dueAt": {""}, "targetAt": {"2026-03-06"}}))
		wantRedirect(t, b.submit("/app/tasks/"+id+"/edit", edit), "/app/tasks/"+id+"?done=saved")
		want(t, b.get("/app/tasks/"+id+"?done=saved"), http.StatusOK, "Saved.", "Prepare the 1:1", "Blocked", "Fri 6 Mar 2026")
		for _, s := range []string{`"title":"Prepare the 1:1"`, `"status":"BLOCKED"`, `"dueAt":null`, `"targetAt":"2026-03-05T23:00:00`, `"followUpAt":"2026-03-09T23:00:00`} {
			if got := apiTask(); !strings.Contains(got, s) {
				t.Fatalf("after the edit the API reads the task without %s: %s", s, got)
			}
		}
		// A refused edit keeps the fields and the version it opened.
		p = b.submit("/app/tasks/"+id+"/edit", with(edit, url.Values{"title": {""}}))
		want(t, p, http.StatusBadRequest, "Not saved", `"title"`)
		// A stale edit: nothing is overwritten; the task now and my fields show.
		p = b.submit("/app/tasks/"+id+"/edit", with(opened, with(task, url.Values{"title": {"My stale title"}})))
		want(t, p, http.StatusConflict, "This task changed since you opened it", "The task now", `value="My stale title"`, "Prepare the 1:1", "Blocked")
		if got := apiTask(); !strings.Contains(got, `"title":"Prepare the 1:1"`) {
			t.Fatalf("a stale edit overwrote the task: %s", got)
		}
		// Saving mine from the conflict page is a knowing choice, with the version it showed.
		wantRedirect(t, b.submit("/app/tasks/"+id+"/edit", with(hiddenFields(p), with(task, url.Values{"title": {"My title after all"}}))), "/app/tasks/"+id+"?done=saved")
		if got := apiTask(); !strings.Contains(got, `"title":"My title after all"`) {
			t.Fatalf("the API reads %s", got)
		}
		// A form without a version (or with *) is never applied unconditionally.
		for _, v := range []string{"", "*"} {
			want(t, b.submit("/app/tasks/"+id+"/edit", with(task, url.Values{"version": {v}, "title": {"forced"}})), http.StatusConflict, "The task now")
		}

		// An edit opened before the task was deleted (elsewhere): a 404, with the fields kept.
		gone := f.create(t, "/tasks", map[string]any{"notebookId": f.notebook, "title": "Soon deleted"})
		gp := b.get("/app/tasks/" + gone + "/edit")
		if r := b.api(http.MethodDelete, "/tasks/"+gone, ""); r.Status != http.StatusOK {
			t.Fatalf("DELETE /tasks/%s: %d %s", gone, r.Status, r.Body)
		}
		for _, v := range []url.Values{{}, {"version": {""}}} {
			p = b.submit("/app/tasks/"+gone+"/edit", with(hiddenFields(gp), with(v, url.Values{"title": {"My kept title"}, "notes": {"My kept notes"}})))
			want(t, p, http.StatusNotFound, "Not found", `value="My kept title"`, "My kept notes", `action="/app/tasks"`)
		}

		// CSRF: a form without the session's token is a 403 page and changes nothing.
		for _, path := range []string{"/app/notebooks", "/app/tasks", "/app/tasks/" + id + "/edit"} {
			want(t, b.post(path, with(edit, url.Values{"name": {"csrf"}, "title": {"csrf"}})), http.StatusForbidden, "This form has expired")
		}
		if got := apiTask(); strings.Contains(got, "csrf") {
			t.Fatalf("a form without CSRF changed the task: %s", got)
		}

		// Another user's ids: 404 pages, and nothing changes.
		eve := newBrowser(t, f.s)
		signUp(t, eve, "Eve Else")
		want(t, eve.get("/app/tasks/"+id+"/edit"), http.StatusNotFound, "Not found")
		want(t, eve.submit("/app/tasks/"+id+"/edit", with(edit, url.Values{"title": {"eve"}})), http.StatusNotFound, "Not found")
		if p := eve.submit("/app/tasks", with(task, url.Values{"title": {"eve"}})); p.Status != http.StatusNotFound {
			t.Fatalf("a task in another user's notebook: %d\n%s", p.Status, p.Text)
		}
		if got := apiTask(); strings.Contains(got, "eve") {
			t.Fatalf("another user changed the task: %s", got)
		}
	})
}
