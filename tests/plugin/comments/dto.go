package comments

import "folio/platform/httpx"

type createRequest struct {
	NotebookID string `json:"notebookId" binding:"required"`
	Body       string `json:"body" binding:"required"`
}

// Response is a comment on the wire.
type Response struct {
	ID         string `json:"id"`
	NotebookID string `json:"notebookId"`
	Body       string `json:"body"`
	CreatedAt  string `json:"createdAt"`
}

func toResponse(c Comment) Response {
	return Response{ID: c.ID, NotebookID: c.NotebookID, Body: c.Body, CreatedAt: httpx.Time(c.CreatedAt)}
}
