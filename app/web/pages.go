package web

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"folio/modules/accounts"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/ids"
)

// Messages the forms show. Tests match them; keep them plain and specific.
const (
	msgBadSignIn     = "The email address or password is wrong."
	msgTooMany       = "Too many failed attempts from your network. Wait a minute, then try again."
	msgFormExpired   = "This form had expired, so nothing was sent. Please try again."
	msgSignInMissing = "Enter your email address and password."
)

// --- signed out: sign-up and sign-in ---------------------------------------------------------

// signedOutPage starts a signed-out page (sign-up, sign-in) titled title; a browser that has a
// session is sent to its keys instead (false).
func (w *Handler) signedOutPage(c *gin.Context, title string) (authView, bool) {
	if w.hasSession(c) {
		c.Redirect(http.StatusSeeOther, "/settings/keys")
		return authView{}, false
	}
	v := authView{view: w.base(nil, title, "")}
	v.CSRF = w.preSessionToken(c)
	return v, true
}

func (w *Handler) signupPage(c *gin.Context) {
	if v, ok := w.signedOutPage(c, "Create your account"); ok {
		w.render(c, http.StatusOK, "signup", v)
	}
}

func (w *Handler) signup(c *gin.Context) {
	ctx := c.Request.Context()
	v := authView{view: w.base(nil, "Create your account", ""), Errors: map[string]string{}}
	cookie, _ := c.Cookie(preSessionCSRF)
	if !w.formTokenMatches(c, cookie) {
		v.Name, v.Email = c.Request.PostForm.Get("name"), c.Request.PostForm.Get("email")
		v.CSRF, v.Error = w.freshPreSessionToken(c), msgFormExpired
		w.render(c, http.StatusForbidden, "signup", v)
		return
	}
	v.CSRF = cookie
	form := c.Request.PostForm
	v.Name, v.Email = strings.TrimSpace(form.Get("name")), strings.TrimSpace(form.Get("email"))
	password, confirm := form.Get("password"), form.Get("confirm")
	if w.overFailureLimit(ctx, c) {
		c.Header("Retry-After", "60")
		v.Error = msgTooMany
		w.render(c, http.StatusTooManyRequests, "signup", v)
		return
	}
	maps.Copy(v.Errors, accounts.CheckNewUser(v.Email, v.Name, password))
	if password == "" { // the service lets the CLI create an account without one; the form does not
		v.Errors["password"] = "Choose a password."
	}
	if password != "" && v.Errors["password"] == "" && confirm != password {
		v.Errors["confirm"] = "The two passwords don't match."
	}
	if len(v.Errors) > 0 {
		w.render(c, http.StatusBadRequest, "signup", v)
		return
	}
	u, err := w.svc.CreateUser(ctx, v.Email, v.Name, password)
	var invalid accounts.Invalid
	switch {
	case errors.Is(err, accounts.ErrEmailTaken):
		// Telling this is what a sign-up form must do; counting it against the address keeps the
		// form from being a faster way than sign-in to learn which addresses have accounts.
		w.countFailure(ctx, c)
		v.Errors["email"] = "An account with this email address already exists. Sign in instead."
	case errors.As(err, &invalid):
		maps.Copy(v.Errors, invalid)
	case err != nil:
		w.internal(c, nil, err)
		return
	}
	if len(v.Errors) > 0 {
		w.render(c, http.StatusBadRequest, "signup", v)
		return
	}
	si, err := w.svc.OpenSession(ctx, u)
	if err != nil {
		w.internal(c, nil, err)
		return
	}
	w.startSession(c, si)
	c.Redirect(http.StatusSeeOther, "/settings/keys?welcome=1")
}

func (w *Handler) signinPage(c *gin.Context) {
	v, ok := w.signedOutPage(c, "Sign in")
	if !ok {
		return
	}
	switch {
	case c.Query("signedout") != "":
		v.Notice = "You have signed out."
	case c.Query("password") != "":
		v.Notice = "Your password was changed. Sign in with the new one."
	}
	w.render(c, http.StatusOK, "signin", v)
}

