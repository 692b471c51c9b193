package suggestions

import (
	"folio/platform/content"
	"folio/platform/httpx"
)

type suggestRequest struct {
	Content                          string                 `json:"content" binding:"required" markdown:"true"`
	Rationale                        httpx.Optional[string] `json:"rationale" nullable:"true"`
	httpx.Echoes[content.Suggestion]                        // its other fields are "set by the server"
}

// listItem is a suggestion in GET /notes/:id/suggestions: originalContent is omitted.
type listItem struct {
	ID               string `json:"id"`
	Status           string `json:"status"`
	SuggestedContent string `json:"suggestedContent"`
	Rationale        string `json:"rationale"`
	CreatedAt        string `json:"createdAt"`
}

// toSuggestionResponse is a suggestion on the wire (it includes originalContent): the answer to a
// suggest, and an item's pendingSuggestion (PendingFor).
func toSuggestionResponse(sg Suggestion) (content.Suggestion, error) {
	original, err := content.Render(sg.OriginalContent)
	if err != nil {
		return content.Suggestion{}, err
	}
	suggested, err := content.Render(sg.SuggestedContent)
	if err != nil {
		return content.Suggestion{}, err
	}
	return content.Suggestion{ID: sg.ID, Status: sg.Status, OriginalContent: original, SuggestedContent: suggested, Rationale: sg.Rationale, CreatedAt: httpx.Time(sg.CreatedAt)}, nil
}

func toListItem(sg Suggestion) (listItem, error) {
	suggested, err := content.Render(sg.SuggestedContent)
	if err != nil {
		return listItem{}, err
	}
	return listItem{ID: sg.ID, Status: sg.Status, SuggestedContent: suggested, Rationale: sg.Rationale, CreatedAt: httpx.Time(sg.CreatedAt)}, nil
}
