package webhooks

import (
	"strings"

	"folio/platform/holdings"
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
	// Status, DisabledReason (why a disabled webhook delivers nothing, null while active) and the
	// key it belongs to (null for a web session's).
	holdings.Response
}

// createdResponse is the answer to POST /webhooks: the only one with the secret.
type createdResponse struct {
	webhookResponse
	Secret string `json:"secret"`
}

func toWebhookResponse(v View) webhookResponse {
	events := []string{}
	if v.Events != "" {
		events = strings.Split(v.Events, ",")
	}
	return webhookResponse{ID: v.ID, URL: v.URL, Events: events, Description: v.Description, CreatedAt: httpx.Time(v.CreatedAt),
		Response: holdings.ResponseOf(v.Status, v.DisabledReason, v.Holder)}
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

// Response is a webhook as GET /webhooks answers it, for the operator's `folio webhook list
// --json`, which adds to it what only the operator sees.
type Response = webhookResponse

// ToResponse is a webhook as GET /webhooks answers it.
func ToResponse(v View) Response { return toWebhookResponse(v) }
