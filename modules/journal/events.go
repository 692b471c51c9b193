// Package journal is the item kernel's journal: what a write records beside its change, in the
// change's transaction. The audit module implements Recorder (audit.go); the events module
// implements Emitter (events.go). Modules declare their event types and audit resource types
// here, through fx value groups, so that adding a module edits neither.
//
// A write emits its events to the change feed (CONTRACT.md section 18) through Emitter, inside the transaction of the change, so that an event exists exactly when
// its change does (a transactional outbox). The events module implements it.
//
// Writes that the audit log records emit through the audit entry itself: journal.Entry carries
// the entry's events, and the audit module refuses an entry without one, so a write path that
// records its audit entry cannot forget its event. Writes the audit log does not record (workspace
// members) call Emitter directly; tests/e2e's TestEveryWriteRouteEmits enumerates every write
// operation of the OpenAPI document and fails on one that emits nothing it does not expect.
package journal

import (
	"context"

	"gorm.io/gorm"

	"folio/platform/auth"
)

// Event is one change as a write emits it.
type Event struct {
	Type         string  // a declared type (Catalog)
	ResourceType string  // note, task, suggestion, notebook, workspace
	ResourceID   string  //
	NotebookID   *string // the notebook of the resource (nil for workspace events)
	WorkspaceID  *string // the workspace of the resource (nil in a personal notebook)
	// Data is the resource as the API returns it after the change, marshalled to JSON at
	// emission (Deleted for a delete).
	Data any
}

// Deleted is the data of a delete event: the resource's id only.
func Deleted(id string) any {
	return struct {
		ID string `json:"id"`
	}{id}
}

// Emitter writes events in the caller's transaction tx, in the order given.
type Emitter interface {
	Emit(ctx context.Context, tx *gorm.DB, p *auth.Principal, events ...Event) error
}

// PastTense maps an audit verb to its event verb: note.create is note.created, and so on for
// update, delete and restore (the item flows' actions). ok is false for another verb.
func PastTense(verb string) (string, bool) {
	past, ok := map[string]string{"create": "created", "update": "updated", "delete": "deleted", "restore": "restored"}[verb]
	return past, ok
}

// Placed is an event that has just got its place in the feed, as the webhooks see it: who may
// see it, and its payload (the event as GET /events serves it).
type Placed struct {
	ID           string // the wire id
	Type         string
	ResourceType string
	ResourceID   string
	ActorUserID  string
	NotebookID   *string
	WorkspaceID  *string
	Payload      []byte
}

// Dispatcher hands placed events to their subscribers (the webhooks module provides it). It
// runs in the sequencer's transaction tx, the one that gives the events their places, so a
// delivery is enqueued exactly when its event joins the feed, once, and survives restarts.
type Dispatcher interface {
	Dispatch(ctx context.Context, tx *gorm.DB, placed []Placed) error
}

// DataResource is what an event's data shows, for the access rule (CONTRACT.md section 20): the
// event's data is shown to a principal only while it can read this resource. For most events it
// is the event's own resource; a delete's data is only the deleted id (no content, and the
// resource is gone for everyone), so it stays shown to whoever can still read the notebook it was
// deleted from. ok is false when nothing can be named (then the data is never shown).
func (c *Catalog) DataResource(eventType, resourceType, resourceID string, notebookID *string) (auth.Resource, bool) {
	if t, _ := c.lookup(eventType); t.Deletion {
		if notebookID == nil {
			return auth.Resource{}, false
		}
		return auth.Resource{Type: "notebook", ID: *notebookID}, true
	}
	return auth.Resource{Type: resourceType, ID: resourceID}, true
}
