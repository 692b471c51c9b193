package desk

import (
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	"folio/app/web"
	"folio/modules/accounts"
	"folio/modules/notebooks"
	"folio/platform/apierr"
	"folio/platform/auth"
)

type notebookFormView struct {
	view
	Name, Color, WorkspaceID string
	Colors                   []string
	Workspaces               []auth.Place // the workspaces the person may make a notebook in
	Field                    string       // the module's refusal, in its words
}

func (h *Handler) notebookFormView(c *gin.Context, sess accounts.Session) (notebookFormView, error) {
	wss, _, err := h.keyPlaces.KeyPlaces(c.Request.Context(), sess.UserID)
	return notebookFormView{view: base(&sess, "New notebook", "notebooks"), Colors: notebooks.Colors, Workspaces: wss}, err
}

// newNotebookPage is /app/notebooks/new: a notebook's name, colour and place (personal, or one of
// the person's workspaces).
func (h *Handler) newNotebookPage(c *gin.Context, sess accounts.Session) {
	v, err := h.notebookFormView(c, sess)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	v.Color = notebooks.Colors[0]
	h.pages.Render(c, http.StatusOK, "notebookform", v)
}

// createNotebook makes the notebook (POST /notebooks' use case) and opens it.
func (h *Handler) createNotebook(c *gin.Context, sess accounts.Session) {
	v, err := h.notebookFormView(c, sess)
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	form := c.Request.PostForm
	v.Name, v.Color, v.WorkspaceID = form.Get("name"), form.Get("color"), form.Get("workspaceId")
	in := notebooks.NewNotebook{Name: v.Name, Color: v.Color, WorkspaceSet: true}
	if v.WorkspaceID != "" {
		in.WorkspaceID = &v.WorkspaceID
	}
	nb, err := h.notebooks.Create(c.Request.Context(), web.Principal(sess), in)
	if ae := apierr.From(err); err != nil && ae.Status >= 400 && ae.Status < 500 {
		v.Field = ae.Message
		h.pages.Render(c, ae.Status, "notebookform", v)
		return
	}
	if err != nil {
		h.fail(c, sess, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/app/notebooks/"+url.PathEscape(nb.ID)+"?done=created")
}
