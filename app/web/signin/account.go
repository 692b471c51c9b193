package signin

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/app/web"
	"folio/modules/accounts"
)

// accountView is the view of the account page and its password form.
type accountView struct {
	web.View
	Errors map[string]string
}

func (h *Handler) accountPage(c *gin.Context, sess accounts.Session) {
	v := accountView{View: web.Base(&sess, "Account", "account")}
	if c.Query("changed") != "" {
		v.Notice = "Your password was changed. Every other browser and device was signed out."
	}
	h.pages.Render(c, http.StatusOK, "account", v)
}

func (h *Handler) changePassword(c *gin.Context, sess accounts.Session) {
	ctx := c.Request.Context()
	form := c.Request.PostForm
	current, next, confirm := form.Get("current"), form.Get("new"), form.Get("confirm")
	v := accountView{View: web.Base(&sess, "Account", "account"), Errors: map[string]string{}}
	if h.overFailureLimit(ctx, c) {
		c.Header("Retry-After", "60")
		v.Error = msgTooMany
		h.pages.Render(c, http.StatusTooManyRequests, "account", v)
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
		h.pages.Render(c, http.StatusBadRequest, "account", v)
		return
	}
	si, err := h.svc.ChangePassword(ctx, sess.UserID, current, next)
	var invalid accounts.Invalid
	switch {
	case errors.Is(err, accounts.ErrBadPassword):
		h.countFailure(ctx, c)
		v.Errors["current"] = "That is not your current password."
		h.pages.Render(c, http.StatusBadRequest, "account", v)
		return
	case errors.As(err, &invalid):
		v.Errors["new"] = invalid["password"]
		h.pages.Render(c, http.StatusBadRequest, "account", v)
		return
	case err != nil:
		h.pages.Internal(c, &sess, err)
		return
	}
	h.setSession(c, si)
	c.Redirect(http.StatusSeeOther, "/settings/account?changed=1")
}
