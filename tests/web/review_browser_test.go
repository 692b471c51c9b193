package web

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"folio/tests/apitest"
)

// keyTransport sends the API key on every request of the MCP client.
type keyTransport struct{ key string }

func (k keyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+k.key)
	return http.DefaultTransport.RoundTrip(req)
}

// TestBrowserReview is the loop of assistants and people in a real headless Chromium: an
// assistant's key proposes a change through the MCP server; the person signs in, finds it in
// /review, reads the diff and approves; the API then shows the new content and a version of the
// old one. A second proposal, approved from a page opened before the note changed, shows the
// conflict page and changes nothing. The history page restores the first content. Screenshots of
// each page are kept in tests/output/web (review-*.png, from the SQLite run). On SQLite and
// PostgreSQL.
func TestBrowserReview(t *testing.T) {
	apitest.EachDB(t, browserReview)
}

// reviewScene is what a browser test of the review pages starts from: a headless Chromium, a
// server on one database, Mia signed up with an assistant's key of hers, and a note made by the
// key in her notebook Leadership.
type reviewScene struct {
	ctx    context.Context
	logs   *consoleLog
	s      *apitest.Server
	d      driver
	person account
	key    string
	note   string
}

func newReviewScene(t *testing.T, kind, original string) reviewScene {
	ctx, logs := chromium(t)
	s := apitest.Start(t, kind)
	out := outputDir(t)
	if kind != "sqlite" {
		out = t.TempDir() // one set of screenshots in tests/output/web
	}
	hb := newBrowser(t, s)
	person := signUp(t, hb, "Mia Manager")
	key := createKey(t, hb, "Research assistant", 3, "")
	notebook := apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "Leadership"}), 201).Str(t, "id")
	note := apitest.Must(t, s.Post(t, key, "/notes", map[string]any{"notebookId": notebook, "content": original}), 201).Str(t, "id")
	return reviewScene{ctx: ctx, logs: logs, s: s, d: driver{t: t, ctx: ctx, out: out}, person: person, key: key, note: note}
}

// signIn signs Mia in through the sign-in page, returning to the keys page (next).
func (sc reviewScene) signIn() {
	sc.d.run("sign in",
		chromedp.Navigate(sc.s.URL+"/signin?next=%2Fsettings%2Fkeys"),
		chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), sc.person.Email),
		chromedp.SendKeys(chromedp.CSS(`#password`), sc.person.Password),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`.tabs`)),
	)
}

