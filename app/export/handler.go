package export

import (
	"net/http"

	"github.com/gin-gonic/gin"
	"go.uber.org/zap"

	"folio/platform/auth"
	"folio/platform/httpx"
)

// Handler serves GET /export.
type Handler struct {
	svc *Service
	log *zap.Logger
}

// NewHandler returns the export handler.
func NewHandler(svc *Service, log *zap.Logger) *Handler { return &Handler{svc: svc, log: log} }

// Register implements httpx.Routes.
func (h *Handler) Register(r httpx.Router) {
	r.API.GET("/export", httpx.Handle(h.export))
}

// export streams the ZIP. Errors before the first byte are the usual JSON envelope; an error
// after it (the database went away mid-export) can no longer change the status, so the handler
// aborts the connection: the client sees a truncated download, never a ZIP that looks complete.
func (h *Handler) export(c *gin.Context) error {
	p := auth.FromGin(c)
	if err := h.svc.Check(c.Request.Context(), p); err != nil {
		return err
	}
	c.Header("Content-Type", "application/zip")
	c.Header("Content-Disposition", `attachment; filename="`+h.svc.FileName()+`"`)
	c.Header("Cache-Control", "no-store")
	c.Status(http.StatusOK)
	if err := h.svc.Write(c.Request.Context(), p, c.Writer); err != nil {
		h.log.Warn("export aborted", zap.String("userId", p.UserID), zap.Error(err))
		panic(http.ErrAbortHandler)
	}
	return nil
}
