package web

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"folio/tests/apitest"
)

// axeSource is axe-core, vendored for the tests by testdata/axe/vendor-axe.sh (never served by
// folio): the browser test injects it into every page through the DevTools protocol.
//
//go:embed testdata/axe/axe.min.js
var axeSource string

// axeSHA256 pins the vendored file: a changed engine can only come from the script.
const axeSHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"

func TestAxePinned(t *testing.T) {
	sum := sha256.Sum256([]byte(axeSource))
	if got := hex.EncodeToString(sum[:]); got != axeSHA256 || !strings.HasPrefix(axeSource, "/*! axe v4.14.1") {
		t.Fatalf("testdata/axe/axe.min.js is %s, not the pinned axe-core 4.14.1 (run vendor-axe.sh and update axeSHA256)", got)
	}
}

// axeRun runs axe-core on the page and lists the serious and critical violations, each with the
// elements it found them on.
const axeRun = `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
	.filter(v => v.impact === "serious" || v.impact === "critical")
	.map(v => v.id + " (" + v.impact + "): " + v.help + " at " + v.nodes.map(n => n.target.join(" ")).join(", ")))`

// accessible runs axe-core on the page shown, failing the test on any serious or critical
// violation.
func (d driver) accessible(page string) {
	d.t.Helper()
	if _, err := chromedp.Run(d.ctx, chromedp.Evaluate[bool](axeSource+";true")); err != nil {
		d.t.Fatalf("inject axe-core into %s: %v", page, err)
	}
	found, err := chromedp.Run(d.ctx, chromedp.Evaluate[[]string](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		d.t.Fatalf("axe-core on %s: %v", page, err)
	}
	if len(found) > 0 {
		d.t.Errorf("axe-core on %s:\n%s", page, strings.Join(found, "\n"))
	}
}

// dark switches the page's prefers-color-scheme (true: dark, false: the browser's own).
func dark(on bool) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		p := emulation.SetEmulatedMediaParams{}
		if on {
			p.Features = []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}
		}
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, p)
		return err
	})
}

func noScript() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})
}

func browserZone(zone string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: zone})
		return err
	})
}

// signIn signs the browser in through the form, returning to the keys page (next): a sign-in
// lands on Focus otherwise, whose one reload (learning the zone) the tests drive themselves.
func (d driver) signIn(base string, a account) {
	d.t.Helper()
	d.run("sign in",
		chromedp.Navigate(base+"/signin?next=%2Fsettings%2Fkeys"),
		chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), a.Email),
		chromedp.SendKeys(chromedp.CSS(`#password`), a.Password),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`.tabs`)),
	)
}

// pageText is the page's visible text.
func (d driver) pageText() string {
	d.t.Helper()
	s, err := chromedp.Run(d.ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		d.t.Fatal(err)
	}
	return s
}

// value is a form field's value.
func (d driver) value(sel string) string {
	d.t.Helper()
	s, err := chromedp.Run(d.ctx, chromedp.Value(chromedp.CSS(sel)))
	if err != nil {
		d.t.Fatalf("value of %s: %v", sel, err)
	}
	return s
}

// TestBrowserApp is the web app in a real headless Chromium, on SQLite and PostgreSQL: the person
// signs in, the Focus page learns the browser's time zone, every route opens (axe-core finds no
// serious or critical violation, light and dark; screenshots on a desktop, a phone and in dark
// mode in tests/output/web/app-*.png, from the SQLite run), a note is written with a preview,
// edited from the keyboard's "e", meets a conflict from a second tab and loses neither text, a
// task's status changes with one button, and the person and decisions pages show what they should.
func TestBrowserApp(t *testing.T) {
	apitest.EachDB(t, browserApp)
}