func (w *Handler) signin(c *gin.Context) {
	ctx := c.Request.Context()
	v := authView{view: w.base(nil, "Sign in", "")}
	cookie, _ := c.Cookie(preSessionCSRF)
	if !w.formTokenMatches(c, cookie) {
		v.Email = c.Request.PostForm.Get("email")
		v.CSRF, v.Error = w.freshPreSessionToken(c), msgFormExpired
		w.render(c, http.StatusForbidden, "signin", v)
		return
	}
	v.CSRF = cookie
	v.Email = strings.TrimSpace(c.Request.PostForm.Get("email"))
	password := c.Request.PostForm.Get("password")
	// Over the limit, the password is not even checked: a right guess must look like a wrong one.
	// Except from a known device of this account (a browser that signed in to it before, since
	// its last password change), which has a budget of its own: a client failing sign-ins
	// behind the same address does not lock it out.
	device := ""
	if w.overFailureLimit(ctx, c) {
		if d, ok := w.knownDevice(ctx, c, v.Email); ok && !w.overLimit(ctx, deviceFailureKey(d)) {
			device = d
		} else {
			c.Header("Retry-After", "60")
			v.Error = msgTooMany
			w.render(c, http.StatusTooManyRequests, "signin", v)
			return
		}
	}
	if v.Email == "" || password == "" {
		v.Error = msgSignInMissing
		w.render(c, http.StatusBadRequest, "signin", v)
		return
	}
	si, err := w.svc.SignIn(ctx, v.Email, password)
	if errors.Is(err, accounts.ErrBadSignIn) {
		w.countFailure(ctx, c)
		if device != "" {
			_, _ = w.failures.Allow(ctx, deviceFailureKey(device))
		}
		v.Error = msgBadSignIn
		w.render(c, http.StatusUnauthorized, "signin", v)
		return
	}
	if err != nil {
		w.internal(c, nil, err)
		return
	}
	w.startSession(c, si)
	c.Redirect(http.StatusSeeOther, "/settings/keys")
}

// startSession sets the new session's cookie, ending the session the browser had before (if
// any). The pre-session token stays, so that a sign-in form open in another tab still works.
func (w *Handler) startSession(c *gin.Context, si accounts.SignedIn) {
	if old, err := c.Cookie(auth.SessionCookie); err == nil && old != "" {
		_ = w.svc.SignOut(c.Request.Context(), old)
	}
	w.setSession(c, si)
}

// hasSession tells whether the browser is signed in (the sign-in and sign-up pages then send it on).
func (w *Handler) hasSession(c *gin.Context) bool {
	token, err := c.Cookie(auth.SessionCookie)
	if err != nil || token == "" {
		return false
	}
	_, err = w.svc.CurrentSession(c.Request.Context(), token)
	return err == nil
}

// overFailureLimit reports whether the client address has used up its failed attempts on the
// forms (sign-in, sign-up, password change: one budget, auth.FormFailureKey).
func (w *Handler) overFailureLimit(ctx context.Context, c *gin.Context) bool {
	return w.overLimit(ctx, auth.FormFailureKey(c.ClientIP()))
}

func (w *Handler) overLimit(ctx context.Context, key string) bool {
	d, err := w.failures.Peek(ctx, key)
	return err == nil && !d.Allowed
}

// deviceFailureKey is the failure limiter's key of a known device (by its token's nonce).
func deviceFailureKey(nonce string) string { return "devicefail:" + nonce }

// knownDevice reports whether the browser holds a known-device token of the account with this
// email, and returns its nonce.
func (w *Handler) knownDevice(ctx context.Context, c *gin.Context, email string) (string, bool) {
	token, err := c.Cookie(accounts.DeviceCookie)
	if err != nil || token == "" || email == "" {
		return "", false
	}
	return w.svc.KnownDevice(ctx, email, token)
}

// setDevice gives the browser its known-device token (after a sign-in or a password change).
func (w *Handler) setDevice(c *gin.Context, si accounts.SignedIn) {
	if si.Device != "" {
		w.setCookie(c, accounts.DeviceCookie, si.Device, accounts.DeviceCookieMaxAge)
	}
}

func (w *Handler) countFailure(ctx context.Context, c *gin.Context) {
	_, _ = w.failures.Allow(ctx, auth.FormFailureKey(c.ClientIP()))
}

// --- signed in -------------------------------------------------------------------------------

func (w *Handler) signout(c *gin.Context, sess accounts.Session) {
	token, _ := c.Cookie(auth.SessionCookie)
	if err := w.svc.SignOut(c.Request.Context(), token); err != nil {
		w.internal(c, &sess, err)
		return
	}
	w.setCookie(c, auth.SessionCookie, "", -1)
	c.Redirect(http.StatusSeeOther, "/signin?signedout=1")
}

