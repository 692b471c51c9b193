package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"folio/modules/accounts"
	"folio/modules/content"
	"folio/modules/suggestions"
	"folio/modules/versions"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/httpx"
	"folio/platform/markdown"
	"folio/platform/paginate"
)

// The review pages (issue "assistants propose, people decide"): a signed-in person sees the
// suggestions waiting on the notes and tasks they can read, reads each as a diff, approves or
// rejects it, and reads and restores an item's history. They are a front end of the suggestions
// and versions modules, exactly as the API is: every rule (who may read, approve, restore; the
// If-Match check) is theirs, reached through the narrow interfaces below with the session as the
// principal, so the audit log names the session as it would for the API.
//
//	GET  /review                                      pending suggestions, newest first, paginated
//	GET  /review/suggestions/:id                      one suggestion: its diff, Approve and Reject
//	POST /review/suggestions/:id/approve              approve; item_etag is the item version shown
//	POST /review/suggestions/:id/reject               reject
//	GET  /review/{notes,tasks}/:id/history            an item's versions
//	GET  /review/{notes,tasks}/:id/history/:version   one version, and the restore confirmation
//	POST /review/{notes,tasks}/:id/history/:version/restore   restore it; item_etag as for approve

// Reviews is what the review pages ask of the suggestions module (bound to *suggestions.Service
// in module.go).
type Reviews interface {
	Inbox(ctx context.Context, p *auth.Principal, f suggestions.InboxFilter, page paginate.Params) ([]suggestions.InboxEntry, *string, error)
	Get(ctx context.Context, p *auth.Principal, id string) (suggestions.InboxEntry, error)
	Approve(ctx context.Context, p *auth.Principal, id string, ifMatch etag.IfMatch) (suggestions.Suggestion, error)
	Reject(ctx context.Context, p *auth.Principal, id string) (suggestions.Suggestion, error)
}

// Histories is what the history pages ask of the versions module (bound to *versions.Service).
type Histories interface {
	List(ctx context.Context, p *auth.Principal, kind, id string, page paginate.Params) ([]versions.Snapshot, *string, error)
	Get(ctx context.Context, p *auth.Principal, kind, id, versionID string) (versions.Snapshot, error)
	Restore(ctx context.Context, p *auth.Principal, kind, id, versionID string, ifMatch etag.IfMatch) (any, string, error)
}

// reviewPageSize is how many suggestions or versions one page lists.
const reviewPageSize = 20

// itemETagField is the hidden field carrying the item's ETag as the page showed it: approving or
// restoring sends it as If-Match, so a change made meanwhile is a conflict, never overwritten.
const itemETagField = "item_etag"

// kindPaths maps the URL segment of an item kind to the kind.
var kindPaths = map[string]string{"notes": "note", "tasks": "task"}

func (w *Handler) registerReview(g httpx.RouteGroup) {
	g.GET("/review", w.signedIn(w.reviewPage))
	g.GET("/review/suggestions/:id", w.signedIn(w.suggestionPage))
	g.POST("/review/suggestions/:id/approve", w.signedIn(w.approve))
	g.POST("/review/suggestions/:id/reject", w.signedIn(w.reject))
	for segment, kind := range kindPaths {
		g.GET("/review/"+segment+"/:id/history", w.signedIn(w.historyPage(kind)))
		g.GET("/review/"+segment+"/:id/history/:version", w.signedIn(w.versionPage(kind)))
		g.POST("/review/"+segment+"/:id/history/:version/restore", w.signedIn(w.restore(kind)))
	}
}

// principal is the session as the modules' services know a caller, the same one the API guard
// makes for a session cookie.
func principal(sess accounts.Session) *auth.Principal {
	p := auth.SessionPrincipal(sess.UserID, sess.ID)
	return &p
}

