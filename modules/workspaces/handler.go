package workspaces

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"folio/platform/auth"
	"folio/platform/httpx"
)

// Handler serves the workspace endpoints.
type Handler struct{ svc *Service }

// NewHandler returns the workspaces handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	r.API.GET("/workspaces", auth.ListHandler(false, h.svc.List, httpx.Infallible(toWorkspaceResponse)))
	r.API.POST("/workspaces", httpx.Handle(h.create))
	r.API.POST("/workspaces/:id/members", httpx.Handle(h.invite))
	r.API.DELETE("/workspaces/:id/members/:userId", httpx.Handle(h.remove))
}

func (h *Handler) create(c *gin.Context) error {
	p := auth.FromGin(c)
	if !p.Unrestricted() {
		return ErrCreateByKey
	}
	var req createRequest
	if err := httpx.Bind(c, &req); err != nil {
		return err
	}
	v, err := h.svc.Create(c.Request.Context(), p, req.Name)
	if err != nil {
		return err
	}
	httpx.Location(c, "workspaces", v.Workspace.ID)
	httpx.JSON(c, http.StatusCreated, toWorkspaceResponse(v))
	return nil
}

func (h *Handler) invite(c *gin.Context) error {
	p := auth.FromGin(c)
	if p.NotebookID != nil {
		return ErrKeyCannotDo
	}
	var req inviteRequest
	if err := httpx.Bind(c, &req); err != nil {
		return err
	}
	m, created, err := h.svc.Invite(c.Request.Context(), p, c.Param("id"), req.Email)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		httpx.Location(c, "workspaces", m.WorkspaceID, "members", m.UserID)
	}
	httpx.JSON(c, status, membershipResponse{WorkspaceID: m.WorkspaceID, UserID: m.UserID, Role: m.Role})
	return nil
}

func (h *Handler) remove(c *gin.Context) error {
	if err := h.svc.Remove(c.Request.Context(), auth.FromGin(c), c.Param("id"), c.Param("userId")); err != nil {
		return err
	}
	httpx.JSON(c, http.StatusOK, httpx.OK)
	return nil
}