func (w *Handler) keysPage(c *gin.Context, sess accounts.Session) {
	ctx := c.Request.Context()
	keys, err := w.svc.Keys(ctx, sess.UserID)
	if err != nil {
		w.internal(c, &sess, err)
		return
	}
	wss, nbs, err := w.places.KeyPlaces(ctx, sess.UserID)
	if err != nil {
		w.internal(c, &sess, err)
		return
	}
	hooks, err := w.webhooks.ForUser(ctx, sess.UserID)
	if err != nil {
		w.internal(c, &sess, err)
		return
	}
	v := keysView{view: w.base(&sess, "API keys", "keys"), Webhooks: webhookRows(hooks)}
	v.Active, v.Inactive = keyRows(keys, wss, nbs, w.clock.Now())
	webhooksOfKeys(v.Active, hooks)
	webhooksOfKeys(v.Inactive, hooks)
	if p := c.Query("revoked"); p != "" {
		for _, k := range keys {
			if k.Prefix == p && k.RevokedAt != nil {
				v.Notice = "The key “" + k.Name + "” (" + auth.DisplayPrefix(k.Prefix) + ") is revoked. Anything that used it has lost access."
				switch n := webhookCount(hooks, k.ID); {
				case n == 1:
					v.Notice += " Its webhook has stopped delivering."
				case n > 1:
					v.Notice += " Its " + countWebhooks(n) + " have stopped delivering."
				}
			}
		}
	}
	if c.Query("webhook_deleted") != "" {
		v.Notice = "The webhook was deleted. It receives no more events."
	}
	if c.Query("welcome") != "" {
		v.Notice = "Welcome to folio, " + sess.User.Name + ". Create an API key to connect your scripts and tools."
	}
	w.render(c, http.StatusOK, "keys", v)
}

func (w *Handler) newKeyPage(c *gin.Context, sess accounts.Session) {
	wss, nbs, err := w.places.KeyPlaces(c.Request.Context(), sess.UserID)
	if err != nil {
		w.internal(c, &sess, err)
		return
	}
	v := newKeyView{view: w.base(&sess, "Create an API key", "keys"), Scope: auth.ScopeRead, Expires: "never", Workspaces: wss, Notebooks: nbs}
	v.MinDate = minExpiryDate(w.clock.Now())
	w.render(c, http.StatusOK, "newkey", v)
}

func (w *Handler) createKey(c *gin.Context, sess accounts.Session) {
	ctx := c.Request.Context()
	wss, nbs, err := w.places.KeyPlaces(ctx, sess.UserID)
	if err != nil {
		w.internal(c, &sess, err)
		return
	}
	form := c.Request.PostForm
	v := newKeyView{
		view: w.base(&sess, "Create an API key", "keys"), Name: form.Get("name"), Access: form.Get("access"),
		Expires: form.Get("expires"), ExpiresOn: strings.TrimSpace(form.Get("expires_on")),
		Workspaces: wss, Notebooks: nbs, Errors: map[string]string{},
	}
	now := w.clock.Now()
	v.MinDate = minExpiryDate(now)
	in := accounts.NewKey{UserID: sess.UserID, Name: v.Name}
	in.Scope, _ = strconv.Atoi(form.Get("scope")) // not a number: 0, which the rules refuse
	maps.Copy(v.Errors, accounts.CheckNewKey(in))
	if v.Errors["scope"] == "" {
		v.Scope = in.Scope
	}
	if v.Access != "" {
		kind, id, _ := strings.Cut(v.Access, ":")
		switch {
		case kind == "workspace" && hasPlace(wss, id):
			in.WorkspaceID = &id
		case kind == "notebook" && hasPlace(nbs, id):
			in.NotebookID = &id
		default:
			v.Errors["access"] = "Choose a workspace or notebook from the list."
		}
	}
	in.ExpiresAt = formExpiry(v.Expires, v.ExpiresOn, now, v.Errors)
	if v.Expires == "" {
		v.Expires = "never"
	}
	if len(v.Errors) > 0 {
		w.render(c, http.StatusBadRequest, "newkey", v)
		return
	}
	raw, key, err := w.svc.CreateKey(ctx, in)
	var ae *apierr.Error
	var invalid accounts.Invalid
	switch {
	case err == nil:
	case errors.As(err, &invalid):
		maps.Copy(v.Errors, invalid)
	case errors.As(err, &ae) && ae.Status < 500:
		// The restriction check: the workspace or notebook left the user's reach meanwhile.
		v.Errors["access"] = "You no longer have access to that workspace or notebook. Choose another."
	default:
		w.internal(c, &sess, err)
		return
	}
	if len(v.Errors) > 0 {
		w.render(c, http.StatusBadRequest, "newkey", v)
		return
	}
	w.showSecret(c, sess, raw, key, wss, nbs, "", 0)
}

