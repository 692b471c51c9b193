// Package review is the web pages where people decide (issue "assistants propose, people
// decide"): a signed-in person sees the suggestions waiting on the notes and tasks they can read,
// reads each as a diff, approves or rejects it, and reads and restores an item's history. They
// are a front end of the suggestions and versions modules, exactly as the API is: every rule (who
// may read, approve, restore; the If-Match check) is theirs, reached through the narrow interfaces
// below with the session as the principal, so the audit log names the session as it would for the
// API.
//
//	GET  /review                                      pending suggestions, newest first, paginated
//	GET  /review/suggestions/:id                      one suggestion: its diff, Approve and Reject
//	POST /review/suggestions/:id/approve              approve; item_etag is the item version shown
//	POST /review/suggestions/:id/reject               reject
//	GET  /review/{notes,tasks}/:id/history            an item's versions (history.go)
//	GET  /review/{notes,tasks}/:id/history/:version   one version, and the restore confirmation
//	POST /review/{notes,tasks}/:id/history/:version/restore   restore it; item_etag as for approve
package review

import (
	"context"
	"embed"

	"go.uber.org/fx"

	"folio/modules/accounts"
	"folio/modules/suggestions"
	"folio/modules/versions"
	"folio/platform/auth"
	"folio/platform/etag"
	"folio/platform/httpx"
	"folio/platform/paginate"
)

// Module wires the review pages.
var Module = fx.Module("web.review",
	fx.Provide(
		httpx.AsRoutes(NewHandler),
		func(s *accounts.Service) People { return s },
		func(s *suggestions.Service) Reviews { return s },
		func(s *versions.Service) Histories { return s },
	),
)

// Reviews is what the review pages ask of the suggestions module (bound to *suggestions.Service
// in module.go).
type Reviews interface {
	ParseInbox(q suggestions.InboxQuery) (suggestions.InboxFilter, paginate.Params, error)
	Inbox(ctx context.Context, p *auth.Principal, f suggestions.InboxFilter, page paginate.Params) ([]suggestions.InboxEntry, *string, error)
	Get(ctx context.Context, p *auth.Principal, id string) (suggestions.InboxEntry, error)
	Approve(ctx context.Context, p *auth.Principal, id string, req suggestions.ApproveRequest) (suggestions.Approval, error)
	Reject(ctx context.Context, p *auth.Principal, id string) (suggestions.Suggestion, error)
}

// Histories is what the history pages ask of the versions module (bound to *versions.Service).
type Histories interface {
	List(ctx context.Context, p *auth.Principal, kind, id string, page paginate.Params) ([]versions.Snapshot, *string, error)
	Get(ctx context.Context, p *auth.Principal, kind, id, versionID string) (versions.Snapshot, error)
	Restore(ctx context.Context, p *auth.Principal, kind, id, versionID string, ifMatch etag.IfMatch) (any, string, error)
}

// People is what the review pages ask of the accounts module (bound to *accounts.Service in
// module.go): the names of the people who made a change.
type People interface {
	UsersByIDs(ctx context.Context, ids []string) ([]accounts.User, error)
}

//go:embed templates/*.html
var templateFS embed.FS
