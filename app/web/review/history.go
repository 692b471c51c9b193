package review

import (
	"context"
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	"folio/app/web"
	"folio/modules/accounts"
	"folio/modules/document"
	"folio/modules/versions"
	"folio/platform/apierr"
	"folio/platform/etag"
)

// reasonLabels say what replaced a version's content.
var reasonLabels = map[string]string{"update": "replaced by an edit", "suggestion": "replaced by an approved suggestion", "restore": "replaced by a restore"}

func (h *Handler) versionRows(ctx context.Context, sess accounts.Session, snaps []versions.Snapshot) ([]versionRow, error) {
	var people []string
	for _, s := range snaps {
		people = append(people, s.ActorUserID)
	}
	n, err := h.names(ctx, sess, people)
	if err != nil {
		return nil, err
	}
	out := make([]versionRow, 0, len(snaps))
	for _, s := range snaps {
		reason, ok := reasonLabels[s.Reason]
		if !ok {
			reason = "replaced (" + s.Reason + ")"
		}
		out = append(out, versionRow{ID: s.ID, Reason: reason, By: n.who(s.ActorUserID, s.APIKeyName, s.APIKeyPrefix), Created: s.CreatedAt})
	}
	return out, nil
}

func (h *Handler) historyPage(kind string) func(*gin.Context, accounts.Session) {
	return func(c *gin.Context, sess accounts.Session) {
		ctx, p, id := c.Request.Context(), principal(sess), c.Param("id")
		item, err := h.item(ctx, p, kind, id)
		if err != nil {
			h.reviewError(c, sess, err, "")
			return
		}
		path := "/review/" + kind + "s/" + item.ID
		page, ok := pageOf(c, path+"/history")
		if !ok {
			return
		}
		snaps, next, err := h.histories.List(ctx, p, kind, id, page)
		if err != nil && apierr.From(err).Status == http.StatusBadRequest { // a cursor naming no version of it
			c.Redirect(http.StatusSeeOther, path+"/history")
			return
		}
		if err != nil {
			h.reviewError(c, sess, err, "")
			return
		}
		rows, err := h.versionRows(ctx, sess, snaps)
		if err != nil {
			h.pages.Internal(c, &sess, err)
			return
		}
		v := historyView{View: web.Base(&sess, "History", "review"), Kind: kind, ItemID: item.ID, ItemPath: path, Item: item.Label, Versions: rows}
		if next != nil {
			v.Next = path + "/history?cursor=" + url.QueryEscape(*next)
		}
		if c.Query("done") == "restored" {
			v.Notice = "Restored. The " + kind + " has that version's content again; the content it replaced is kept as the newest version below."
		}
		h.pages.Render(c, http.StatusOK, "history", v)
	}
}

func (h *Handler) versionPage(kind string) func(*gin.Context, accounts.Session) {
	return func(c *gin.Context, sess accounts.Session) {
		ctx, p, id := c.Request.Context(), principal(sess), c.Param("id")
		item, err := h.item(ctx, p, kind, id)
		if err != nil {
			h.reviewError(c, sess, err, "")
			return
		}
		snap, err := h.histories.Get(ctx, p, kind, id, c.Param("version"))
		if err != nil {
			h.reviewError(c, sess, err, "")
			return
		}
		rows, err := h.versionRows(ctx, sess, []versions.Snapshot{snap})
		if err != nil {
			h.pages.Internal(c, &sess, err)
			return
		}
		text, err := document.Read(snap.Document, snap.Text)
		if err != nil {
			h.pages.Internal(c, &sess, err)
			return
		}
		current := item.Text
		v := versionView{View: web.Base(&sess, "Version", "review"), Kind: kind, ItemPath: "/review/" + kind + "s/" + item.ID,
			Item: item.Label, Version: rows[0], Text: text, Diff: diffLines(versionDiff(current, text)), ItemETag: item.ETag}
		h.pages.Render(c, http.StatusOK, "version", v)
	}
}

func (h *Handler) restore(kind string) func(*gin.Context, accounts.Session) {
	return func(c *gin.Context, sess accounts.Session) {
		id, version := c.Param("id"), c.Param("version")
		path := "/review/" + kind + "s/" + url.PathEscape(id)
		ifMatch, ok := shownVersion(c)
		if !ok {
			h.reviewError(c, sess, etag.ErrPreconditionFailed, path+"/history/"+url.PathEscape(version), kind)
			return
		}
		if _, _, err := h.histories.Restore(c.Request.Context(), principal(sess), kind, id, version, ifMatch); err != nil {
			h.reviewError(c, sess, err, path+"/history/"+url.PathEscape(version), kind)
			return
		}
		c.Redirect(http.StatusSeeOther, path+"/history?done=restored")
	}
}