func browserApp(t *testing.T, kind string) {
	f := newAppFixture(t, kind)
	today := time.Now().UTC().Format(time.DateOnly)
	f.create(t, "/tasks", map[string]any{"notebookId": f.notebook, "title": "Send the offer to @sam", "notes": "Ask @sam to sign.", "dueAt": today, "priority": "HIGH"})
	f.create(t, "/notes", map[string]any{"notebookId": f.notebook, "followUpAt": today,
		"content": "Weekly 1:1 with @sam\n\n- [x] career goals\n- [ ] feedback on the #backend plan\n\n> **Decision:** Sam leads the hiring loop."})
	ctx, logs := chromium(t)
	out := outputDir(t)
	if kind != "sqlite" {
		out = t.TempDir() // one set of screenshots in tests/output/web
	}
	d := driver{t: t, ctx: ctx, out: out}
	run, text := d.run, d.text

	// The Focus page learns the browser's zone once (a script's POST), then shows the day in it.
	run("zone", browserZone("Europe/Berlin"))
	d.signIn(f.s.URL, f.person)
	run("focus", chromedp.Navigate(f.s.URL+"/app"), chromedp.WaitVisible(chromedp.CSS(`main h1`)))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.innerText.includes("in Europe/Berlin")`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		z, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`Intl.DateTimeFormat().resolvedOptions().timeZone + " " + !!document.querySelector("[data-learn-zone]") + " " + sessionStorage.getItem("folio-zone-tried")`))
		t.Fatalf("the Focus page did not learn the browser's zone (%s; %v): %q", z, logs.all(), d.pageText())
	}
	if got := d.pageText(); !strings.Contains(got, "Send the offer to @sam") || !strings.Contains(got, "Weekly 1:1 with @sam") {
		t.Fatalf("Focus shows %q", got)
	}

	// Every route: axe-core light and dark, screenshots on a desktop, a phone, in dark mode.
	for _, r := range []struct{ name, path, says string }{
		{"focus", "/app", "Send the offer to @sam"},
		{"notebooks", "/app/notebooks", "Leadership"},
		{"notebook", "/app/notebooks/" + f.notebook, "Write the job ad"},
		{"note", "/app/notes/" + f.note, "start with one senior hire."},
		{"edit", "/app/notes/" + f.note + "/edit", "Markdown"},
		{"new-note", "/app/notes/new?notebookId=" + f.notebook, "New note"},
		{"delete", "/app/notes/" + f.note + "/delete", "Delete the note"},
		{"tasks", "/app/tasks", "Write the job ad"},
		{"task", "/app/tasks/" + f.task, "Write the job ad"},
		{"edit-task", "/app/tasks/" + f.task + "/edit", "Edit task"},
		{"new-task", "/app/tasks/new?notebookId=" + f.notebook, "New task"},
		{"new-notebook", "/app/notebooks/new", "New notebook"},
		{"person", "/app/people/sam", "Sam leads the hiring loop."},
		{"tag", "/app/tags/backend", "Hiring plan"},
		{"decisions", "/app/decisions", "Sam leads the hiring loop."},
		{"search", "/app/search?q=hiring", "Hiring plan"},
		{"time-zone", "/settings/time-zone", "Europe/Berlin"},
		{"not-found", "/app/no-such-page", "There is no page at this address."},
	} {
		run(r.name, chromedp.Navigate(f.s.URL+r.path), chromedp.WaitVisible(chromedp.CSS(`main`)))
		if got := d.pageText(); !strings.Contains(got, r.says) {
			t.Fatalf("%s does not say %q:\n%s", r.path, r.says, got)
		}
		d.accessible(r.path)
		d.shot("app-" + r.name + ".png")
		run(r.name+" on a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`main`)))
		d.shot("app-" + r.name + "-phone.png")
		run(r.name+" in dark mode", chromedp.EmulateViewport(1280, 900), dark(true), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`main`)))
		d.accessible(r.path + " (dark)")
		d.shot("app-" + r.name + "-dark.png")
		run("light", dark(false))
	}

	// Write a note: preview, then save.
	run("new note",
		chromedp.Navigate(f.s.URL+"/app/notebooks/"+f.notebook),
		chromedp.WaitVisible(chromedp.CSS(`main`)),
		chromedp.KeyEvent("n"), // the "n" key opens a new note in this notebook
		chromedp.WaitVisible(chromedp.CSS(`#content`)),
		chromedp.SendKeys(chromedp.CSS(`#content`), "Roadmap review\n\nShip the #api first, with @lee."),
		chromedp.Click(chromedp.CSS(`#preview`)),
		chromedp.WaitVisible(chromedp.CSS(`#preview-body`)),
	)
	if got := text(`#preview-body`); got != "Roadmap review\nShip the #api first, with @lee." && !strings.Contains(got, "Ship the #api first") {
		t.Fatalf("the preview shows %q", got)
	}
	run("save", chromedp.Click(chromedp.CSS(`#save`)), chromedp.WaitVisible(chromedp.CSS(`#note-body`)))
	if got := text(`.notice`); got != "Note created." {
		t.Fatalf("after saving the page says %q", got)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(loc, f.s.URL+"/app/notes/"), "?done=created")
	if got := f.content(t, id); got != "Roadmap review\n\nShip the #api first, with @lee." {
		t.Fatalf("the API reads %q", got)
	}

	// Edit it, opened with the "e" key.
	run("edit", chromedp.KeyEvent("e"), chromedp.WaitVisible(chromedp.CSS(`#content`)),
		chromedp.SetValue(chromedp.CSS(`#content`), "Roadmap review\n\nShip the #api first, with @lee and @sam."),
		chromedp.Click(chromedp.CSS(`#save`)), chromedp.WaitVisible(chromedp.CSS(`#note-body`)))
	if got := text(`.notice`); got != "Saved." {
		t.Fatalf("after the edit the page says %q", got)
	}

	// A conflict: this tab opens the editor, a second tab saves first; this tab's save shows both
	// texts, and saving mine from there keeps it, with theirs in the history.
	run("open the editor", chromedp.Navigate(f.s.URL+"/app/notes/"+id+"/edit"), chromedp.WaitVisible(chromedp.CSS(`#content`)))
	tab, cancelTab := chromedp.NewContext(ctx)
	defer cancelTab()
	other := driver{t: t, ctx: tab, out: out}
	other.run("the second tab saves",
		chromedp.Navigate(f.s.URL+"/app/notes/"+id+"/edit"), chromedp.WaitVisible(chromedp.CSS(`#content`)),
		chromedp.SetValue(chromedp.CSS(`#content`), "Roadmap review\n\nTheirs: the #api waits for Q3."),
		chromedp.Click(chromedp.CSS(`#save`)), chromedp.WaitVisible(chromedp.CSS(`#note-body`)))
	run("this tab saves",
		chromedp.SetValue(chromedp.CSS(`#content`), "Roadmap review\n\nMine: the #api ships in Q2."),
		chromedp.Click(chromedp.CSS(`#save`)), chromedp.WaitVisible(chromedp.CSS(`#mine`)))
	if got := text("h1"); got != "This note changed since you opened it" {
		t.Fatalf("the stale save shows %q", got)
	}
	if got := d.value(`#theirs`); got != "Roadmap review\n\nTheirs: the #api waits for Q3." {
		t.Fatalf("the conflict page shows theirs as %q", got)
	}
	if got := d.value(`#mine`); got != "Roadmap review\n\nMine: the #api ships in Q2." {
		t.Fatalf("the conflict page shows mine as %q", got)
	}
	if got := f.content(t, id); got != "Roadmap review\n\nTheirs: the #api waits for Q3." {
		t.Fatalf("a stale save overwrote the note: %q", got)
	}
	d.accessible("the conflict page")
	d.shot("app-conflict.png")
	run("save mine", chromedp.Click(chromedp.CSS(`#save-mine`)), chromedp.WaitVisible(chromedp.CSS(`#note-body`)))
	if got := f.content(t, id); got != "Roadmap review\n\nMine: the #api ships in Q2." {
		t.Fatalf("after saving mine the API reads %q", got)
	}
	versions := f.b.api(http.MethodGet, "/notes/"+id+"/versions", "")
	if !strings.Contains(string(versions.Body), `"reason":"update"`) || strings.Count(string(versions.Body), `"id"`) < 3 {
		t.Fatalf("the history does not keep theirs: %s", versions.Body)
	}

	// A task's status in one action, from the list.
	run("status",
		chromedp.Navigate(f.s.URL+"/app/tasks"), chromedp.WaitVisible(chromedp.CSS(`main`)),
		chromedp.Click(chromedp.CSS(`[data-task="`+f.task+`"] button[value="IN_PROGRESS"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice`)))
	r := f.b.api(http.MethodGet, "/tasks/"+f.task, "")
	var task struct{ Status string }
	if json.Unmarshal(r.Body, &task) != nil || task.Status != "IN_PROGRESS" {
		t.Fatalf("after the button the API reads %s", r.Body)
	}
	d.shot("app-tasks-changed.png")

	// The person page and the decisions page.
	run("person", chromedp.Navigate(f.s.URL+"/app/people/sam"), chromedp.WaitVisible(chromedp.CSS(`main`)))
	for _, s := range []string{"Write the job ad", "Send the offer to @sam", "Sam leads the hiring loop.", "start with one senior hire.", "Hiring plan", "Weekly 1:1 with @sam"} {
		if got := d.pageText(); !strings.Contains(got, s) {
			t.Fatalf("the person page does not show %q:\n%s", s, got)
		}
	}
	run("decisions", chromedp.Navigate(f.s.URL+"/app/decisions?notebookId="+f.notebook), chromedp.WaitVisible(chromedp.CSS(`main`)))
	if got := d.pageText(); !strings.Contains(got, "Sam leads the hiring loop.") || !strings.Contains(got, "start with one senior hire.") {
		t.Fatalf("the decisions page shows %q", got)
	}
	// The "/" key goes to the search field.
	run("search key", chromedp.KeyEvent("/"))
	if focused, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`)); err != nil || focused != "site-search" {
		t.Fatalf("after / the focus is on %q (%v)", focused, err)
	}

	// The conflict page is a 409 and the not-found page a 404 on purpose, which Chromium reports as
	// failed loads; anything else (a blocked inline script or style, a failed asset, an exception)
	// fails the test.
	expected := func(e string) bool {
		return strings.Contains(e, "status of 409 (Conflict)") ||
			strings.Contains(e, "status of 404 (Not Found)") && strings.HasSuffix(e, "/app/no-such-page)")
	}
	var errs []string
	for _, e := range logs.all() {
		if !expected(e) {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		t.Fatalf("the browser reported errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserAppWithoutScript writes and edits a note in Chromium with JavaScript disabled: the
// forms alone do it. On SQLite and PostgreSQL.
func TestBrowserAppWithoutScript(t *testing.T) {
	apitest.EachDB(t, func(t *testing.T, kind string) {
		f := newAppFixture(t, kind)
		ctx, _ := chromium(t)
		d := driver{t: t, ctx: ctx, out: t.TempDir()}
		d.run("no script", noScript(), browserZone("Europe/Berlin"))
		d.signIn(f.s.URL, f.person)
		d.run("new note",
			chromedp.Navigate(f.s.URL+"/app/notes/new?notebookId="+f.notebook),
			chromedp.WaitVisible(chromedp.CSS(`#content`)),
			chromedp.SendKeys(chromedp.CSS(`#content`), "Written without script"),
			chromedp.Click(chromedp.CSS(`#preview`)),
			chromedp.WaitVisible(chromedp.CSS(`#preview-body`)),
			chromedp.Click(chromedp.CSS(`#save`)),
			chromedp.WaitVisible(chromedp.CSS(`#note-body`)),
		)
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		id := strings.TrimSuffix(strings.TrimPrefix(loc, f.s.URL+"/app/notes/"), "?done=created")
		if got := f.content(t, id); got != "Written without script" {
			t.Fatalf("the API reads %q", got)
		}
		d.run("edit",
			chromedp.Click(chromedp.CSS(`#edit`)),
			chromedp.WaitVisible(chromedp.CSS(`#content`)),
			chromedp.SetValue(chromedp.CSS(`#content`), "Written without script, then edited"),
			chromedp.Click(chromedp.CSS(`#save`)),
			chromedp.WaitVisible(chromedp.CSS(`#note-body`)),
		)
		if got := f.content(t, id); got != "Written without script, then edited" {
			t.Fatalf("after the edit the API reads %q", got)
		}
		// The page's script did not run: the browser's zone was not learned, Focus stays in UTC.
		d.run("focus", chromedp.Navigate(f.s.URL+"/app"), chromedp.WaitVisible(chromedp.CSS(`main h1`)))
		if got := d.pageText(); !strings.Contains(got, "in UTC") {
			t.Fatalf("without script Focus says %q", got)
		}
	})
}