func browserReview(t *testing.T, kind string) {
	original := "Hiring plan\n\nOpen two #backend roles in Q1.\n\n> **Decision:** start with one senior hire.\n\nOwner: @mia"
	sc := newReviewScene(t, kind, original)
	logs, s, key, note := sc.logs, sc.s, sc.key, sc.note

	// The assistant, through MCP with the same key.
	client := mcp.NewClient(&mcp.Implementation{Name: "assistant", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: s.URL + "/mcp",
		HTTPClient: &http.Client{Transport: keyTransport{key}, Timeout: 30 * time.Second}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("MCP connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	propose := func(content, rationale string) {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "propose_note_change",
			Arguments: map[string]any{"id": note, "content": content, "rationale": rationale}})
		if err != nil || res.IsError {
			t.Fatalf("propose_note_change: %v %+v", err, res)
		}
	}
	proposed := "Hiring plan\n\nOpen three #backend roles in Q1.\n\n> **Decision:** start with one senior hire.\n\nOwner: @mia"
	propose(proposed, "The Q1 budget allows a third role.")

	run, text, shot := sc.d.run, sc.d.text, sc.d.shot

	// Sign in, open the review list.
	sc.signIn()
	run("open the review list",
		chromedp.Click(chromedp.CSS(`.tabs a[href="/review"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#pending`)),
	)
	if got := text(`#pending tbody tr`); !strings.Contains(got, "Hiring plan") || !strings.Contains(got, "Leadership") ||
		!strings.Contains(got, "Research assistant") || !strings.Contains(got, "Pending") {
		t.Fatalf("the review row says %q", got)
	}
	shot("review-list.png")

	// The suggestion: the diff marks the changed line; approve.
	run("open the suggestion",
		chromedp.Click(chromedp.CSS(`#pending tbody tr a`)),
		chromedp.WaitVisible(chromedp.CSS(`#approve`)),
	)
	if got := text(`.diff-del`); !strings.Contains(got, "Open two #backend roles in Q1.") {
		t.Fatalf("the removed line reads %q", got)
	}
	if got := text(`.diff-add`); !strings.Contains(got, "Open three #backend roles in Q1.") {
		t.Fatalf("the added line reads %q", got)
	}
	shot("review-suggestion.png")
	run("phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#approve`)))
	shot("review-suggestion-phone.png")
	run("approve",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Click(chromedp.CSS(`#approve`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice`)),
	)
	if got := text(".notice"); !strings.HasPrefix(got, "Approved.") {
		t.Fatalf("after approving the page says %q", got)
	}
	shot("review-approved.png")
	if got := apitest.Must(t, s.Get(t, key, "/notes/"+note), 200).Str(t, "content"); got != proposed {
		t.Fatalf("after approval the API shows %q", got)
	}
	versions := apitest.Must(t, s.Get(t, key, "/notes/"+note+"/versions"), 200).Data(t)
	if len(versions) != 1 || versions[0]["reason"] != "suggestion" {
		t.Fatalf("versions after approval: %v", versions)
	}
	if got := apitest.Must(t, s.Get(t, key, "/notes/"+note+"/versions/"+versions[0]["id"].(string)), 200).Str(t, "content"); got != original {
		t.Fatalf("the version keeps %q", got)
	}

	// A stale approve: the page is opened, then the note changes; approving shows the conflict.
	propose(proposed+"\n\nBudget: confirmed by finance.", "Finance confirmed.")
	run("open the second suggestion",
		chromedp.Navigate(s.URL+"/review"),
		chromedp.WaitVisible(chromedp.CSS(`#pending`)),
		chromedp.Click(chromedp.CSS(`#pending tbody tr a`)),
		chromedp.WaitVisible(chromedp.CSS(`#approve`)),
	)
	edited := proposed + "\n\nEdited by Mia meanwhile."
	apitest.Must(t, s.Do(t, apitest.Request{Method: http.MethodPatch, Path: "/notes/" + note, Key: key, Body: map[string]any{"content": edited}}), 200)
	run("stale approve",
		chromedp.Click(chromedp.CSS(`#approve`)),
		chromedp.WaitVisible(chromedp.CSS(`#open-again`)),
	)
	if got := text("h1"); got != "This note changed since you opened it" {
		t.Fatalf("the stale approve shows %q", got)
	}
	shot("review-conflict.png")
	if got := apitest.Must(t, s.Get(t, key, "/notes/"+note), 200).Str(t, "content"); got != edited {
		t.Fatalf("a stale approve changed the note: %q", got)
	}
	run("open it again", chromedp.Click(chromedp.CSS(`#open-again`)), chromedp.WaitVisible(chromedp.CSS(`#reject`)))
	// Both appended a line at the end: the reopened suggestion shows the conflict.
	if got := text(`.status-stale`); got != "Conflicts" {
		t.Fatalf("the reopened suggestion is not marked as conflicting: %q", got)
	}
	run("reject", chromedp.Click(chromedp.CSS(`#reject`)), chromedp.WaitVisible(chromedp.CSS(`.notice`)))

	// History: view the first version and restore it.
	run("history",
		chromedp.Navigate(s.URL+"/review/notes/"+note+"/history"),
		chromedp.WaitVisible(chromedp.CSS(`#versions`)),
	)
	shot("review-history.png")
	run("view the oldest version",
		chromedp.Click(chromedp.CSS(`#versions tbody tr:last-child a`)),
		chromedp.WaitVisible(chromedp.CSS(`#restore`)),
	)
	if got := text(`#version-text`); got != original {
		t.Fatalf("the version page shows %q", got)
	}
	shot("review-version.png")
	run("restore", chromedp.Click(chromedp.CSS(`#restore`)), chromedp.WaitVisible(chromedp.CSS(`.notice`)))
	shot("review-restored.png")
	if got := apitest.Must(t, s.Get(t, key, "/notes/"+note), 200).Str(t, "content"); got != original {
		t.Fatalf("after restore the API shows %q", got)
	}
	// The conflict page is a 412 on purpose, which Chromium reports as a failed load; anything
	// else (a blocked inline script or style, a failed asset) fails the test.
	var errs []string
	for _, e := range logs.all() {
		if !strings.Contains(e, "status of 412 (Precondition Failed)") {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		t.Fatalf("the browser reported errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserReviewMerge: in a real headless Chromium, a person approves one of a suggestion's
// two changes by unticking the other (the changed words are marked inside the changed lines);
// then a suggestion whose change overlaps the person's later edit shows the conflict view (the
// lines when proposed, now and suggested, side by side), offers nothing to approve, and is
// rejected. No console error (CSP included). Screenshots: review-hunks.png, review-conflicts.png.
// On SQLite and PostgreSQL.
func TestBrowserReviewMerge(t *testing.T) {
	apitest.EachDB(t, browserReviewMerge)
}

func browserReviewMerge(t *testing.T, kind string) {
	original := "Offsite plan\n\nBook the venue in March.\n\nInvite the whole team.\n\nBudget: 5k."
	sc := newReviewScene(t, kind, original)
	ctx, logs, s, key, note := sc.ctx, sc.logs, sc.s, sc.key, sc.note
	proposed := "Offsite plan\n\nBook the venue in April.\n\nInvite the whole team.\n\nBudget: 8k, approved."
	sg := apitest.Must(t, s.Post(t, key, "/notes/"+note+"/suggest", map[string]any{"content": proposed, "rationale": "March is full."}), 201).Str(t, "id")

	run, text, shot := sc.d.run, sc.d.text, sc.d.shot
	sc.signIn()

	// Two hunks, each with its checkbox, ticked; the changed words marked.
	run("open the suggestion", chromedp.Navigate(s.URL+"/review/suggestions/"+sg), chromedp.WaitVisible(chromedp.CSS(`#approve`)))
	if got := text(`#hunk-0 legend`); got != "Change 1, at line 3" {
		t.Fatalf("the first hunk's legend reads %q", got)
	}
	if got := text(`#hunk-0 .diff-del mark.word`); got != "March" {
		t.Fatalf("the removed word marked in the first hunk is %q", got)
	}
	if got := text(`#hunk-0 .diff-add mark.word`); got != "April" {
		t.Fatalf("the added word marked in the first hunk is %q", got)
	}
	if got := text(`#hunk-1 .diff-add`); !strings.Contains(got, "Budget: 8k, approved.") {
		t.Fatalf("the second hunk adds %q", got)
	}
	checked, err := chromedp.Run(ctx, chromedp.Evaluate[[]bool](`[...document.querySelectorAll('input[name=hunk]')].map(b => b.checked)`))
	if err != nil || len(checked) != 2 || !checked[0] || !checked[1] {
		t.Fatalf("the hunks' checkboxes: %v %v, want two, ticked", checked, err)
	}
	shot("review-hunks.png")
	// Untick the budget change (by its label), approve the rest.
	run("approve the first change only",
		chromedp.Click(chromedp.CSS(`label[for=hunk-check-1]`)),
		chromedp.Click(chromedp.CSS(`#approve`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice`)),
	)
	if got := text(".notice"); !strings.HasPrefix(got, "Approved in part.") {
		t.Fatalf("after a partial approval the page says %q", got)
	}
	withVenue := strings.Replace(original, "March", "April", 1)
	if got := apitest.Must(t, s.Get(t, key, "/notes/"+note), 200).Str(t, "content"); got != withVenue {
		t.Fatalf("after approving the first change the API shows %q, want %q", got, withVenue)
	}
	if got := apitest.Must(t, s.Get(t, key, "/suggestions/"+sg), 200).Str(t, "status"); got != "APPROVED" {
		t.Fatalf("the suggestion is %s", got)
	}

	// A proposal on the invitation line, then Mia rewrites that line: the conflict view.
	sg = apitest.Must(t, s.Post(t, key, "/notes/"+note+"/suggest", map[string]any{"content": strings.Replace(withVenue, "Invite the whole team.", "Invite the leads only.", 1)}), 201).Str(t, "id")
	edited := strings.Replace(withVenue, "Invite the whole team.", "Invite the whole team and partners.", 1)
	apitest.Must(t, s.Do(t, apitest.Request{Method: http.MethodPatch, Path: "/notes/" + note, Key: key, Body: map[string]any{"content": edited}}), 200)
	run("open the conflicting suggestion", chromedp.Navigate(s.URL+"/review/suggestions/"+sg), chromedp.WaitVisible(chromedp.CSS(`#conflicts`)))
	if got := text(`#conflicts caption`); got != "Conflict 1, at line 5 of the current content" {
		t.Fatalf("the conflict's caption reads %q", got)
	}
	for sel, want := range map[string]string{
		`#conflicts thead`:               "When proposed\tNow\tSuggested",
		`#conflicts .conflict-base`:      "Invite the whole team.",
		`#conflicts .conflict-current`:   "Invite the whole team and partners.",
		`#conflicts .conflict-suggested`: "Invite the leads only.",
	} {
		if got := strings.Join(strings.Fields(text(sel)), " "); got != strings.Join(strings.Fields(want), " ") {
			t.Fatalf("%s reads %q, want %q", sel, got, want)
		}
	}
	if approveButtons, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#approve').length`)); err != nil || approveButtons != 0 {
		t.Fatalf("a suggestion with nothing to apply offers %d approve buttons (%v)", approveButtons, err)
	}
	shot("review-conflicts.png")
	run("phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#conflicts`)))
	shot("review-conflicts-phone.png")
	run("reject", chromedp.EmulateViewport(1280, 900), chromedp.Click(chromedp.CSS(`#reject`)), chromedp.WaitVisible(chromedp.CSS(`.notice`)))
	if got := apitest.Must(t, s.Get(t, key, "/notes/"+note), 200).Str(t, "content"); got != edited {
		t.Fatalf("after the conflict and the rejection the API shows %q", got)
	}
	if errs := logs.all(); len(errs) > 0 {
		t.Fatalf("the browser reported errors:\n%s", strings.Join(errs, "\n"))
	}
}
