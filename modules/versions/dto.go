package versions

import (
	"folio/modules/document"
	"folio/platform/httpx"
)

// versionResponse is a version in a list: what replaced that content, when and by which key.
type versionResponse struct {
	ID           string  `json:"id"`
	Reason       string  `json:"reason"`
	CreatedAt    string  `json:"createdAt"`
	APIKeyName   *string `json:"apiKeyName"`
	APIKeyPrefix *string `json:"apiKeyPrefix"`
}

// versionDetail is one version with its content (a note's Markdown, a task's notes).
type versionDetail struct {
	versionResponse
	Content string `json:"content"`
}

func toVersionResponse(v Snapshot) versionResponse {
	return versionResponse{ID: v.ID, Reason: v.Reason, CreatedAt: httpx.Time(v.CreatedAt), APIKeyName: v.APIKeyName, APIKeyPrefix: v.APIKeyPrefix}
}

func toVersionDetail(v Snapshot) (versionDetail, error) {
	text, err := document.Read(v.Document, v.Text)
	if err != nil {
		return versionDetail{}, err
	}
	return versionDetail{versionResponse: toVersionResponse(v), Content: text}, nil
}