// formExpiry reads the new-key form's expiry: the choice "never" (also when the form has none),
// "30", "90" or "365" days from now, or "date" with the date field (YYYY-MM-DD): the key stops
// working when that day begins, 00:00 UTC, as `folio key create --expires YYYY-MM-DD`. A mistake
// is recorded in errs under the field to fix ("expires" or "expires_on").
func formExpiry(choice, date string, now time.Time, errs map[string]string) *time.Time {
	switch choice {
	case "", "never":
		return nil
	case "30", "90", "365":
		at, _ := accounts.ParseExpiry(choice+"d", now)
		return at
	case "date":
	default:
		errs["expires"] = "Choose when the key expires."
		return nil
	}
	d, err := time.Parse(time.DateOnly, date)
	switch {
	case date == "":
		errs["expires_on"] = "Choose the date on which the key stops working."
	case err != nil:
		errs["expires_on"] = "Enter the date as YYYY-MM-DD."
	case !d.After(now):
		errs["expires_on"] = "Choose a date after today (dates are in UTC)."
	default:
		if msg := accounts.ExpiryRule(d, now); msg != "" {
			errs["expires_on"] = msg
			return nil
		}
		return &d
	}
	return nil
}

// minExpiryDate is the first date the form's date field offers: tomorrow, UTC.
func minExpiryDate(now time.Time) string {
	return now.UTC().AddDate(0, 0, 1).Format(time.DateOnly)
}

// showSecret renders the only page that ever shows a raw key. It is the answer to the POST itself
// (never a page to come back to), and like every page of the UI it is not cached.
// After a rotation, moved is how many webhooks moved to the new key.
func (w *Handler) showSecret(c *gin.Context, sess accounts.Session, raw string, key accounts.APIKey, wss, nbs []auth.Place, oldPrefix string, moved int) {
	scheme := "http"
	if w.secure(c) {
		scheme = "https"
	}
	title := "Your new API key"
	if oldPrefix != "" {
		title = "Your rotated API key"
	}
	v := secretView{
		view: w.base(&sess, title, "keys"), Raw: raw, Key: rowOf(key, wss, nbs, w.clock.Now()), Rotated: oldPrefix != "",
		OldPrefix: oldPrefix, BaseURL: scheme + "://" + c.Request.Host,
	}
	if moved > 0 {
		v.Moved = countWebhooks(moved)
	}
	w.render(c, http.StatusOK, "secret", v)
}

const (
	actionRotate = "rotate"
	actionRevoke = "revoke"
)

// ownKey loads the key named by the :prefix path segment if it is one of the user's; otherwise it
// shows a not-found page and returns false.
func (w *Handler) ownKey(c *gin.Context, sess accounts.Session) (accounts.APIKey, bool) {
	prefix := c.Param("prefix")
	if auth.ValidPrefix(prefix) {
		k, err := w.svc.KeyByPrefix(c.Request.Context(), prefix)
		if err == nil && k.UserID == sess.UserID {
			return k, true
		}
		if err != nil && !errors.Is(err, accounts.ErrKeyNotFound) {
			w.internal(c, &sess, err)
			return accounts.APIKey{}, false
		}
	}
	w.keyNotFound(c, sess)
	return accounts.APIKey{}, false
}

func (w *Handler) keyNotFound(c *gin.Context, sess accounts.Session) {
	w.message(c, http.StatusNotFound, &sess, "Key not found", "None of your API keys has this prefix.")
}

func (w *Handler) keyAlreadyRevoked(c *gin.Context, sess accounts.Session) {
	w.message(c, http.StatusConflict, &sess, "This key is already revoked",
		"The key no longer works, so there is nothing to rotate or revoke. Create a new key instead.")
}

func (w *Handler) keyExpired(c *gin.Context, sess accounts.Session) {
	w.message(c, http.StatusConflict, &sess, "This key has expired",
		"The key no longer works, and a rotation would keep its expiry. Create a new key instead.")
}

func (w *Handler) confirmPage(action string) func(c *gin.Context, sess accounts.Session) {
	return func(c *gin.Context, sess accounts.Session) {
		k, ok := w.ownKey(c, sess)
		if !ok {
			return
		}
		if k.RevokedAt != nil {
			w.keyAlreadyRevoked(c, sess)
			return
		}
		if action == actionRotate && k.Expired(w.clock.Now()) {
			w.keyExpired(c, sess)
			return
		}
		wss, nbs, err := w.places.KeyPlaces(c.Request.Context(), sess.UserID)
		if err != nil {
			w.internal(c, &sess, err)
			return
		}
		hooks, err := w.webhooks.ForUser(c.Request.Context(), sess.UserID)
		if err != nil {
			w.internal(c, &sess, err)
			return
		}
		title := "Rotate key"
		if action == actionRevoke {
			title = "Revoke key"
		}
		row := rowOf(k, wss, nbs, w.clock.Now())
		row.Webhooks = webhookCount(hooks, k.ID)
		w.render(c, http.StatusOK, "confirm", confirmView{view: w.base(&sess, title, "keys"), Action: action, Key: row})
	}
}

