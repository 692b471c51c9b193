package events

import (
	"encoding/json"

	"folio/platform/httpx"
)

type actorResponse struct {
	UserID       string  `json:"userId"`
	APIKeyName   *string `json:"apiKeyName"`
	APIKeyPrefix *string `json:"apiKeyPrefix"`
}

type eventResponse struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	CreatedAt    string          `json:"createdAt"`
	ResourceType string          `json:"resourceType"`
	ResourceID   string          `json:"resourceId"`
	NotebookID   *string         `json:"notebookId"`
	WorkspaceID  *string         `json:"workspaceId"`
	Actor        *actorResponse  `json:"actor"` // nil: a reminder, which nobody causes
	Data         json.RawMessage `json:"data"`
}

// feedPage is GET /events: nextCursor is never null (CONTRACT.md section 18).
type feedPage struct {
	Data       []eventResponse `json:"data"`
	NextCursor string          `json:"nextCursor"`
}

// toEventResponse is an event on the wire (the webhooks' payload too).
func toEventResponse(e Event) eventResponse {
	r := eventResponse{
		ID: FormatID(*e.Seq), Type: e.Type, CreatedAt: httpx.Time(e.CreatedAt), ResourceType: e.ResourceType,
		ResourceID: e.ResourceID, NotebookID: e.NotebookID, WorkspaceID: e.WorkspaceID,
		Data: json.RawMessage(e.Data),
	}
	if e.ActorUserID != "" {
		r.Actor = &actorResponse{UserID: e.ActorUserID, APIKeyName: e.APIKeyName, APIKeyPrefix: e.APIKeyPrefix}
	}
	return r
}
