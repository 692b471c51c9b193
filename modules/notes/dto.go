package notes

import (
	"folio/modules/content"
	"folio/modules/document"
	"folio/modules/items"
	"folio/platform/httpx"
)

type createRequest struct {
	Content                    string                 `json:"content" binding:"required" markdown:"true"`
	NotebookID                 string                 `json:"notebookId" binding:"required"`
	TargetAt                   httpx.Optional[string] `json:"targetAt" nullable:"true"`
	FollowUpAt                 httpx.Optional[string] `json:"followUpAt" nullable:"true"`
	httpx.Echoes[noteResponse]                        // its other fields are "set by the server"
}

type patchRequest struct {
	Content                    httpx.Optional[string] `json:"content" markdown:"true"`
	NotebookID                 httpx.Optional[string] `json:"notebookId"`
	TargetAt                   httpx.Optional[string] `json:"targetAt" nullable:"true"`
	FollowUpAt                 httpx.Optional[string] `json:"followUpAt" nullable:"true"`
	Archived                   httpx.Optional[bool]   `json:"archived"`
	httpx.Echoes[noteResponse]                        // its other fields are "set by the server"
}

type noteResponse struct {
	ID          string      `json:"id"`
	Content     string      `json:"content"`
	NotebookID  string      `json:"notebookId"`
	HasDecision bool        `json:"hasDecision"`
	Archived    bool        `json:"archived"`
	TargetAt    *string     `json:"targetAt"`
	FollowUpAt  *string     `json:"followUpAt"`
	Tags        []items.Tag `json:"tags"`
	CreatedAt   string      `json:"createdAt"`
	UpdatedAt   string      `json:"updatedAt"`
}

// noteWithPending is the single-note GET, the only response with pendingSuggestion.
type noteWithPending struct {
	noteResponse
	PendingSuggestion *content.Suggestion `json:"pendingSuggestion" jsonschema:"the proposed new content waiting for review, or null"`
}

// toNoteResponse converts a note, its content being its stored text (document.Read); a note a
// write returned comes with its answer built (View.Response), which it gives back as it is.
func toNoteResponse(v View) (noteResponse, error) {
	if r, ok := v.Response.(noteResponse); ok {
		return r, nil
	}
	text, err := document.Read(v.Item.Content, v.Item.ContentText)
	if err != nil {
		return noteResponse{}, err
	}
	return noteOf(v, text), nil
}

// noteOf is the note as the API returns it, text being its content's Markdown (Shape.Response).
func noteOf(v View, text string) noteResponse {
	n := v.Item
	return noteResponse{
		ID: n.ID, Content: text, NotebookID: n.NotebookID, HasDecision: n.HasDecision, Archived: n.Archived,
		TargetAt: httpx.TimePtr(n.TargetAt), FollowUpAt: httpx.TimePtr(n.FollowUpAt), Tags: items.TagList(v.Tags),
		CreatedAt: httpx.Time(n.CreatedAt), UpdatedAt: httpx.Time(n.UpdatedAt),
	}
}
