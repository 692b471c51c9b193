package keys

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"folio/app/web"
	"folio/modules/accounts"
	"folio/modules/webhooks"
	"folio/platform/auth"
	"folio/platform/ids"
)

// The webhooks are listed on the keys page, in a section right below the keys (#webhooks), not
// on a page of their own: a webhook belongs to the key that made it and dies with it, so the page
// where a person answers a leaked key (sees the key, how many webhooks it owns, revokes it) also
// shows those webhooks, and right after the revocation shows them disabled with the reason. Only
// the delete confirmation is a page of its own, like a key's revoke confirmation.

// webhookRow is a webhook as the keys page shows it.
type webhookRow struct {
	ID          string
	URL         string
	Description string
	Events      string // "all", or the types, comma-separated
	owner
	Created time.Time
	Active  bool
	Status  string // "Active", or "Disabled: its key was revoked", ...
	Last    *webhookAttempt
}

// webhookAttempt is a webhook's newest delivery attempt.
type webhookAttempt struct {
	At      time.Time
	OK      bool
	Outcome string // "Delivered: HTTP 200", "Failed: HTTP 500", or "Failed: " and the connection's error
}

// webhookRows turns views into rows (in their order: newest first).
func webhookRows(views []webhooks.View) []webhookRow {
	out := make([]webhookRow, 0, len(views))
	for _, v := range views {
		out = append(out, webhookRowOf(v))
	}
	return out
}

func webhookRowOf(v webhooks.View) webhookRow {
	r := webhookRow{
		ID: v.ID, URL: v.URL, Description: v.Description, Events: "all", Created: v.CreatedAt,
		owner: ownerOf(v.CredentialKind, v.CredentialID, v.Holder), Active: v.Status == webhooks.StatusActive,
	}
	if v.Events != "" {
		r.Events = strings.ReplaceAll(v.Events, ",", ", ")
	}
	r.Status = "Active"
	if !r.Active {
		reason := ""
		if v.DisabledReason != nil {
			reason = *v.DisabledReason
		}
		r.Status = "Disabled: " + disabledReason(reason, r.Session)
	}
	if a := v.LastAttempt; a != nil {
		last := &webhookAttempt{At: a.AttemptedAt}
		switch {
		case a.StatusCode != nil:
			last.OK = *a.StatusCode >= 200 && *a.StatusCode < 300
			last.Outcome = "HTTP " + strconv.Itoa(*a.StatusCode)
		case a.Error != nil:
			last.Outcome = *a.Error // no answer: the connection's error
		}
		if last.OK {
			last.Outcome = "Delivered: " + last.Outcome
		} else {
			last.Outcome = strings.TrimSuffix("Failed: "+last.Outcome, ": ")
		}
		r.Last = last
	}
	return r
}

// disabledReason says in words why a webhook delivers nothing (its disabledReason, CONTRACT.md
// section 20); session is whether a web session made it.
func disabledReason(reason string, session bool) string {
	switch {
	case reason == auth.DeadKeyRevoked && session:
		return "the web session that created it has ended"
	case reason == auth.DeadKeyRevoked:
		return "its key was revoked"
	case reason == auth.DeadKeyExpired && session:
		return "the web session that created it has expired"
	case reason == auth.DeadKeyExpired:
		return "its key has expired"
	case reason == auth.DeadAccessLost:
		return "its key can no longer read what it delivered (its workspace or notebook is out of reach, or it has no read permission)"
	case reason == webhooks.ReasonFailing:
		return "every delivery failed for 3 days (delete it and create it again)"
	case reason == "":
		return "no reason recorded"
	}
	return reason
}

// ownWebhook finds the webhook named by the :id path segment among the user's; otherwise it shows
// a not-found page and returns false.
func (h *Handler) ownWebhook(c *gin.Context, sess accounts.Session) (webhooks.View, bool) {
	id := c.Param("id")
	if ids.Valid(id) {
		views, err := h.webhooks.ForUser(c.Request.Context(), sess.UserID)
		if err != nil {
			h.pages.Internal(c, &sess, err)
			return webhooks.View{}, false
		}
		for _, v := range views {
			if v.ID == id {
				return v, true
			}
		}
	}
	h.webhookNotFound(c, sess)
	return webhooks.View{}, false
}

func (h *Handler) webhookNotFound(c *gin.Context, sess accounts.Session) {
	h.pages.Message(c, http.StatusNotFound, &sess, "Webhook not found", "None of your webhooks has this id. It may have been deleted already.")
}

// deleteWebhookPage asks for confirmation before a webhook is deleted.
func (h *Handler) deleteWebhookPage(c *gin.Context, sess accounts.Session) {
	v, ok := h.ownWebhook(c, sess)
	if !ok {
		return
	}
	h.pages.Render(c, http.StatusOK, "deletehook", webhookConfirmView{View: web.Base(&sess, "Delete webhook", "keys"), Hook: webhookRowOf(v)})
}

// deleteWebhook deletes one of the user's webhooks, whatever credential made it, and goes back to
// the list.
func (h *Handler) deleteWebhook(c *gin.Context, sess accounts.Session) {
	err := h.webhooks.DeleteForUser(c.Request.Context(), sess.UserID, c.Param("id"))
	switch {
	case errors.Is(err, webhooks.ErrNotFound):
		h.webhookNotFound(c, sess)
	case err != nil:
		h.pages.Internal(c, &sess, err)
	default:
		c.Redirect(http.StatusSeeOther, "/settings/keys?webhook_deleted=1")
	}
}