// suggestionRow is a suggestion as the review list and page show it.
type suggestionRow struct {
	ID         string
	Kind       string // note or task
	ItemPath   string // /review/notes/<id>, the prefix of the item's history pages
	Item       string // the note's first line or the task's title
	Notebook   string
	ProposedBy string // the key's name and prefix, or the person
	Created    time.Time
	Stale      bool // the item changed since the suggestion was made
	Status     string
	Rationale  string
}

type reviewView struct {
	view
	Rows []suggestionRow
	Next string // the next page's URL, or ""
}

type suggestionView struct {
	view
	Row      suggestionRow
	Diff     []diffLine
	ItemETag string
	Pending  bool
}

type historyView struct {
	view
	Kind, ItemID, ItemPath, Item string
	Versions                     []versionRow
	Next                         string
}

type versionRow struct {
	ID      string
	Reason  string // what replaced this content: an edit, an approved suggestion, a restore
	By      string
	Created time.Time
}

type versionView struct {
	view
	Kind, ItemPath, Item string
	Version              versionRow
	Text                 string // the version's Markdown
	Diff                 []diffLine
	ItemETag             string
}

type conflictView struct {
	view
	Kind  string
	Again string // the page to open again, with the current content
}

// diffLine is one line of a unified diff as the page shows it: the marker is written out (+, −)
// and the line is in an ins or del element, so the change does not rest on colour alone.
type diffLine struct {
	Op   string // "add", "del", "same" or "hunk" (a gap between changed regions)
	Text string
}

// diffLines parses a unified diff (content.UnifiedDiff) into lines, without its two file header
// lines ("--- current", "+++ suggested"). Only the lines before the first hunk are headers: a
// removed Markdown rule is "----" further down, and must show.
func diffLines(unified string) []diffLine {
	var out []diffLine
	inHunks := false
	for line := range strings.Lines(unified) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case !inHunks && !strings.HasPrefix(line, "@@"):
		case strings.HasPrefix(line, "@@"):
			inHunks = true
			if len(out) > 0 {
				out = append(out, diffLine{Op: "hunk"})
			}
		case strings.HasPrefix(line, "+"):
			out = append(out, diffLine{Op: "add", Text: line[1:]})
		case strings.HasPrefix(line, "-"):
			out = append(out, diffLine{Op: "del", Text: line[1:]})
		case strings.HasPrefix(line, " "):
			out = append(out, diffLine{Op: "same", Text: line[1:]})
		}
	}
	return out
}

// names resolves what the rows show by name: notebooks (the user's places) and people.
type names struct {
	notebooks map[string]string
	people    map[string]string
	me        string
}

func (w *Handler) names(ctx context.Context, sess accounts.Session, userIDs []string) (names, error) {
	n := names{notebooks: map[string]string{}, people: map[string]string{}, me: sess.UserID}
	_, nbs, err := w.places.KeyPlaces(ctx, sess.UserID)
	if err != nil {
		return n, err
	}
	for _, p := range nbs {
		n.notebooks[p.ID] = placeLabel(p)
	}
	if len(userIDs) > 0 {
		users, err := w.svc.UsersByIDs(ctx, userIDs)
		if err != nil {
			return n, err
		}
		for _, u := range users {
			n.people[u.ID] = u.Name
		}
	}
	return n, nil
}

// who names the author of a change: a key by its name and prefix, a person by name ("you").
func (n names) who(userID string, keyName, keyPrefix *string) string {
	if keyName != nil && *keyName != "" {
		out := "key “" + *keyName + "”"
		if keyPrefix != nil && *keyPrefix != "" {
			out += " (" + *keyPrefix + ")"
		}
		if userID != n.me {
			out += " of " + n.person(userID)
		}
		return out
	}
	return n.person(userID)
}

func (n names) person(userID string) string {
	if userID == n.me {
		return "you"
	}
	if name, ok := n.people[userID]; ok {
		return name
	}
	return "a former member"
}

