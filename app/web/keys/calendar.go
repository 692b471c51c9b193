package keys

import (
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"folio/app/web"
	"folio/modules/accounts"
	"folio/modules/calendar"
	"folio/platform/auth"
	"folio/platform/ids"
)

// The calendar feeds are listed on the keys page too, below the webhooks (#calendar-feeds), for
// the same reason: a feed belongs to the key (or web session) that created it and stops when that
// key is revoked, expires or loses its access. Feeds are created with the API only: one made in
// the page would belong to the web session and stop at sign-out, which is no way to subscribe a
// calendar app (docs/web-ui.md).

// feedRow is a calendar feed as the keys page shows it.
type feedRow struct {
	ID       string
	Name     string
	Notebook string // "All notebooks", or the notebook by name
	owner
	Created time.Time
	Active  bool
	Status  string // "Active", or "Stopped: its key was revoked", ...
}

// feedRows turns views into rows (in their order: newest first), naming notebooks through the
// user's places.
func feedRows(views []calendar.View, notebooks []auth.Place) []feedRow {
	nbs := map[string]auth.Place{}
	for _, p := range notebooks {
		nbs[p.ID] = p
	}
	out := make([]feedRow, 0, len(views))
	for _, v := range views {
		out = append(out, feedRowOf(v, nbs))
	}
	return out
}

func feedRowOf(v calendar.View, nbs map[string]auth.Place) feedRow {
	r := feedRow{ID: v.ID, Name: v.Name, Notebook: "All notebooks", owner: ownerOf(v.CredentialKind, v.CredentialID, v.Holder),
		Created: v.CreatedAt, Active: v.Dead == nil, Status: "Active"}
	if v.NotebookID != nil {
		r.Notebook = placeOr(nbs, *v.NotebookID, "one you can no longer reach")
	}
	if v.Dead != nil {
		r.Status = "Stopped: " + feedStopped(*v.Dead, r.Session)
	}
	return r
}

// feedStopped says in words why a feed shows nothing (its address answers 404).
func feedStopped(reason string, session bool) string {
	if reason == auth.DeadAccessLost {
		return "its key can no longer read what it showed (its workspace or notebook is out of reach)"
	}
	return disabledReason(reason, session)
}

// ownFeed finds the feed named by the :id path segment among the user's; otherwise it shows a
// not-found page and returns false.
func (h *Handler) ownFeed(c *gin.Context, sess accounts.Session) (feedRow, bool) {
	id := c.Param("id")
	if ids.Valid(id) {
		views, err := h.feeds.ForUser(c.Request.Context(), sess.UserID)
		if err != nil {
			h.pages.Internal(c, &sess, err)
			return feedRow{}, false
		}
		for _, v := range views {
			if v.ID != id {
				continue
			}
			_, nbs, err := h.places.KeyPlaces(c.Request.Context(), sess.UserID)
			if err != nil {
				h.pages.Internal(c, &sess, err)
				return feedRow{}, false
			}
			return feedRows([]calendar.View{v}, nbs)[0], true
		}
	}
	h.feedNotFound(c, sess)
	return feedRow{}, false
}

func (h *Handler) feedNotFound(c *gin.Context, sess accounts.Session) {
	h.pages.Message(c, http.StatusNotFound, &sess, "Calendar feed not found", "None of your calendar feeds has this id. It may have been deleted already.")
}

type feedConfirmView struct {
	web.View
	Feed feedRow
}

// deleteFeedPage asks for confirmation before a feed is deleted.
func (h *Handler) deleteFeedPage(c *gin.Context, sess accounts.Session) {
	f, ok := h.ownFeed(c, sess)
	if !ok {
		return
	}
	h.pages.Render(c, http.StatusOK, "deletefeed", feedConfirmView{View: web.Base(&sess, "Delete calendar feed", "keys"), Feed: f})
}

// deleteFeed deletes one of the user's feeds, whatever credential made it, and goes back to the
// list.
func (h *Handler) deleteFeed(c *gin.Context, sess accounts.Session) {
	err := h.feeds.DeleteForUser(c.Request.Context(), sess.UserID, c.Param("id"))
	switch {
	case errors.Is(err, calendar.ErrNotFound):
		h.feedNotFound(c, sess)
	case err != nil:
		h.pages.Internal(c, &sess, err)
	default:
		c.Redirect(http.StatusSeeOther, "/settings/keys?feed_deleted=1")
	}
}
