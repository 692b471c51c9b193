package journal

// How a module records an action in the audit log: through Recorder, inside the transaction of
// the change it records, so that the entry exists exactly when the change does. The audit module
// implements it.

import (
	"context"

	"go.uber.org/fx"
	"gorm.io/gorm"

	"folio/platform/auth"
)

// Entry is one action on one resource.
type Entry struct {
	Action       string  // "<resourceType>.<verb>", e.g. note.update
	ResourceType string  // note, task or notebook
	ResourceID   string  //
	WorkspaceID  *string // workspace of the resource (nil for a personal notebook's resources)
	NotebookID   *string // notebook of the resource (for a notebook: itself)
	// Events are what the action emits to the change feed (CONTRACT.md section 18), in the same
	// transaction. Every audited action emits at least one: an entry without is refused, so a
	// write path cannot record its audit entry and forget its event.
	Events []Event
}

// Recorder writes entries. tx is the caller's transaction.
type Recorder interface {
	Record(ctx context.Context, tx *gorm.DB, p *auth.Principal, e Entry) error
}

// ResourceType is a kind of resource whose actions a module records ("note"), with the actions
// ("note.create", ...). The audit log's resourceType filter accepts exactly the declared types,
// and the OpenAPI document's enums of types and actions are assembled from the declarations, so a
// new module declares its own and edits no other.
type ResourceType struct {
	Name    string
	Actions []string
}

// ItemVerbs are the actions recorded on an item (a note, a task): its flows' and its
// suggestions'.
var ItemVerbs = []string{"create", "update", "delete", "suggest", "approve", "reject", "restore"}

// DeclareResourceType joins the value group the audit module reads, with the verbs of the
// actions recorded on it: fx.Provide(journal.DeclareResourceType("note", journal.ItemVerbs...)).
func DeclareResourceType(name string, verbs ...string) any {
	t := ResourceType{Name: name}
	for _, v := range verbs {
		t.Actions = append(t.Actions, name+"."+v)
	}
	return fx.Annotate(func() ResourceType { return t }, fx.ResultTags(`group:"auditResourceTypes"`))
}

// Sees is Visible for one row already in hand (a webhook's dispatch): whether p may see a row of
// actor actorUserID in notebook notebookID and workspace workspaceID by the same rule.
func Sees(p *auth.Principal, actorUserID string, notebookID, workspaceID *string) bool {
	switch {
	case p.NotebookID != nil:
		return notebookID != nil && *notebookID == *p.NotebookID
	case p.WorkspaceID != nil:
		return workspaceID != nil && *workspaceID == *p.WorkspaceID
	default:
		// A reminder has no actor: it is in the feed of whoever may read its item, which the
		// caller asks the access rule (auth.Rule.Readable) right after.
		return actorUserID == p.UserID || actorUserID == ""
	}
}

// Visible narrows q, a query on table (which has notebook_id, workspace_id and actor_user_id
// columns), to the rows the principal may see by the audit log's rule (CONTRACT.md section 7),
// which the change feed reuses (section 18): a session or an unrestricted key what its user
// caused; a workspace-scoped key what happened in its workspace; a notebook-scoped key what
// happened in its notebook.
func Visible(q *gorm.DB, table string, p *auth.Principal) *gorm.DB {
	switch {
	case p.NotebookID != nil:
		return q.Where(table+".notebook_id = ?", *p.NotebookID)
	case p.WorkspaceID != nil:
		return q.Where(table+".workspace_id = ?", *p.WorkspaceID)
	default:
		return q.Where(table+".actor_user_id = ?", p.UserID)
	}
}
