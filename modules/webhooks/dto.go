package webhooks

import (
	"strings"

	"folio/platform/httpx"
)

type createRequest struct {
	URL         string                   `json:"url" binding:"required"`
	Events      httpx.Optional[[]string] `json:"events"`
	Description httpx.Optional[string]   `json:"description"`
}

type webhookResponse struct {
	ID          string   `json:"id"`
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description"`
	CreatedAt   string   `json:"createdAt"`
	Status      string   `json:"status"`
}

// createdResponse is the answer to POST /webhooks: the only one with the secret.
type createdResponse struct {
	webhookResponse
	Secret string `json:"secret"`
}

func toWebhookResponse(w Webhook) webhookResponse {
	events := []string{}
	if w.Events != "" {
		events = strings.Split(w.Events, ",")
	}
	return webhookResponse{ID: w.ID, URL: w.URL, Events: events, Description: w.Description, CreatedAt: httpx.Time(w.CreatedAt), Status: w.Status}
}

type attemptResponse struct {
	EventID       string  `json:"eventId"`
	AttemptedAt   string  `json:"attemptedAt"`
	StatusCode    *int    `json:"statusCode"`
	DurationMs    int64   `json:"durationMs"`
	Error         *string `json:"error"`
	NextAttemptAt *string `json:"nextAttemptAt"`
}

func toAttemptResponse(a Attempt) attemptResponse {
	return attemptResponse{EventID: a.EventID, AttemptedAt: httpx.Time(a.AttemptedAt), StatusCode: a.StatusCode, DurationMs: a.DurationMs,
		Error: a.Error, NextAttemptAt: httpx.TimePtr(a.NextAttemptAt)}
}
