package calendar

import (
	"folio/platform/holdings"
	"folio/platform/httpx"
)

type createRequest struct {
	httpx.Echoes[feedResponse]
	Name       string                 `json:"name" binding:"required"`
	NotebookID httpx.Optional[string] `json:"notebookId" nullable:"true"`
}

type feedResponse struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// NotebookID is the notebook the feed is restricted to; null: every notebook its credential reads.
	NotebookID *string `json:"notebookId"`
	CreatedAt  string  `json:"createdAt"`
	// Status (disabled with disabledReason when its address answers 404) and the key it belongs
	// to (null for a web session's).
	holdings.Response
}

// createdResponse is the answer to POST /calendar-feeds: the only one with the url.
type createdResponse struct {
	feedResponse
	URL string `json:"url"`
}

func toFeedResponse(v View) feedResponse {
	status := holdings.StatusActive
	if v.Dead != nil {
		status = holdings.StatusDisabled
	}
	return feedResponse{ID: v.ID, Name: v.Name, NotebookID: v.NotebookID, CreatedAt: httpx.Time(v.CreatedAt),
		Response: holdings.ResponseOf(status, v.Dead, v.Holder)}
}
