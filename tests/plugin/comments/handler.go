package comments

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/platform/auth"
	"folio/platform/httpx"
)

// Handler serves the comment endpoints.
type Handler struct{ svc *Service }

// NewHandler returns the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	r.API.POST("/comments", httpx.Handle(h.create))
	r.API.GET("/comments/:id", httpx.Handle(h.get))
}

func (h *Handler) create(c *gin.Context) error {
	var req createRequest
	if err := httpx.Bind(c, &req); err != nil {
		return err
	}
	cm, err := h.svc.Create(c.Request.Context(), auth.FromGin(c), req.NotebookID, req.Body)
	if err != nil {
		return err
	}
	httpx.Location(c, "comments", cm.ID)
	httpx.JSON(c, http.StatusCreated, toResponse(cm))
	return nil
}

func (h *Handler) get(c *gin.Context) error {
	cm, err := h.svc.Get(c.Request.Context(), auth.FromGin(c), c.Param("id"))
	if err != nil {
		return err
	}
	httpx.JSON(c, http.StatusOK, toResponse(cm))
	return nil
}
