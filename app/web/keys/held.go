package keys

import (
	"context"
	"strconv"

	"folio/modules/calendar"
	"folio/modules/webhooks"
	"folio/platform/auth"
	"folio/platform/holdings"
)

// What a user's keys hold (CONTRACT.md section 20): webhooks and calendar feeds, each belonging to
// the key (or web session) that created it. The keys page lists them below the keys and counts
// them on each key's row; the revoke and rotate confirmations say what happens to them.

// held is a user's webhooks and calendar feeds, each with its state decided now.
type held struct {
	hooks []webhooks.View
	feeds []calendar.View
}

// held reads the user's webhooks and calendar feeds.
func (h *Handler) held(ctx context.Context, userID string) (held, error) {
	hooks, err := h.webhooks.ForUser(ctx, userID)
	if err != nil {
		return held{}, err
	}
	feeds, err := h.feeds.ForUser(ctx, userID)
	return held{hooks: hooks, feeds: feeds}, err
}

// count is how many webhooks and calendar feeds the key keyID holds.
func (x held) count(keyID string) (hooks, feeds int) {
	for _, v := range x.hooks {
		hooks += ownedBy(v.Holder, keyID)
	}
	for _, v := range x.feeds {
		feeds += ownedBy(v.Holder, keyID)
	}
	return hooks, feeds
}

func ownedBy(h holdings.Holder, keyID string) int {
	if h.KeyID != "" && h.KeyID == keyID {
		return 1
	}
	return 0
}

// fill sets each key row's counts.
func (x held) fill(rows []keyRow) {
	for i := range rows {
		rows[i].Webhooks, rows[i].Feeds = x.count(rows[i].ID)
	}
}

// owner is the credential a webhook or a calendar feed belongs to, as the keys pages show it.
type owner struct {
	CreatedBy string // "Deploy bot (svc_live_XXXXXXXX)" or "web session"
	KeyName   string // "" for a session's, or when the key is gone
	KeyPrefix string
	Session   bool
}

// ownerOf is the owner of a holding made by the credential of kind and id, held as h.
func ownerOf(kind, id string, h holdings.Holder) owner {
	o := owner{Session: kind == string(auth.CredentialSession)}
	switch {
	case o.Session:
		o.CreatedBy = "web session"
	case h.KeyName != nil && h.KeyPrefix != nil:
		o.KeyName, o.KeyPrefix = *h.KeyName, *h.KeyPrefix
		o.CreatedBy = o.KeyName + " (" + o.KeyPrefix + ")"
	case id == "":
		o.CreatedBy = "unknown (made before webhooks recorded their key)"
	default:
		o.CreatedBy = "a key that no longer exists"
	}
	return o
}

// counted is "1 thing" or "N things".
func counted(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + one + "s"
}

// countWebhooks is "1 webhook" or "N webhooks".
func countWebhooks(n int) string { return counted(n, "webhook") }

// countFeeds is "1 calendar feed" or "N calendar feeds".
func countFeeds(n int) string { return counted(n, "calendar feed") }
