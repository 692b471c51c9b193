package review

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"

	"folio/app/web"
	"folio/modules/accounts"
	"folio/modules/content"
	"folio/modules/suggestions"
	"folio/platform/apierr"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/httpx"
	"folio/platform/markdown"
	"folio/platform/paginate"
)

// Handler serves the review pages.
type Handler struct {
	reviews   Reviews
	histories Histories
	people    People
	places    auth.KeyPlaces
	targets   map[string]content.Target // by item kind: labels, ETags and access of the reviewed items
	pages     *web.Pages
}

// HandlerParams are the dependencies of NewHandler.
type HandlerParams struct {
	fx.In
	Reviews   Reviews
	Histories Histories
	People    People
	Places    auth.KeyPlaces
	Targets   []content.Target `group:"contentTargets"`
	Site      *web.Site
}

// NewHandler returns the review pages.
func NewHandler(p HandlerParams) (*Handler, error) {
	pages, err := p.Site.Pages(templateFS, "templates", nil)
	if err != nil {
		return nil, err
	}
	h := &Handler{reviews: p.Reviews, histories: p.Histories, people: p.People, places: p.Places, targets: map[string]content.Target{}, pages: pages}
	for _, t := range p.Targets {
		h.targets[t.Kind()] = t
	}
	return h, nil
}

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	g := web.Group(r)
	g.GET("/review", h.pages.SignedIn(h.reviewPage))
	g.GET("/review/suggestions/:id", h.pages.SignedIn(h.suggestionPage))
	g.POST("/review/suggestions/:id/approve", h.pages.SignedIn(h.approve))
	g.POST("/review/suggestions/:id/reject", h.pages.SignedIn(h.reject))
	for segment, kind := range kindPaths {
		g.GET("/review/"+segment+"/:id/history", h.pages.SignedIn(h.historyPage(kind)))
		g.GET("/review/"+segment+"/:id/history/:version", h.pages.SignedIn(h.versionPage(kind)))
		g.POST("/review/"+segment+"/:id/history/:version/restore", h.pages.SignedIn(h.restore(kind)))
	}
}

// reviewPageSize is how many suggestions or versions one page lists.
const reviewPageSize = 20

// itemETagField is the hidden field carrying the item's ETag as the page showed it: approving or
// restoring sends it as If-Match, so a change made meanwhile is a conflict, never overwritten.
const itemETagField = "item_etag"

// kindPaths maps the URL segment of an item kind to the kind.
var kindPaths = map[string]string{"notes": "note", "tasks": "task"}

// principal is the session as the modules' services know a caller, the same one the API guard
// makes for a session cookie.
func principal(sess accounts.Session) *auth.Principal {
	p := auth.SessionPrincipal(sess.UserID, sess.ID)
	return &p
}

// names resolves what the rows show by name: notebooks (the user's places) and people.
type names struct {
	notebooks map[string]string
	people    map[string]string
	me        string
}

