package keys

import (
	"errors"
	"html/template"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"

	"folio/app/web"
	"folio/modules/accounts"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/clock"
	"folio/platform/httpx"
	"folio/platform/ids"
)

// Handler serves the keys pages.
type Handler struct {
	svc      Accounts
	places   auth.KeyPlaces
	webhooks Webhooks
	feeds    CalendarFeeds
	clock    clock.Clock
	pages    *web.Pages
}

// HandlerParams are the dependencies of NewHandler.
type HandlerParams struct {
	fx.In
	Accounts Accounts
	Places   auth.KeyPlaces
	Webhooks Webhooks
	Feeds    CalendarFeeds
	Clock    clock.Clock
	Site     *web.Site
}

// NewHandler returns the keys pages.
func NewHandler(p HandlerParams) (*Handler, error) {
	pages, err := p.Site.Pages(templateFS, "templates", template.FuncMap{"hooks": countWebhooks, "feeds": countFeeds})
	if err != nil {
		return nil, err
	}
	return &Handler{svc: p.Accounts, places: p.Places, webhooks: p.Webhooks, feeds: p.Feeds, clock: p.Clock, pages: pages}, nil
}

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	g := web.Group(r)
	g.GET("/settings", func(c *gin.Context) { c.Redirect(http.StatusSeeOther, "/settings/keys") })
	g.GET("/settings/keys", h.pages.SignedIn(h.keysPage))
	g.GET("/settings/keys/new", h.pages.SignedIn(h.newKeyPage))
	g.POST("/settings/keys", h.pages.SignedIn(h.createKey))
	g.GET("/settings/keys/:prefix/rotate", h.pages.SignedIn(h.confirmPage(actionRotate)))
	g.POST("/settings/keys/:prefix/rotate", h.pages.SignedIn(h.rotateKey))
	g.GET("/settings/keys/:prefix/revoke", h.pages.SignedIn(h.confirmPage(actionRevoke)))
	g.POST("/settings/keys/:prefix/revoke", h.pages.SignedIn(h.revokeKey))
	g.GET("/settings/webhooks", func(c *gin.Context) { c.Redirect(http.StatusSeeOther, "/settings/keys#webhooks") })
	g.GET("/settings/webhooks/:id/delete", h.pages.SignedIn(h.deleteWebhookPage))
	g.POST("/settings/webhooks/:id/delete", h.pages.SignedIn(h.deleteWebhook))
	g.GET("/settings/calendar-feeds", func(c *gin.Context) { c.Redirect(http.StatusSeeOther, "/settings/keys#calendar-feeds") })
	g.GET("/settings/calendar-feeds/:id/delete", h.pages.SignedIn(h.deleteFeedPage))
	g.POST("/settings/calendar-feeds/:id/delete", h.pages.SignedIn(h.deleteFeed))
}

func (h *Handler) keysPage(c *gin.Context, sess accounts.Session) {
	ctx := c.Request.Context()
	keys, err := h.svc.Keys(ctx, sess.UserID)
	if err != nil {
		h.pages.Internal(c, &sess, err)
		return
	}
	wss, nbs, err := h.places.KeyPlaces(ctx, sess.UserID)
	if err != nil {
		h.pages.Internal(c, &sess, err)
		return
	}
	x, err := h.held(ctx, sess.UserID)
	if err != nil {
		h.pages.Internal(c, &sess, err)
		return
	}
	v := keysView{View: web.Base(&sess, "API keys", "keys"), Webhooks: webhookRows(x.hooks), Feeds: feedRows(x.feeds, nbs)}
	v.Active, v.Inactive = keyRows(keys, wss, nbs, h.clock.Now())
	x.fill(v.Active)
	x.fill(v.Inactive)
	if p := c.Query("revoked"); p != "" {
		for _, k := range keys {
			if k.Prefix == p && k.RevokedAt != nil {
				v.Notice = "The key “" + k.Name + "” (" + auth.DisplayPrefix(k.Prefix) + ") is revoked. Anything that used it has lost access."
				hooks, feeds := x.count(k.ID)
				switch {
				case hooks == 1:
					v.Notice += " Its webhook has stopped delivering."
				case hooks > 1:
					v.Notice += " Its " + countWebhooks(hooks) + " have stopped delivering."
				}
				switch {
				case feeds == 1:
					v.Notice += " Its calendar feed has stopped (its address answers 404)."
				case feeds > 1:
					v.Notice += " Its " + countFeeds(feeds) + " have stopped (their addresses answer 404)."
				}
			}
		}
	}
	if c.Query("webhook_deleted") != "" {
		v.Notice = "The webhook was deleted. It receives no more events."
	}
	if c.Query("feed_deleted") != "" {
		v.Notice = "The calendar feed was deleted. Its address answers 404 from now on: remove the subscription from your calendar app."
	}
	if c.Query("welcome") != "" {
		v.Notice = "Welcome to folio, " + sess.User.Name + ". Create an API key to connect your scripts and tools."
	}
	h.pages.Render(c, http.StatusOK, "keys", v)
}

