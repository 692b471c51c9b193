package tasks

import (
	"folio/modules/document"
	"folio/modules/items"
	"folio/platform/httpx"
)

type createRequest struct {
	Title                      string `json:"title" binding:"required"`
	NotebookID                 string `json:"notebookId" binding:"required"`
	optionalFields                    // httpx.Bind reads them in this place, as the request's own
	httpx.Echoes[taskResponse]        // its other fields are "set by the server"
}

type patchRequest struct {
	Title                      httpx.Optional[string] `json:"title"`
	optionalFields                                    // httpx.Bind reads them in this place, as the request's own
	Archived                   httpx.Optional[bool]   `json:"archived"`
	NotebookID                 httpx.Optional[string] `json:"notebookId"`
	httpx.Echoes[taskResponse]                        // its other fields are "set by the server"
}

// optionalFields are the fields a create and a PATCH of a task take alike: each may be left out.
type optionalFields struct {
	Notes      httpx.Optional[string] `json:"notes" nullable:"true" markdown:"true"`
	Status     httpx.Optional[string] `json:"status"`
	Priority   httpx.Optional[string] `json:"priority"`
	DueAt      httpx.Optional[string] `json:"dueAt" nullable:"true"`
	TargetAt   httpx.Optional[string] `json:"targetAt" nullable:"true"`
	FollowUpAt httpx.Optional[string] `json:"followUpAt" nullable:"true"`
}

type taskResponse struct {
	ID         string      `json:"id"`
	Title      string      `json:"title"`
	Notes      string      `json:"notes"`
	NotebookID string      `json:"notebookId"`
	Status     string      `json:"status"`
	Priority   string      `json:"priority"`
	Archived   bool        `json:"archived"`
	DueAt      *string     `json:"dueAt"`
	TargetAt   *string     `json:"targetAt"`
	FollowUpAt *string     `json:"followUpAt"`
	Tags       []items.Tag `json:"tags"`
	CreatedAt  string      `json:"createdAt"`
	UpdatedAt  string      `json:"updatedAt"`
}

// toTaskResponse converts a task, its notes being their stored text (document.Read); a task a
// write returned comes with its answer built (View.Response), which it gives back as it is.
func toTaskResponse(v View) (taskResponse, error) {
	if r, ok := v.Response.(taskResponse); ok {
		return r, nil
	}
	notes, err := document.Read(v.Item.Notes, v.Item.NotesText)
	if err != nil {
		return taskResponse{}, err
	}
	return taskOf(v, notes), nil
}

// taskOf is the task as the API returns it, notes being its notes' Markdown (Shape.Response).
func taskOf(v View, notes string) taskResponse {
	t := v.Item
	return taskResponse{
		ID: t.ID, Title: t.Title, Notes: notes, NotebookID: t.NotebookID, Status: t.Status, Priority: t.Priority,
		Archived: t.Archived, DueAt: httpx.TimePtr(t.DueAt), TargetAt: httpx.TimePtr(t.TargetAt), FollowUpAt: httpx.TimePtr(t.FollowUpAt),
		Tags: items.TagList(v.Tags), CreatedAt: httpx.Time(t.CreatedAt), UpdatedAt: httpx.Time(t.UpdatedAt),
	}
}