func (w *Handler) row(e suggestions.InboxEntry, label string, n names) (suggestionRow, error) {
	stale, err := e.Stale()
	if err != nil {
		return suggestionRow{}, err
	}
	nb, ok := n.notebooks[e.NotebookID]
	if !ok {
		nb = "a notebook"
	}
	if label == "" {
		label = "(empty " + e.ItemKind + ")"
	}
	return suggestionRow{
		ID: e.ID, Kind: e.ItemKind, ItemPath: "/review/" + e.ItemKind + "s/" + e.ItemID, Item: label, Notebook: nb,
		ProposedBy: n.who(e.CreatedByID, e.CreatedByKeyName, e.CreatedByKeyPrefix), Created: e.CreatedAt,
		Stale: stale, Status: e.Status, Rationale: e.Rationale,
	}, nil
}

// item reads an item through its content target, which checks that the principal may read it:
// its label, ETag and content.
func (w *Handler) item(ctx context.Context, p *auth.Principal, kind, id string) (content.Item, error) {
	t, ok := w.targets[kind]
	if !ok {
		return content.Item{}, apierr.New(http.StatusNotFound, "NOT_FOUND", "no such item")
	}
	return t.Get(ctx, p, id)
}

func (w *Handler) reviewPage(c *gin.Context, sess accounts.Session) {
	ctx, p := c.Request.Context(), principal(sess)
	page, ok := pageOf(c, "/review")
	if !ok {
		return
	}
	entries, next, err := w.reviews.Inbox(ctx, p, suggestions.InboxFilter{Status: suggestions.StatusPending}, page)
	if err != nil && apierr.From(err).Status == http.StatusBadRequest { // a cursor naming no suggestion of theirs
		c.Redirect(http.StatusSeeOther, "/review")
		return
	}
	if err != nil {
		w.internal(c, &sess, err)
		return
	}
	var people []string
	for _, e := range entries {
		people = append(people, e.CreatedByID)
	}
	n, err := w.names(ctx, sess, people)
	if err != nil {
		w.internal(c, &sess, err)
		return
	}
	v := reviewView{view: w.base(&sess, "Review", "review")}
	for _, e := range entries {
		item, err := w.item(ctx, p, e.ItemKind, e.ItemID)
		if err != nil {
			if s := apierr.From(err).Status; s == http.StatusNotFound || s == http.StatusForbidden {
				continue // deleted or moved out of reach since the list was read
			}
			w.internal(c, &sess, err)
			return
		}
		r, err := w.row(e, item.Label, n)
		if err != nil {
			w.internal(c, &sess, err)
			return
		}
		v.Rows = append(v.Rows, r)
	}
	if next != nil {
		v.Next = "/review?cursor=" + url.QueryEscape(*next)
	}
	switch c.Query("done") {
	case "approved":
		v.Notice = "Approved. The suggested content is now the item's content; the previous content is kept in its history."
	case "rejected":
		v.Notice = "Rejected. The content is unchanged; the suggestion is kept."
	}
	w.render(c, http.StatusOK, "review", v)
}

func (w *Handler) suggestionPage(c *gin.Context, sess accounts.Session) {
	ctx, p := c.Request.Context(), principal(sess)
	e, err := w.reviews.Get(ctx, p, c.Param("id"))
	if err != nil {
		w.reviewError(c, sess, err, "")
		return
	}
	item, err := w.item(ctx, p, e.ItemKind, e.ItemID)
	if err != nil {
		w.reviewError(c, sess, err, "")
		return
	}
	// The diff and the stale badge are made from the item as read with the ETag the approve form
	// sends (one row read), so an approval applies exactly the change shown or fails as a
	// conflict.
	if e.Current, err = markdown.Encode(item.Content); err != nil {
		w.internal(c, &sess, err)
		return
	}
	n, err := w.names(ctx, sess, []string{e.CreatedByID})
	if err != nil {
		w.internal(c, &sess, err)
		return
	}
	r, err := w.row(e, item.Label, n)
	if err != nil {
		w.internal(c, &sess, err)
		return
	}
	unified, err := e.Diff()
	if err != nil {
		w.internal(c, &sess, err)
		return
	}
	v := suggestionView{view: w.base(&sess, "Suggested change", "review"), Row: r, Diff: diffLines(unified),
		ItemETag: item.ETag, Pending: e.Status == suggestions.StatusPending}
	w.render(c, http.StatusOK, "suggestion", v)
}

