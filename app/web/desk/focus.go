package desk

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"folio/app/web"
	"folio/modules/accounts"
	"folio/modules/focus"
	"folio/modules/notes"
	"folio/modules/tasks"
	"folio/platform/apierr"
)

// focusEntry is an item of a Focus list: a note or a task.
type focusEntry struct {
	Kind, ID, Title, Status string
	At                      *stamp // the date that put it on the list
}

type focusView struct {
	view
	Date, Zone                        string
	Prev, Next                        string // the days before and after, as dates
	Today                             bool
	LearnZone                         bool // no zone is known yet: the script may learn the browser's
	Targeted, FollowUps, Due          []focusEntry
	TargetedMore, FollowUpsMore, More bool
}

// focusPage is /app: the Focus view (focus.Service, as GET /focus answers) of a day, today by
// default, in the user's zone.
func (h *Handler) focusPage(c *gin.Context, sess accounts.Session) {
	q := focus.Query{}
	zone := zoneName(&sess)
	q.TZ = &zone
	if d := c.Query("date"); d != "" {
		q.Date = &d
	}
	res, err := h.focus.Focus(c.Request.Context(), web.Principal(sess), q)
	if err != nil && apierr.From(err).Status == http.StatusBadRequest && q.Date != nil {
		c.Redirect(http.StatusSeeOther, "/app") // an edited link's date: today instead
		return
	}
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v := focusView{view: base(&sess, "Focus", "focus"), Date: res.Date, Zone: res.TZ, LearnZone: sess.User.TimeZone == ""}
	if day, err := time.Parse(time.DateOnly, res.Date); err == nil {
		v.Prev, v.Next = day.AddDate(0, 0, -1).Format(time.DateOnly), day.AddDate(0, 0, 1).Format(time.DateOnly)
		v.Today = q.Date == nil || res.Date == time.Now().In(v.Loc).Format(time.DateOnly)
	}
	v.Targeted = focusEntries(res.Targeted, v.Loc, "target")
	v.FollowUps = focusEntries(res.FollowUps, v.Loc, "followUp")
	v.Due = focusEntries(res.Due, v.Loc, "due")
	v.TargetedMore, v.FollowUpsMore, v.More = res.TargetedMore, res.FollowUpsMore, res.DueMore
	h.pages.Render(c, http.StatusOK, "focus", v)
}

// focusEntries converts a Focus list; which names the date shown (target, followUp or due).
func focusEntries(list []focus.Entry, loc *time.Location, which string) []focusEntry {
	out := make([]focusEntry, 0, len(list))
	for _, e := range list {
		switch it := e.Item.(type) {
		case notes.Response:
			at := it.TargetAt
			if which == "followUp" {
				at = it.FollowUpAt
			}
			out = append(out, focusEntry{Kind: "note", ID: it.ID, Title: title(it.Content), At: stampAt(at, loc)})
		case tasks.Response:
			at := map[string]*string{"target": it.TargetAt, "followUp": it.FollowUpAt, "due": it.DueAt}[which]
			out = append(out, focusEntry{Kind: "task", ID: it.ID, Title: it.Title, Status: it.Status, At: stampAt(at, loc)})
		}
	}
	return out
}

type zoneView struct {
	view
	Zone  string
	Field string // the error beside the field
}

// zonePage is /settings/time-zone: the zone the web app shows the day in, editable.
func (h *Handler) zonePage(c *gin.Context, sess accounts.Session) {
	v := zoneView{view: base(&sess, "Time zone", "account"), Zone: sess.User.TimeZone}
	if c.Query("saved") != "" {
		v.Notice = "Time zone saved."
	}
	h.pages.Render(c, http.StatusOK, "timezone", v)
}

// setZone stores the zone (the script's POST from the Focus page, or the settings form): a zone
// the Focus view knows, or "" for UTC.
func (h *Handler) setZone(c *gin.Context, sess accounts.Session) {
	zone := strings.TrimSpace(c.Request.PostForm.Get("tz"))
	if zone != "" {
		if err := validZone(zone); err != nil {
			v := zoneView{view: base(&sess, "Time zone", "account"), Zone: zone, Field: apierr.From(err).Message}
			h.pages.Render(c, http.StatusBadRequest, "timezone", v)
			return
		}
	}
	if err := h.zones.SetTimeZone(c.Request.Context(), sess.UserID, zone); err != nil {
		h.fail(c, sess, err)
		return
	}
	c.Redirect(http.StatusSeeOther, back(c, "/settings/time-zone?saved="+url.QueryEscape("1")))
}