func (h *Handler) newKeyPage(c *gin.Context, sess accounts.Session) {
	wss, nbs, err := h.places.KeyPlaces(c.Request.Context(), sess.UserID)
	if err != nil {
		h.pages.Internal(c, &sess, err)
		return
	}
	v := newKeyView{View: web.Base(&sess, "Create an API key", "keys"), Scope: auth.ScopeRead, Expires: "never", Workspaces: wss, Notebooks: nbs}
	v.MinDate = minExpiryDate(h.clock.Now())
	h.pages.Render(c, http.StatusOK, "newkey", v)
}

func (h *Handler) createKey(c *gin.Context, sess accounts.Session) {
	ctx := c.Request.Context()
	wss, nbs, err := h.places.KeyPlaces(ctx, sess.UserID)
	if err != nil {
		h.pages.Internal(c, &sess, err)
		return
	}
	form := c.Request.PostForm
	v := newKeyView{
		View: web.Base(&sess, "Create an API key", "keys"), Name: form.Get("name"), Access: form.Get("access"),
		Expires: form.Get("expires"), ExpiresOn: strings.TrimSpace(form.Get("expires_on")),
		Workspaces: wss, Notebooks: nbs, Errors: map[string]string{},
	}
	now := h.clock.Now()
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
		h.pages.Render(c, http.StatusBadRequest, "newkey", v)
		return
	}
	raw, key, err := h.svc.CreateKey(ctx, in)
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
		h.pages.Internal(c, &sess, err)
		return
	}
	if len(v.Errors) > 0 {
		h.pages.Render(c, http.StatusBadRequest, "newkey", v)
		return
	}
	h.showSecret(c, sess, raw, key, wss, nbs, "", 0, 0)
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
// After a rotation, hooks and feeds are how many webhooks and calendar feeds moved to the new key.
func (h *Handler) showSecret(c *gin.Context, sess accounts.Session, raw string, key accounts.APIKey, wss, nbs []auth.Place, oldPrefix string, hooks, feeds int) {
	scheme := "http"
	if h.pages.Secure(c) {
		scheme = "https"
	}
	title := "Your new API key"
	if oldPrefix != "" {
		title = "Your rotated API key"
	}
	v := secretView{
		View: web.Base(&sess, title, "keys"), Raw: raw, Key: rowOf(key, wss, nbs, h.clock.Now()), Rotated: oldPrefix != "",
		OldPrefix: oldPrefix, BaseURL: scheme + "://" + c.Request.Host,
	}
	if hooks > 0 {
		v.Moved = countWebhooks(hooks)
	}
	if feeds > 0 {
		v.MovedFeeds = countFeeds(feeds)
	}
	h.pages.Render(c, http.StatusOK, "secret", v)
}

const (
	actionRotate = "rotate"
	actionRevoke = "revoke"
)

// ownKey loads the key named by the :prefix path segment if it is one of the user's; otherwise it
// shows a not-found page and returns false.
func (h *Handler) ownKey(c *gin.Context, sess accounts.Session) (accounts.APIKey, bool) {
	prefix := c.Param("prefix")
	if auth.ValidPrefix(prefix) {
		k, err := h.svc.KeyByPrefix(c.Request.Context(), prefix)
		if err == nil && k.UserID == sess.UserID {
			return k, true
		}
		if err != nil && !errors.Is(err, accounts.ErrKeyNotFound) {
			h.pages.Internal(c, &sess, err)
			return accounts.APIKey{}, false
		}
	}
	h.keyNotFound(c, sess)
	return accounts.APIKey{}, false
}