// shownVersion is the If-Match of an approve or restore form: the item version the page showed.
// A form without one (or with "*", which matches anything) was not made by the page: it would
// apply the change whatever happened meanwhile, so it is refused like a changed item.
func shownVersion(c *gin.Context) (etag.IfMatch, bool) {
	v := strings.TrimSpace(c.Request.PostForm.Get(itemETagField))
	return etag.ParseIfMatch(v), v != "" && v != "*"
}

func (w *Handler) approve(c *gin.Context, sess accounts.Session) {
	id := c.Param("id")
	ifMatch, ok := shownVersion(c)
	if !ok {
		w.reviewError(c, sess, etag.ErrPreconditionFailed, "/review/suggestions/"+url.PathEscape(id))
		return
	}
	ctx, p := c.Request.Context(), principal(sess)
	if _, err := w.reviews.Approve(ctx, p, id, ifMatch); err != nil {
		kind := ""
		if e, gerr := w.reviews.Get(ctx, p, id); gerr == nil {
			kind = e.ItemKind // the conflict page names what changed: "This note changed ..."
		}
		w.reviewError(c, sess, err, "/review/suggestions/"+url.PathEscape(id), kind)
		return
	}
	c.Redirect(http.StatusSeeOther, "/review?done=approved")
}

func (w *Handler) reject(c *gin.Context, sess accounts.Session) {
	id := c.Param("id")
	if _, err := w.reviews.Reject(c.Request.Context(), principal(sess), id); err != nil {
		w.reviewError(c, sess, err, "/review/suggestions/"+url.PathEscape(id))
		return
	}
	c.Redirect(http.StatusSeeOther, "/review?done=rejected")
}

// pageOf is the page a list's cursor asks for; a cursor that is not one (an edited or truncated
// link) sends the browser to the list's first page instead (false).
func pageOf(c *gin.Context, first string) (paginate.Params, bool) {
	page, err := paginate.Parse("", false, c.Query("cursor"), false)
	if err != nil {
		c.Redirect(http.StatusSeeOther, first)
		return page, false
	}
	page.Limit = reviewPageSize
	return page, true
}

// reasonLabels say what replaced a version's content.
var reasonLabels = map[string]string{"update": "replaced by an edit", "suggestion": "replaced by an approved suggestion", "restore": "replaced by a restore"}

