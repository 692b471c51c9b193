package audit

import "folio/platform/httpx"

type entryResponse struct {
	ID           int64   `json:"id"`
	Action       string  `json:"action"`
	ResourceType string  `json:"resourceType"`
	ResourceID   string  `json:"resourceId"`
	APIKeyName   *string `json:"apiKeyName"`
	APIKeyPrefix *string `json:"apiKeyPrefix"`
	CreatedAt    string  `json:"createdAt"`
}

func toEntryResponse(e Entry) entryResponse {
	return entryResponse{ID: e.ID, Action: e.Action, ResourceType: e.ResourceType, ResourceID: e.ResourceID, APIKeyName: e.APIKeyName, APIKeyPrefix: e.APIKeyPrefix, CreatedAt: httpx.Time(e.CreatedAt)}
}
