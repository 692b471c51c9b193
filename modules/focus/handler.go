package focus

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/platform/auth"
	"folio/platform/httpx"
)

// Handler serves the Focus view.
type Handler struct{ svc *Service }

// NewHandler returns the focus handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	r.API.GET("/focus", httpx.Handle(h.get))
}

func (h *Handler) get(c *gin.Context) error {
	q := Query{Date: httpx.QueryValue(c, "date"), TZ: httpx.QueryValue(c, "tz")}
	answer, err := h.svc.Focus(c.Request.Context(), auth.FromGin(c), q)
	if err != nil {
		return err
	}
	httpx.JSON(c, http.StatusOK, answer)
	return nil
}
