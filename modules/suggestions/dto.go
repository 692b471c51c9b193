package suggestions

import (
	"folio/modules/content"
	"folio/modules/document"
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
// suggest, and an item's pendingSuggestion (PendingFor). A suggestion Suggest returned comes with
// it built.
func toSuggestionResponse(sg Suggestion) (content.Suggestion, error) {
	if sg.response != nil {
		return *sg.response, nil
	}
	original, err := document.Render(sg.OriginalContent)
	if err != nil {
		return content.Suggestion{}, err
	}
	suggested, err := document.Render(sg.SuggestedContent)
	if err != nil {
		return content.Suggestion{}, err
	}
	return suggestionOf(sg, original, suggested), nil
}

// suggestionOf is sg on the wire, given the Markdown of its two documents.
func suggestionOf(sg Suggestion, original, suggested string) content.Suggestion {
	return content.Suggestion{ID: sg.ID, Status: sg.Status, OriginalContent: original, SuggestedContent: suggested, Rationale: sg.Rationale, CreatedAt: httpx.Time(sg.CreatedAt)}
}

// resolvedResponse is the answer to an approve or reject.
type resolvedResponse struct {
	OK     bool   `json:"ok"`
	Status string `json:"status"`
}

func toResolved(sg Suggestion) resolvedResponse { return resolvedResponse{OK: true, Status: sg.Status} }

func toListItem(sg Suggestion) (listItem, error) {
	suggested, err := document.Render(sg.SuggestedContent)
	if err != nil {
		return listItem{}, err
	}
	return listItem{ID: sg.ID, Status: sg.Status, SuggestedContent: suggested, Rationale: sg.Rationale, CreatedAt: httpx.Time(sg.CreatedAt)}, nil
}

// inboxItem is a suggestion in GET /suggestions: the suggestion's fields, its item and stale.
type inboxItem struct {
	content.Suggestion
	ItemKind   string `json:"itemKind"`
	ItemID     string `json:"itemId"`
	NotebookID string `json:"notebookId"`
	Stale      bool   `json:"stale"`
}

// inboxDetail is GET /suggestions/:id: an inbox item and the diff.
type inboxDetail struct {
	inboxItem
	Diff string `json:"diff"`
}

func toInboxItem(e InboxEntry) (inboxItem, error) {
	sg, err := toSuggestionResponse(e.Suggestion)
	if err != nil {
		return inboxItem{}, err
	}
	stale, err := e.Stale()
	if err != nil {
		return inboxItem{}, err
	}
	return inboxItem{Suggestion: sg, ItemKind: e.ItemKind, ItemID: e.ItemID, NotebookID: e.NotebookID, Stale: stale}, nil
}

func toInboxDetail(e InboxEntry) (inboxDetail, error) {
	item, err := toInboxItem(e)
	if err != nil {
		return inboxDetail{}, err
	}
	diff, err := e.Diff()
	if err != nil {
		return inboxDetail{}, err
	}
	return inboxDetail{inboxItem: item, Diff: diff}, nil
}