func (h *Handler) names(ctx context.Context, sess accounts.Session, userIDs []string) (names, error) {
	n := names{notebooks: map[string]string{}, people: map[string]string{}, me: sess.UserID}
	_, nbs, err := h.places.KeyPlaces(ctx, sess.UserID)
	if err != nil {
		return n, err
	}
	for _, p := range nbs {
		n.notebooks[p.ID] = web.PlaceLabel(p)
	}
	if len(userIDs) > 0 {
		users, err := h.people.UsersByIDs(ctx, userIDs)
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

func (h *Handler) row(e suggestions.InboxEntry, label string, n names) (suggestionRow, error) {
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
func (h *Handler) item(ctx context.Context, p *auth.Principal, kind, id string) (content.Item, error) {
	t, ok := h.targets[kind]
	if !ok {
		return content.Item{}, apierr.New(http.StatusNotFound, "NOT_FOUND", "no such item")
	}
	return t.Get(ctx, p, id)
}

func (h *Handler) reviewPage(c *gin.Context, sess accounts.Session) {
	ctx, p := c.Request.Context(), principal(sess)
	// The inbox as GET /suggestions reads it (pending by default), at the page's size.
	f, page, err := h.reviews.ParseInbox(suggestions.InboxQuery{Query: paginate.Query{Cursor: c.Query("cursor")}})
	if err != nil { // an edited or truncated link: the first page instead
		c.Redirect(http.StatusSeeOther, "/review")
		return
	}
	page.Limit = reviewPageSize
	entries, next, err := h.reviews.Inbox(ctx, p, f, page)
	if err != nil && apierr.From(err).Status == http.StatusBadRequest { // a cursor naming no suggestion of theirs
		c.Redirect(http.StatusSeeOther, "/review")
		return
	}
	if err != nil {
		h.pages.Internal(c, &sess, err)
		return
	}
	var people []string
	for _, e := range entries {
		people = append(people, e.CreatedByID)
	}
	n, err := h.names(ctx, sess, people)
	if err != nil {
		h.pages.Internal(c, &sess, err)
		return
	}
	v := reviewView{View: web.Base(&sess, "Review", "review")}
	for _, e := range entries {
		item, err := h.item(ctx, p, e.ItemKind, e.ItemID)
		if err != nil {
			if s := apierr.From(err).Status; s == http.StatusNotFound || s == http.StatusForbidden {
				continue // deleted or moved out of reach since the list was read
			}
			h.pages.Internal(c, &sess, err)
			return
		}
		r, err := h.row(e, item.Label, n)
		if err != nil {
			h.pages.Internal(c, &sess, err)
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
	case "approved-merged":
		v.Notice = "Approved. The suggested changes were applied together with the changes made since it was proposed; the previous content is kept in its history."
	case "approved-part":
		v.Notice = "Approved in part. The changes you chose were applied, the others were not; the previous content is kept in its history."
	case "rejected":
		v.Notice = "Rejected. The content is unchanged; the suggestion is kept."
	}
	h.pages.Render(c, http.StatusOK, "review", v)
}

func (h *Handler) suggestionPage(c *gin.Context, sess accounts.Session) {
	ctx, p := c.Request.Context(), principal(sess)
	e, err := h.reviews.Get(ctx, p, c.Param("id"))
	if err != nil {
		h.reviewError(c, sess, err, "")
		return
	}
	item, err := h.item(ctx, p, e.ItemKind, e.ItemID)
	if err != nil {
		h.reviewError(c, sess, err, "")
		return
	}
	// The diff and the stale badge are made from the item as read with the ETag the approve form
	// sends (one row read), so an approval applies exactly the change shown or fails as a
	// conflict.
	if e.Current, err = markdown.Encode(item.Content); err != nil {
		h.pages.Internal(c, &sess, err)
		return
	}
	n, err := h.names(ctx, sess, []string{e.CreatedByID})
	if err != nil {
		h.pages.Internal(c, &sess, err)
		return
	}
	r, err := h.row(e, item.Label, n)
	if err != nil {
		h.pages.Internal(c, &sess, err)
		return
	}
	v := suggestionView{View: web.Base(&sess, "Suggested change", "review"), Row: r, ItemETag: item.ETag, Pending: e.Status == suggestions.StatusPending}
	if !v.Pending {
		unified, err := e.Diff()
		if err != nil {
			h.pages.Internal(c, &sess, err)
			return
		}
		v.Diff = diffLines(unified)
		h.pages.Render(c, http.StatusOK, "suggestion", v)
		return
	}
	// What approving would do, as GET /suggestions/:id shows it: the hunks, and the conflicts.
	pl, err := e.Plan()
	if err != nil {
		h.pages.Internal(c, &sess, err)
		return
	}
	for _, hk := range pl.Hunks {
		v.Hunks = append(v.Hunks, hunkView{Index: hk.Index, Number: hk.Index + 1, Line: hk.Line, Lines: hunkLines(hk.Removed, hk.Added)})
	}
	for i, cf := range pl.Conflicts {
		v.Conflicts = append(v.Conflicts, conflictRow{Number: i + 1, Line: cf.Line, Base: cf.Base, Current: cf.Current, Suggested: cf.Suggested})
	}
	h.pages.Render(c, http.StatusOK, "suggestion", v)
}

// hunkChoiceField marks an approve form that chooses hunks (its checkboxes are hunkField): a form
// without it (an older page) approves every hunk.
const (
	hunkChoiceField = "choose_hunks"
	hunkField       = "hunk"
)

// shownVersion is the If-Match of an approve or restore form: the item version the page showed.
// A form without one (or with "*", which matches anything) was not made by the page: it would
// apply the change whatever happened meanwhile, so it is refused like a changed item.
func shownVersion(c *gin.Context) (etag.IfMatch, bool) {
	v := strings.TrimSpace(c.Request.PostForm.Get(itemETagField))
	return etag.ParseIfMatch(v), v != "" && v != "*"
}

func (h *Handler) approve(c *gin.Context, sess accounts.Session) {
	id := c.Param("id")
	ifMatch, ok := shownVersion(c)
	if !ok {
		h.reviewError(c, sess, etag.ErrPreconditionFailed, "/review/suggestions/"+url.PathEscape(id))
		return
	}
	ctx, p := c.Request.Context(), principal(sess)
	req := suggestions.ApproveRequest{IfMatch: ifMatch}
	if c.Request.PostForm.Has(hunkChoiceField) {
		// The checked boxes, as the form sent them: the module reads and checks them.
		req.Choose, req.Hunks = true, c.Request.PostForm[hunkField]
		if len(req.Hunks) == 0 {
			v := web.MessageView{View: web.Base(&sess, "No change chosen", "review"), Status: http.StatusBadRequest,
				Body: "Nothing was changed: tick at least one change to approve it, or reject the suggestion.",
				Back: "/review/suggestions/" + url.PathEscape(id), BackText: "Back to the suggestion"}
			h.pages.Render(c, http.StatusBadRequest, "message", v)
			return
		}
	}
	a, err := h.reviews.Approve(ctx, p, id, req)
	if err != nil {
		kind := ""
		if e, gerr := h.reviews.Get(ctx, p, id); gerr == nil {
			kind = e.ItemKind // the conflict page names what changed: "This note changed ..."
		}
		h.reviewError(c, sess, err, "/review/suggestions/"+url.PathEscape(id), kind)
		return
	}
	done := "approved"
	if a.Partial {
		done = "approved-part"
	} else if a.Merged {
		done = "approved-merged"
	}
	c.Redirect(http.StatusSeeOther, "/review?done="+done)
}

func (h *Handler) reject(c *gin.Context, sess accounts.Session) {
	id := c.Param("id")
	if _, err := h.reviews.Reject(c.Request.Context(), principal(sess), id); err != nil {
		h.reviewError(c, sess, err, "/review/suggestions/"+url.PathEscape(id))
		return
	}
	c.Redirect(http.StatusSeeOther, "/review?done=rejected")
}

// pageOf is the page a list's cursor asks for; a cursor that is not one (an edited or truncated
// link) sends the browser to the list's first page instead (false).
func pageOf(c *gin.Context, first string) (paginate.Params, bool) {
	page, err := paginate.Query{Cursor: c.Query("cursor")}.Parse(false)
	if err != nil {
		c.Redirect(http.StatusSeeOther, first)
		return page, false
	}
	page.Limit = reviewPageSize
	return page, true
}

// reviewError shows what went wrong as a page: the item changed since the page was shown (again:
// the page to open again), the suggestion was resolved meanwhile, or it is not there.
func (h *Handler) reviewError(c *gin.Context, sess accounts.Session, err error, again string, kind ...string) {
	ae := apierr.From(err)
	switch {
	case errors.Is(err, etag.ErrPreconditionFailed) || ae.Code == etag.CodePreconditionFailed:
		v := conflictView{View: web.Base(&sess, "This changed since you opened it", "review"), Again: again}
		if len(kind) > 0 {
			v.Kind = kind[0]
		}
		h.pages.Render(c, http.StatusPreconditionFailed, "conflict", v)
	case ae.Code == suggestions.ErrConflict.Code:
		v := web.MessageView{View: web.Base(&sess, "These changes conflict", "review"), Status: http.StatusConflict,
			Body: "Some of the suggested changes overlap changes made since it was proposed, so nothing was changed. Open it again to choose the changes that do not conflict.",
			Back: again, BackText: "Open it again"}
		h.pages.Render(c, http.StatusConflict, "message", v)
	case ae.Status == http.StatusConflict:
		h.reviewMessage(c, sess, http.StatusConflict, "Already decided",
			"Someone decided on this suggestion, or replaced it with a newer one, since you opened it. Nothing was changed.")
	case ae.Code == apierr.CodeValidation && again != "":
		// A choice of changes the suggestion refuses (none chosen, or some that do not stand alone).
		v := web.MessageView{View: web.Base(&sess, "Choose the changes again", "review"), Status: http.StatusBadRequest,
			Body: "Nothing was changed: " + ae.Message + ".", Back: again, BackText: "Back to the suggestion"}
		h.pages.Render(c, http.StatusBadRequest, "message", v)
	case ae.Status == http.StatusNotFound || ae.Status == http.StatusBadRequest:
		h.reviewMessage(c, sess, http.StatusNotFound, "Not found",
			"This suggestion, item or version does not exist, or you cannot see it.")
	case ae.Status == http.StatusForbidden:
		h.reviewMessage(c, sess, http.StatusForbidden, "Not allowed",
			"You can see this, but you may not change it. Nothing was changed.")
	default:
		h.pages.Internal(c, &sess, err)
	}
}

func (h *Handler) reviewMessage(c *gin.Context, sess accounts.Session, status int, title, body string) {
	v := web.MessageView{View: web.Base(&sess, title, "review"), Status: status, Body: body, Back: "/review", BackText: "Back to review"}
	h.pages.Render(c, status, "message", v)
}
