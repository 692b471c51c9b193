package notebooks

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/platform/auth"
	"folio/platform/httpx"
	"folio/platform/paginate"
)

// Handler serves the notebook endpoints.
type Handler struct{ svc *Service }

// NewHandler returns the notebooks handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	r.API.GET("/notebooks", httpx.Handle(h.list))
	r.API.GET("/notebooks/:id", httpx.Handle(h.get))
	r.API.POST("/notebooks", httpx.Handle(h.create))
}

func (h *Handler) list(c *gin.Context) error {
	page, err := h.svc.ListPage(c.Request.Context(), auth.FromGin(c), paginate.QueryFromGin(c))
	if err != nil {
		return err
	}
	httpx.JSON(c, http.StatusOK, page)
	return nil
}

func (h *Handler) get(c *gin.Context) error {
	n, err := h.svc.Get(c.Request.Context(), auth.FromGin(c), c.Param("id"))
	if err != nil {
		return err
	}
	return httpx.WriteTagged(c, http.StatusOK, n.ETag(), n, httpx.Infallible(toNotebookResponse))
}

func (h *Handler) create(c *gin.Context) error {
	p := auth.FromGin(c)
	if p.NotebookID != nil {
		return ErrCreateByKey
	}
	var req createRequest
	if err := httpx.Bind(c, &req); err != nil {
		return err
	}
	in := NewNotebook{Name: req.Name, Color: req.Color, WorkspaceSet: req.WorkspaceID.Present}
	if req.WorkspaceID.Present && !req.WorkspaceID.Null {
		in.WorkspaceID = &req.WorkspaceID.Value
	}
	n, err := h.svc.Create(c.Request.Context(), p, in)
	if err != nil {
		return err
	}
	httpx.Location(c, "notebooks", n.ID)
	return httpx.WriteTagged(c, http.StatusCreated, n.ETag(), n, httpx.Infallible(toNotebookResponse))
}
