package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"folio/tests/apitest"
	"folio/tests/testenv"
)

// chromiumEnv says where the browser tests find Chromium: unset, Debian's /usr/bin/chromium when
// it is there (.ci/run installs it), else a container of testenv's Chromium image
// (FOLIO_TEST_CHROMIUM_IMAGE); "container", always the container; anything else, the path of a
// Chromium binary.
const chromiumEnv = "FOLIO_TEST_CHROMIUM"

// localChromium is the binary used when chromiumEnv is unset and it exists.
const localChromium = "/usr/bin/chromium"

// outputDir is where the browser test keeps its screenshots: tests/output/web (git-ignored).
func outputDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "output", "web"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// executable says why path is not an executable file, or nil.
func executable(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", path)
	}
	return nil
}

// chromium starts a headless Chromium with a fresh profile and returns a browser context, and
// the page's console errors as they come. chromiumEnv chooses where it comes from: a local
// binary, or a new browser context (its own cookies and storage) in the Chromium container that
// testenv starts once per test binary. A missing Chromium fails the test (it is never skipped):
// the UI must be tested in a real browser.
func chromium(t *testing.T) (context.Context, *consoleLog) {
	t.Helper()
	exe := os.Getenv(chromiumEnv)
	if exe == "" {
		exe = localChromium
		if executable(exe) != nil {
			exe = "container"
		}
	}
	var ctx context.Context
	if exe == "container" {
		ctx = containerChromium(t)
	} else {
		ctx = localChromiumContext(t, exe)
	}
	// The first Run starts the browser (or opens the context's tab); it lives as long as ctx.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium (%s): %v", exe, err)
	}
	logs := &consoleLog{}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				logs.add(m.String() + " (" + m.URL + ")")
			}
		}
	}()
	return ctx, logs
}

// localChromiumContext starts the Chromium binary exe with a fresh profile, for this test only.
func localChromiumContext(t *testing.T, exe string) context.Context {
	t.Helper()
	if err := executable(exe); err != nil {
		t.Fatalf("the browser test needs a headless Chromium at %s (%v).\n"+
			"Install Debian's package: apt-get update && apt-get install -y chromium (.ci/run does this), "+
			"set %s to a Chromium binary, or set it to \"container\" for the Chromium image "+
			"(bash .ci/build-test-images.sh chromium).", exe, err, chromiumEnv)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithLogf(t.Logf))
	t.Cleanup(cancel)
	return ctx
}

// containerChromium attaches to the Chromium container (started with the host's network, so it
// reaches the test server on 127.0.0.1) and opens a new browser context in it: the test's own
// cookies and storage, disposed of when the test ends. The container's window is 1280×900, as
// the local browser's.
func containerChromium(t *testing.T) context.Context {
	t.Helper()
	devtools := testenv.ChromiumDevTools(t)
	alloc, cancelAlloc := remote.NewAllocator(context.Background(), devtools)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithNewBrowserContext(), chromedp.WithLogf(t.Logf))
	t.Cleanup(cancel)
	t.Logf("Chromium: a container of %s (DevTools %s)", testenv.ChromiumImage(), devtools)
	return ctx
}

// driver runs steps in a browser context for a test, reads text from the page and keeps
// screenshots in out.
type driver struct {
	t   *testing.T
	ctx context.Context
	out string
}

// run performs steps, failing the test with what when one fails.
func (d driver) run(what string, steps ...chromedp.Action[chromedp.Void]) {
	d.t.Helper()
	if err := chromedp.Do(d.ctx, steps...); err != nil {
		d.t.Fatalf("%s: %v", what, err)
	}
}