func (h *Handler) keyNotFound(c *gin.Context, sess accounts.Session) {
	h.pages.Message(c, http.StatusNotFound, &sess, "Key not found", "None of your API keys has this prefix.")
}

func (h *Handler) keyAlreadyRevoked(c *gin.Context, sess accounts.Session) {
	h.pages.Message(c, http.StatusConflict, &sess, "This key is already revoked",
		"The key no longer works, so there is nothing to rotate or revoke. Create a new key instead.")
}

func (h *Handler) keyExpired(c *gin.Context, sess accounts.Session) {
	h.pages.Message(c, http.StatusConflict, &sess, "This key has expired",
		"The key no longer works, and a rotation would keep its expiry. Create a new key instead.")
}

func (h *Handler) confirmPage(action string) func(c *gin.Context, sess accounts.Session) {
	return func(c *gin.Context, sess accounts.Session) {
		k, ok := h.ownKey(c, sess)
		if !ok {
			return
		}
		if k.RevokedAt != nil {
			h.keyAlreadyRevoked(c, sess)
			return
		}
		if action == actionRotate && k.Expired(h.clock.Now()) {
			h.keyExpired(c, sess)
			return
		}
		wss, nbs, err := h.places.KeyPlaces(c.Request.Context(), sess.UserID)
		if err != nil {
			h.pages.Internal(c, &sess, err)
			return
		}
		x, err := h.held(c.Request.Context(), sess.UserID)
		if err != nil {
			h.pages.Internal(c, &sess, err)
			return
		}
		title := "Rotate key"
		if action == actionRevoke {
			title = "Revoke key"
		}
		row := rowOf(k, wss, nbs, h.clock.Now())
		row.Webhooks, row.Feeds = x.count(k.ID)
		h.pages.Render(c, http.StatusOK, "confirm", confirmView{View: web.Base(&sess, title, "keys"), Action: action, Key: row})
	}
}

func (h *Handler) rotateKey(c *gin.Context, sess accounts.Session) {
	ctx := c.Request.Context()
	prefix := c.Param("prefix")
	if !auth.ValidPrefix(prefix) {
		h.keyNotFound(c, sess)
		return
	}
	raw, key, err := h.svc.RotateOwnKey(ctx, sess.UserID, prefix)
	switch {
	case errors.Is(err, accounts.ErrKeyNotFound):
		h.keyNotFound(c, sess)
		return
	case errors.Is(err, accounts.ErrKeyRevoked):
		h.keyAlreadyRevoked(c, sess)
		return
	case errors.Is(err, accounts.ErrKeyExpired):
		h.keyExpired(c, sess)
		return
	case err != nil:
		h.pages.Internal(c, &sess, err)
		return
	}
	wss, nbs, err := h.places.KeyPlaces(ctx, sess.UserID)
	if err != nil {
		// The rotation is done and its key exists only in this response: show it with its
		// restriction unnamed rather than lose it.
		wss, nbs = nil, nil
	}
	hooks, feeds := 0, 0
	if x, err := h.held(ctx, sess.UserID); err == nil { // as above: the key comes first
		hooks, feeds = x.count(key.ID)
	}
	h.showSecret(c, sess, raw, key, wss, nbs, auth.DisplayPrefix(prefix), hooks, feeds)
}

func (h *Handler) revokeKey(c *gin.Context, sess accounts.Session) {
	prefix := c.Param("prefix")
	if !auth.ValidPrefix(prefix) {
		h.keyNotFound(c, sess)
		return
	}
	_, err := h.svc.RevokeOwnKey(c.Request.Context(), sess.UserID, prefix)
	switch {
	case errors.Is(err, accounts.ErrKeyNotFound):
		h.keyNotFound(c, sess)
	case errors.Is(err, accounts.ErrKeyRevoked):
		h.keyAlreadyRevoked(c, sess)
	case err != nil:
		h.pages.Internal(c, &sess, err)
	default:
		c.Redirect(http.StatusSeeOther, "/settings/keys?revoked="+prefix)
	}
}

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