func (w *Handler) rotateKey(c *gin.Context, sess accounts.Session) {
	ctx := c.Request.Context()
	prefix := c.Param("prefix")
	if !auth.ValidPrefix(prefix) {
		w.keyNotFound(c, sess)
		return
	}
	raw, key, err := w.svc.RotateOwnKey(ctx, sess.UserID, prefix)
	switch {
	case errors.Is(err, accounts.ErrKeyNotFound):
		w.keyNotFound(c, sess)
		return
	case errors.Is(err, accounts.ErrKeyRevoked):
		w.keyAlreadyRevoked(c, sess)
		return
	case errors.Is(err, accounts.ErrKeyExpired):
		w.keyExpired(c, sess)
		return
	case err != nil:
		w.internal(c, &sess, err)
		return
	}
	wss, nbs, err := w.places.KeyPlaces(ctx, sess.UserID)
	if err != nil {
		// The rotation is done and its key exists only in this response: show it with its
		// restriction unnamed rather than lose it.
		wss, nbs = nil, nil
	}
	moved := 0
	if hooks, err := w.webhooks.ForUser(ctx, sess.UserID); err == nil { // as above: the key comes first
		moved = webhookCount(hooks, key.ID)
	}
	w.showSecret(c, sess, raw, key, wss, nbs, auth.DisplayPrefix(prefix), moved)
}

func (w *Handler) revokeKey(c *gin.Context, sess accounts.Session) {
	prefix := c.Param("prefix")
	if !auth.ValidPrefix(prefix) {
		w.keyNotFound(c, sess)
		return
	}
	_, err := w.svc.RevokeOwnKey(c.Request.Context(), sess.UserID, prefix)
	switch {
	case errors.Is(err, accounts.ErrKeyNotFound):
		w.keyNotFound(c, sess)
	case errors.Is(err, accounts.ErrKeyRevoked):
		w.keyAlreadyRevoked(c, sess)
	case err != nil:
		w.internal(c, &sess, err)
	default:
		c.Redirect(http.StatusSeeOther, "/settings/keys?revoked="+prefix)
	}
}

func (w *Handler) accountPage(c *gin.Context, sess accounts.Session) {
	v := accountView{view: w.base(&sess, "Account", "account")}
	if c.Query("changed") != "" {
		v.Notice = "Your password was changed. Every other browser and device was signed out."
	}
	w.render(c, http.StatusOK, "account", v)
}

func (w *Handler) changePassword(c *gin.Context, sess accounts.Session) {
	ctx := c.Request.Context()
	form := c.Request.PostForm
	current, next, confirm := form.Get("current"), form.Get("new"), form.Get("confirm")
	v := accountView{view: w.base(&sess, "Account", "account"), Errors: map[string]string{}}
	if w.overFailureLimit(ctx, c) {
		c.Header("Retry-After", "60")
		v.Error = msgTooMany
		w.render(c, http.StatusTooManyRequests, "account", v)
		return
	}
	if current == "" {
		v.Errors["current"] = "Enter your current password."
	}
	if next == "" {
		v.Errors["new"] = "Choose a new password."
	} else if msg := accounts.PasswordRule(next); msg != "" {
		v.Errors["new"] = msg
	}
	if next != "" && v.Errors["new"] == "" && confirm != next {
		v.Errors["confirm"] = "The two passwords don't match."
	}
	if len(v.Errors) > 0 {
		w.render(c, http.StatusBadRequest, "account", v)
		return
	}
	si, err := w.svc.ChangePassword(ctx, sess.UserID, current, next)
	var invalid accounts.Invalid
	switch {
	case errors.Is(err, accounts.ErrBadPassword):
		w.countFailure(ctx, c)
		v.Errors["current"] = "That is not your current password."
		w.render(c, http.StatusBadRequest, "account", v)
		return
	case errors.As(err, &invalid):
		v.Errors["new"] = invalid["password"]
		w.render(c, http.StatusBadRequest, "account", v)
		return
	case err != nil:
		w.internal(c, &sess, err)
		return
	}
	w.setSession(c, si)
	c.Redirect(http.StatusSeeOther, "/settings/account?changed=1")
}

// --- helpers ---------------------------------------------------------------------------------

func hasPlace(list []auth.Place, id string) bool {
	if !ids.Valid(id) {
		return false
	}
	for _, p := range list {
		if p.ID == id {
			return true
		}
	}
	return false
}
