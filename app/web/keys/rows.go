package keys

import (
	"fmt"
	"time"

	"folio/app/web"
	"folio/modules/accounts"
	"folio/platform/auth"
)

type keysView struct {
	web.View
	Active   []keyRow
	Inactive []keyRow
	Webhooks []webhookRow // the user's webhooks, newest first (webhooks.go)
	Feeds    []feedRow    // the user's calendar feeds, newest first (calendar.go)
}

type newKeyView struct {
	web.View
	Name       string
	Scope      int
	Access     string // "", "workspace:<id>" or "notebook:<id>"
	Expires    string // "never", "30", "90", "365" or "date" (see formExpiry)
	ExpiresOn  string // YYYY-MM-DD, with "date"
	MinDate    string // the earliest date the date field accepts (tomorrow, UTC)
	Workspaces []auth.Place
	Notebooks  []auth.Place
	Errors     map[string]string
}

type secretView struct {
	web.View
	Raw       string
	Key       keyRow
	Rotated   bool
	OldPrefix string
	BaseURL   string
	// Moved and MovedFeeds are how many webhooks and calendar feeds a rotation moved to the new key.
	Moved      string // "" or "1 webhook", "2 webhooks", ...
	MovedFeeds string // "" or "1 calendar feed", ...
}

type confirmView struct {
	web.View
	Action string // "rotate" or "revoke"
	Key    keyRow
}

type webhookConfirmView struct {
	web.View
	Hook webhookRow
}

// keyRow is an API key as the keys pages show it.
type keyRow struct {
	ID          string
	Name        string
	Short       string // the 8-character prefix (in URLs)
	Prefix      string // svc_live_XXXXXXXX
	Scope       string // read, write, read+write
	Access      string // "Unrestricted", "Workspace: Acme", "Notebook: 1:1s (personal)"
	Created     time.Time
	LastUsed    *time.Time
	Revoked     *time.Time
	Expires     *time.Time // nil: never
	Status      string     // Active, Revoked, Rotated, Expired
	ReplacedBy  string     // for a rotated key, the display prefix of its successor
	Restriction string     // "", "workspace" or "notebook"
	Webhooks    int        // how many webhooks the key owns (held.fill)
	Feeds       int        // how many calendar feeds the key owns
}

// scopeLabel names a scope as SPEC.md's table does.
func scopeLabel(scope int) string {
	switch scope {
	case auth.ScopeRead:
		return "read"
	case auth.ScopeWrite:
		return "write"
	case auth.ScopeReadWrite:
		return "read+write"
	}
	return fmt.Sprintf("scope %d", scope)
}

// placeOr is the label of the place id in places, or gone when the user no longer has it.
func placeOr(places map[string]auth.Place, id, gone string) string {
	if p, ok := places[id]; ok {
		return web.PlaceLabel(p)
	}
	return gone
}

// rowOf is one key as a row, whatever its status.
func rowOf(k accounts.APIKey, workspaces, notebooks []auth.Place, now time.Time) keyRow {
	active, inactive := keyRows([]accounts.APIKey{k}, workspaces, notebooks, now)
	return append(active, inactive...)[0]
}

// keyRows turns keys into rows, resolving restrictions to names through the user's places. Keys
// revoked, rotated or expired at now are inactive.
func keyRows(keys []accounts.APIKey, workspaces, notebooks []auth.Place, now time.Time) (active, inactive []keyRow) {
	ws := map[string]auth.Place{}
	for _, p := range workspaces {
		ws[p.ID] = p
	}
	nbs := map[string]auth.Place{}
	for _, p := range notebooks {
		nbs[p.ID] = p
	}
	successor := map[string]string{}
	for _, k := range keys {
		if k.RotatedFromID != nil {
			successor[*k.RotatedFromID] = auth.DisplayPrefix(k.Prefix)
		}
	}
	for _, k := range keys {
		r := keyRow{
			ID: k.ID, Name: k.Name, Short: k.Prefix, Prefix: auth.DisplayPrefix(k.Prefix), Scope: scopeLabel(k.Scope),
			Access: "Unrestricted", Created: k.CreatedAt, LastUsed: k.LastUsedAt, Revoked: k.RevokedAt,
			Expires: k.ExpiresAt, Status: "Active",
		}
		switch {
		case k.WorkspaceID != nil:
			r.Restriction, r.Access = "workspace", "Workspace: "+placeOr(ws, *k.WorkspaceID, "one you no longer belong to")
		case k.NotebookID != nil:
			r.Restriction, r.Access = "notebook", "Notebook: "+placeOr(nbs, *k.NotebookID, "one you can no longer reach")
		}
		if k.RevokedAt != nil {
			r.Status = "Revoked"
			if next, ok := successor[k.ID]; ok {
				r.Status, r.ReplacedBy = "Rotated", next
			}
			inactive = append(inactive, r)
			continue
		}
		if k.Expired(now) {
			r.Status = "Expired"
			inactive = append(inactive, r)
			continue
		}
		active = append(active, r)
	}
	return active, inactive
}
