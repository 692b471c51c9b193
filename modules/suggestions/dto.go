package suggestions

import (
	"encoding/json"

	"folio/modules/content"
	"folio/modules/document"
	"folio/platform/httpx"
)

type suggestRequest struct {
	Content                string                 `json:"content" binding:"required" markdown:"true"`
	Rationale              httpx.Optional[string] `json:"rationale" nullable:"true"`
	httpx.Echoes[Proposed]                        // its other fields are "set by the server"
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
	original, err := document.Read(sg.OriginalContent, sg.OriginalText)
	if err != nil {
		return content.Suggestion{}, err
	}
	suggested, err := document.Read(sg.SuggestedContent, sg.SuggestedText)
	if err != nil {
		return content.Suggestion{}, err
	}
	return suggestionOf(sg, original, suggested), nil
}

// suggestionOf is sg on the wire, given the Markdown of its two documents.
func suggestionOf(sg Suggestion, original, suggested string) content.Suggestion {
	return content.Suggestion{ID: sg.ID, Status: sg.Status, OriginalContent: original, SuggestedContent: suggested, Rationale: sg.Rationale, CreatedAt: httpx.Time(sg.CreatedAt)}
}

// approveRequest is POST /suggestions/:id/approve's optional body.
type approveRequest struct {
	// Hunks are kept as written: the use case reads each as a hunk index, and names what is not.
	Hunks httpx.Optional[[]json.RawMessage] `json:"hunks"`
}

// resolvedResponse is the answer to an approve or reject: merged and partial only when true, so
// that SPEC.md's answer is unchanged where nothing was merged or left out.
type resolvedResponse struct {
	OK      bool   `json:"ok"`
	Status  string `json:"status"`
	Merged  bool   `json:"merged,omitempty"`
	Partial bool   `json:"partial,omitempty"`
}

func toResolved(sg Suggestion) resolvedResponse { return resolvedResponse{OK: true, Status: sg.Status} }

func toApproved(a Approval) resolvedResponse {
	return resolvedResponse{OK: true, Status: a.Status, Merged: a.Merged, Partial: a.Partial}
}

// Proposed is a suggestion as a suggest answers it (Response; MCP's propose tools): the
// suggestion and mergeable, true when it is made (against the content as it stands), which
// GET /suggestions/{id} and the inbox report again as the item changes.
type Proposed struct {
	content.Suggestion
	Mergeable bool `json:"mergeable"`
}

func toProposed(sg Suggestion) (Proposed, error) {
	resp, err := toSuggestionResponse(sg)
	return Proposed{Suggestion: resp, Mergeable: true}, err
}

func toListItem(sg Suggestion) (listItem, error) {
	suggested, err := document.Read(sg.SuggestedContent, sg.SuggestedText)
	if err != nil {
		return listItem{}, err
	}
	return listItem{ID: sg.ID, Status: sg.Status, SuggestedContent: suggested, Rationale: sg.Rationale, CreatedAt: httpx.Time(sg.CreatedAt)}, nil
}

// inboxItem is a suggestion in GET /suggestions: the suggestion's fields, its item, stale and
// mergeable.
type inboxItem struct {
	content.Suggestion
	ItemKind   string `json:"itemKind"`
	ItemID     string `json:"itemId"`
	NotebookID string `json:"notebookId"`
	Stale      bool   `json:"stale"`
	Mergeable  bool   `json:"mergeable"`
}

// inboxDetail is GET /suggestions/:id: an inbox item, the diff and the hunks.
type inboxDetail struct {
	inboxItem
	Diff  string `json:"diff"`
	Hunks []Hunk `json:"hunks"`
}

// toInboxItem is e in a list: mergeable needs a merge only when the suggestion is stale.
func toInboxItem(e InboxEntry) (inboxItem, error) {
	sg, err := toSuggestionResponse(e.Suggestion)
	if err != nil {
		return inboxItem{}, err
	}
	stale, err := e.Stale()
	if err != nil {
		return inboxItem{}, err
	}
	mergeable := true
	if stale {
		pl, err := e.Plan()
		if err != nil {
			return inboxItem{}, err
		}
		mergeable = pl.Mergeable()
	}
	return inboxItem{Suggestion: sg, ItemKind: e.ItemKind, ItemID: e.ItemID, NotebookID: e.NotebookID, Stale: stale, Mergeable: mergeable}, nil
}

// inboxItemPlan is e as an inbox item, and its plan.
func inboxItemPlan(e InboxEntry) (inboxItem, Plan, error) {
	sg, err := toSuggestionResponse(e.Suggestion)
	if err != nil {
		return inboxItem{}, Plan{}, err
	}
	pl, err := e.Plan()
	if err != nil {
		return inboxItem{}, Plan{}, err
	}
	return inboxItem{Suggestion: sg, ItemKind: e.ItemKind, ItemID: e.ItemID, NotebookID: e.NotebookID, Stale: pl.Stale, Mergeable: pl.Mergeable()}, pl, nil
}

func toInboxDetail(e InboxEntry) (inboxDetail, error) {
	item, pl, err := inboxItemPlan(e)
	if err != nil {
		return inboxDetail{}, err
	}
	diff, err := e.Diff()
	if err != nil {
		return inboxDetail{}, err
	}
	return inboxDetail{inboxItem: item, Diff: diff, Hunks: orNone(pl.Hunks)}, nil
}

// orNone is hunks, never nil: written as [] when there are none.
func orNone(hunks []Hunk) []Hunk {
	if hunks == nil {
		return []Hunk{}
	}
	return hunks
}