// text is the visible text of the element sel, trimmed.
func (d driver) text(sel string) string {
	d.t.Helper()
	s, err := chromedp.Run(d.ctx, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
	if err != nil {
		d.t.Fatalf("read %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

// shot saves a full-page screenshot as out/name.
func (d driver) shot(name string) {
	d.t.Helper()
	png, err := chromedp.Run(d.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		d.t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(d.out, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		d.t.Fatal(err)
	}
	d.t.Logf("screenshot: %s", path)
}

// consoleLog collects what the page reports as errors: a CSP violation (an inline script or
// style the policy blocked), a failed asset, an exception.
type consoleLog struct {
	mu      sync.Mutex
	entries []string
}

func (l *consoleLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, s)
}

func (l *consoleLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.entries...)
}

// TestBrowserKeyLifecycle drives the settings UI in a real headless Chromium: sign up, create a
// key, read it from the page and use it on the API, rotate it (the old key gets 401), revoke the
// new one (401), create one that expires on a date (the listing shows it), list a calendar feed made
// with the key (active, then stopped once its key is revoked) and delete it through its
// confirmation. It keeps screenshots of the keys page, on a desktop and on a phone, in
// tests/output/web.
func TestBrowserKeyLifecycle(t *testing.T) {
	ctx, logs := chromium(t)
	s := apitest.Start(t, "sqlite")
	a := newAccount("Ada Browser")
	out := outputDir(t)
	d := driver{t: t, ctx: ctx, out: out}
	run, text, shot := d.run, d.text, d.shot

	// Sign up.
	run("sign up",
		chromedp.Navigate(s.URL+"/signup"),
		chromedp.WaitVisible(chromedp.CSS(`#name`)),
	)
	shot("signup.png")
	run("sign up",
		chromedp.SendKeys(chromedp.CSS(`#name`), a.Name),
		chromedp.SendKeys(chromedp.CSS(`#email`), a.Email),
		chromedp.SendKeys(chromedp.CSS(`#password`), a.Password),
		chromedp.SendKeys(chromedp.CSS(`#confirm`), a.Password),
		chromedp.Click(chromedp.CSS(`form.form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice`)),
	)
	if got := text(".notice"); !strings.Contains(got, "Welcome to folio, Ada Browser.") {
		t.Fatalf("after sign-up the page says %q", got)
	}

	// Create a key: read+write, on everything.
	run("create a key",
		chromedp.Click(chromedp.CSS(`a[href="/settings/keys/new"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#name`)),
		chromedp.SendKeys(chromedp.CSS(`#name`), "Laptop CLI"),
		chromedp.Click(chromedp.CSS(`#scope-readwrite`)),
	)
	shot("new-key.png")
	run("create a key",
		chromedp.Click(chromedp.CSS(`form button[type=submit].btn-primary`)),
		chromedp.WaitVisible(chromedp.CSS(`#raw-key`)),
	)
	key := text("#raw-key")
	if !anyKeyRe.MatchString(key) || len(key) != len("svc_live_")+8+1+24 {
		t.Fatalf("the page shows %q, not a key", key)
	}
	shot("key-created.png")
	// The copy button is the page's only script: it is shown (the script ran under the CSP) and
	// reports what it did.
	run("copy", chromedp.Click(chromedp.CSS(`button[data-copy]`), chromedp.NodeVisible))
	status, err := chromedp.Run(ctx, chromedp.Poll[string](`document.getElementById("copy-status").textContent`, chromedp.WithPollingTimeout(5*time.Second)))
	if err != nil || status == "" {
		t.Fatalf("the copy button reported nothing (%v)", err)
	}
	apitest.Must(t, s.Get(t, key, "/notebooks"), 200)
	apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "Made with the key"}), 201)

	// A calendar feed made with the key (feeds are made through the API).
	feed := apitest.Must(t, s.Post(t, key, "/calendar-feeds", map[string]any{"name": "Work calendar"}), 201).Str(t, "id")
	feedRow := fmt.Sprintf(`tr[data-feed="%s"]`, feed)

	// The keys page lists it, and the feed below it; keep screenshots (desktop and phone).
	prefix := apitest.KeyPrefix(t, key)
	row := fmt.Sprintf(`tr[data-prefix="%s"]`, prefix)
	run("keys page", chromedp.Navigate(s.URL+"/settings/keys"), chromedp.WaitVisible(chromedp.CSS(row)))
	if got := text(row); !strings.Contains(got, "Laptop CLI") || !strings.Contains(got, "svc_live_"+prefix) || !strings.Contains(got, "read+write") ||
		!strings.Contains(got, "Active") || !strings.Contains(got, "1 calendar feed") {
		t.Fatalf("the key's row says %q", got)
	}
	if got := text(feedRow); !strings.Contains(got, "Work calendar") || !strings.Contains(got, "All notebooks") || !strings.Contains(got, "Laptop CLI") || !strings.Contains(got, "Active") {
		t.Fatalf("the feed's row says %q", got)
	}
	html, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, key) {
		t.Fatal("the keys page shows the raw key again")
	}
	shot("keys.png")

	// Rotate: confirm, read the new key, the old one is refused at once.
	run("rotate",
		chromedp.Click(chromedp.CSS(row+` a[href$="/rotate"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.confirm-card`)),
		chromedp.Click(chromedp.CSS(`.confirm-card button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#raw-key`)),
	)
	rotated := text("#raw-key")
	if rotated == key || !anyKeyRe.MatchString(rotated) {
		t.Fatalf("rotation showed %q (old %q)", rotated, key)
	}
	apitest.CheckEnvelope(t, s.Get(t, key, "/notebooks"), 401, "UNAUTHENTICATED")
	apitest.Must(t, s.Get(t, rotated, "/notebooks"), 200)

	// Revoke the new key: confirm; it is refused at once.
	newRow := fmt.Sprintf(`tr[data-prefix="%s"]`, apitest.KeyPrefix(t, rotated))
	run("revoke",
		chromedp.Navigate(s.URL+"/settings/keys"),
		chromedp.WaitVisible(chromedp.CSS(newRow)),
		chromedp.Click(chromedp.CSS(newRow+` a[href$="/revoke"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.confirm-card`)),
	)
	shot("revoke-confirm.png")
	run("revoke",
		chromedp.Click(chromedp.CSS(`.confirm-card button.btn-danger`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice`)),
	)
	if got := text(".notice"); !strings.Contains(got, "is revoked") {
		t.Fatalf("after revoking the page says %q", got)
	}
	apitest.CheckEnvelope(t, s.Get(t, rotated, "/notebooks"), 401, "UNAUTHENTICATED")

	// A second key, expiring on a date, so that the final screenshots show an active key beside
	// the history. The date field shows only once "On a date…" is chosen (CSS alone, no script).
	run("second key",
		chromedp.Navigate(s.URL+"/settings/keys/new"),
		chromedp.WaitVisible(chromedp.CSS(`#name`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#expires_on`)),
		chromedp.SendKeys(chromedp.CSS(`#name`), "Weekly report script"),
		chromedp.SetValue(chromedp.CSS(`#expires`), "date"),
		chromedp.WaitVisible(chromedp.CSS(`#expires_on`)),
		chromedp.SetValue(chromedp.CSS(`#expires_on`), "2099-12-31"),
	)
	shot("new-key-expiry.png")
	run("second key",
		chromedp.Click(chromedp.CSS(`form button[type=submit].btn-primary`)),
		chromedp.WaitVisible(chromedp.CSS(`#raw-key`)),
		chromedp.Navigate(s.URL+"/settings/keys"),
		chromedp.WaitVisible(chromedp.CSS(`#inactive-keys`)),
	)
	if got := text(`#active-keys tbody tr`); !strings.Contains(got, "Weekly report script") || !strings.Contains(got, "expires 31 Dec 2099") {
		t.Fatalf("the expiring key's row says %q", got)
	}
	if got := text(feedRow); !strings.Contains(got, "Stopped: its key was revoked") {
		t.Fatalf("after its rotated key was revoked the feed's row says %q", got)
	}
	shot("keys-history.png")
	run("phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#active-keys`)))
	shot("keys-phone.png")

	// Delete the feed through its confirmation page.
	run("delete the feed",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(s.URL+"/settings/keys#calendar-feeds"),
		chromedp.WaitVisible(chromedp.CSS(feedRow)),
		chromedp.Click(chromedp.CSS(feedRow+` a[href$="/delete"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.confirm-card`)),
	)
	shot("feed-delete-confirm.png")
	run("delete the feed",
		chromedp.Click(chromedp.CSS(`.confirm-card button.btn-danger`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice`)),
	)
	if got := text(".notice"); !strings.Contains(got, "The calendar feed was deleted.") {
		t.Fatalf("after deleting the feed the page says %q", got)
	}
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('tr[data-feed]').length`)); err != nil || n != 0 {
		t.Fatalf("after the delete the page lists %d feeds (%v)", n, err)
	}
	run("keys page", chromedp.Navigate(s.URL+"/settings/keys"), chromedp.WaitVisible(chromedp.CSS(`#active-keys`)))

	// Sign out through the header's button: the session is gone.
	run("sign out",
		chromedp.Click(chromedp.CSS(`.signout button`)),
		chromedp.WaitVisible(chromedp.CSS(`.notice`)),
	)
	if got := text(".notice"); got != "You have signed out." {
		t.Fatalf("after sign-out the page says %q", got)
	}
	run("settings after sign-out", chromedp.Navigate(s.URL+"/settings/keys"), chromedp.WaitVisible(chromedp.CSS(`form[action="/signin"]`)))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.HasSuffix(loc, signInFor("/settings/keys")) {
		t.Fatalf("after sign-out /settings/keys went to %s", loc)
	}

	if errs := logs.all(); len(errs) > 0 {
		t.Fatalf("the browser reported errors (a blocked inline script or style, a failed asset?):\n%s", strings.Join(errs, "\n"))
	}
}