func (w *Handler) versionRows(ctx context.Context, sess accounts.Session, snaps []versions.Snapshot) ([]versionRow, error) {
	var people []string
	for _, s := range snaps {
		people = append(people, s.ActorUserID)
	}
	n, err := w.names(ctx, sess, people)
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

func (w *Handler) historyPage(kind string) func(*gin.Context, accounts.Session) {
	return func(c *gin.Context, sess accounts.Session) {
		ctx, p, id := c.Request.Context(), principal(sess), c.Param("id")
		item, err := w.item(ctx, p, kind, id)
		if err != nil {
			w.reviewError(c, sess, err, "")
			return
		}
		path := "/review/" + kind + "s/" + item.ID
		page, ok := pageOf(c, path+"/history")
		if !ok {
			return
		}
		snaps, next, err := w.histories.List(ctx, p, kind, id, page)
		if err != nil && apierr.From(err).Status == http.StatusBadRequest { // a cursor naming no version of it
			c.Redirect(http.StatusSeeOther, path+"/history")
			return
		}
		if err != nil {
			w.reviewError(c, sess, err, "")
			return
		}
		rows, err := w.versionRows(ctx, sess, snaps)
		if err != nil {
			w.internal(c, &sess, err)
			return
		}
		v := historyView{view: w.base(&sess, "History", "review"), Kind: kind, ItemID: item.ID, ItemPath: path, Item: item.Label, Versions: rows}
		if next != nil {
			v.Next = path + "/history?cursor=" + url.QueryEscape(*next)
		}
		if c.Query("done") == "restored" {
			v.Notice = "Restored. The " + kind + " has that version's content again; the content it replaced is kept as the newest version below."
		}
		w.render(c, http.StatusOK, "history", v)
	}
}

func (w *Handler) versionPage(kind string) func(*gin.Context, accounts.Session) {
	return func(c *gin.Context, sess accounts.Session) {
		ctx, p, id := c.Request.Context(), principal(sess), c.Param("id")
		item, err := w.item(ctx, p, kind, id)
		if err != nil {
			w.reviewError(c, sess, err, "")
			return
		}
		snap, err := w.histories.Get(ctx, p, kind, id, c.Param("version"))
		if err != nil {
			w.reviewError(c, sess, err, "")
			return
		}
		rows, err := w.versionRows(ctx, sess, []versions.Snapshot{snap})
		if err != nil {
			w.internal(c, &sess, err)
			return
		}
		text, err := content.Render(snap.Document)
		if err != nil {
			w.internal(c, &sess, err)
			return
		}
		current := content.Text(item.Content)
		v := versionView{view: w.base(&sess, "Version", "review"), Kind: kind, ItemPath: "/review/" + kind + "s/" + item.ID,
			Item: item.Label, Version: rows[0], Text: text, Diff: diffLines(content.UnifiedDiff(current, text)), ItemETag: item.ETag}
		w.render(c, http.StatusOK, "version", v)
	}
}

func (w *Handler) restore(kind string) func(*gin.Context, accounts.Session) {
	return func(c *gin.Context, sess accounts.Session) {
		id, version := c.Param("id"), c.Param("version")
		path := "/review/" + kind + "s/" + url.PathEscape(id)
		ifMatch, ok := shownVersion(c)
		if !ok {
			w.reviewError(c, sess, etag.ErrPreconditionFailed, path+"/history/"+url.PathEscape(version), kind)
			return
		}
		if _, _, err := w.histories.Restore(c.Request.Context(), principal(sess), kind, id, version, ifMatch); err != nil {
			w.reviewError(c, sess, err, path+"/history/"+url.PathEscape(version), kind)
			return
		}
		c.Redirect(http.StatusSeeOther, path+"/history?done=restored")
	}
}

// reviewError shows what went wrong as a page: the item changed since the page was shown (again:
// the page to open again), the suggestion was resolved meanwhile, or it is not there.
func (w *Handler) reviewError(c *gin.Context, sess accounts.Session, err error, again string, kind ...string) {
	ae := apierr.From(err)
	switch {
	case errors.Is(err, etag.ErrPreconditionFailed) || ae.Code == etag.CodePreconditionFailed:
		v := conflictView{view: w.base(&sess, "This changed since you opened it", "review"), Again: again}
		if len(kind) > 0 {
			v.Kind = kind[0]
		}
		w.render(c, http.StatusPreconditionFailed, "conflict", v)
	case ae.Status == http.StatusConflict:
		w.reviewMessage(c, sess, http.StatusConflict, "Already decided",
			"Someone decided on this suggestion, or replaced it with a newer one, since you opened it. Nothing was changed.")
	case ae.Status == http.StatusNotFound || ae.Status == http.StatusBadRequest:
		w.reviewMessage(c, sess, http.StatusNotFound, "Not found",
			"This suggestion, item or version does not exist, or you cannot see it.")
	case ae.Status == http.StatusForbidden:
		w.reviewMessage(c, sess, http.StatusForbidden, "Not allowed",
			"You can see this, but you may not change it. Nothing was changed.")
	default:
		w.internal(c, &sess, err)
	}
}

func (w *Handler) reviewMessage(c *gin.Context, sess accounts.Session, status int, title, body string) {
	v := messageView{view: w.base(&sess, title, "review"), Status: status, Body: body, Back: "/review", BackText: "Back to review"}
	w.render(c, status, "message", v)
}
