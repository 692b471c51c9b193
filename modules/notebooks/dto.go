package notebooks

import "folio/platform/httpx"

type createRequest struct {
	Name                           string                 `json:"name" binding:"required"`
	WorkspaceID                    httpx.Optional[string] `json:"workspaceId" nullable:"true"`
	Color                          string                 `json:"color"`
	httpx.Echoes[notebookResponse]                        // its other fields are "set by the server"
}

type notebookResponse struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Color       string  `json:"color"`
	WorkspaceID *string `json:"workspaceId"`
	CreatedAt   string  `json:"createdAt"`
	UpdatedAt   string  `json:"updatedAt"`
}

func toNotebookResponse(n Notebook) notebookResponse {
	return notebookResponse{ID: n.ID, Name: n.Name, Color: n.Color, WorkspaceID: n.WorkspaceID, CreatedAt: httpx.Time(n.CreatedAt), UpdatedAt: httpx.Time(n.UpdatedAt)}
}
