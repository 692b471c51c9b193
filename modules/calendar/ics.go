package calendar

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"

	"folio/modules/items"
)

// A feed's body is an RFC 5545 iCalendar written by github.com/arran4/golang-ical (see
// docs/decisions.md: escaping, folding at 75 octets without splitting a character, CRLF). One
// VEVENT per follow-up, due date and target date of an item:
//
//   - UID: the item's id and the kind of date, "<id>-followup@folio", "-due@", "-target@": the same
//     on every fetch, and when the date moves (a calendar app updates the event);
//   - DTSTAMP and LAST-MODIFIED: when the item last changed (without METHOD, DTSTAMP is "when the
//     information was last revised", RFC 5545 section 3.8.7.2), so the body changes only when an
//     item does;
//   - DTSTART: the date, in UTC; no DTEND (an instant: the event ends when it starts, section
//     3.6.1), TRANSP:TRANSPARENT (a reminder blocks no time);
//   - SUMMARY: the task's title or the note's first line (items.CalendarItem.Label);
//   - URL: the item's page in the web app, and DESCRIPTION says which date it is, with the link
//     again (some calendar apps show no URL).

// occasion is one event of an item: a kind of date and when.
type occasion struct {
	kind string    // followup, due, target: the UID's part
	at   time.Time // UTC
	what string    // "Follow-up", "Due date", "Target date"
}

// occasions are an item's events, in the order of the UIDs' kinds.
func occasions(d items.CalendarItem) []occasion {
	var out []occasion
	for _, o := range []struct {
		kind, what string
		at         *time.Time
	}{{"followup", "Follow-up", d.FollowUpAt}, {"due", "Due date", d.DueAt}, {"target", "Target date", d.TargetAt}} {
		if o.at != nil {
			out = append(out, occasion{kind: o.kind, at: o.at.UTC(), what: o.what})
		}
	}
	return out
}

// formatVersion names what this file writes for the same items: change it with the format, so
// that a calendar app holding an older ETag gets the new body.
const formatVersion = "1"

// ETag is the feed's strong ETag for entries written with the pages under base: a hash of what the
// body is made of (the format, the feed's id and name, base, each entry's kind, id and version: an
// item's version changes with every write of it), not of the body, so that a 304 renders nothing.
func ETag(f Feed, base string, entries []items.CalendarItem) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s %q %q %q\n", formatVersion, f.ID, f.Name, base)
	for _, d := range entries {
		fmt.Fprintf(h, "%s %s %d\n", d.Kind, d.ID, d.Version)
	}
	return `"cal-` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`
}

// Write writes the feed's calendar of entries (Service.Entries), with links to the items' pages
// under base (the web app's origin, "https://folio.example.com").
func Write(w io.Writer, f Feed, base string, entries []items.CalendarItem) error {
	cal := ics.NewCalendar()
	cal.SetProductId("-//folio//calendar feed//EN")
	cal.SetCalscale("GREGORIAN")
	cal.SetName(plain(f.Name)) // NAME (RFC 7986) and X-WR-CALNAME
	// How often to poll (RFC 7986, and the older X-PUBLISHED-TTL): a feed is cheap to ask again
	// (its ETag), and a follow-up set now shows within the hour.
	cal.SetRefreshInterval("PT1H")
	cal.SetXPublishedTTL("PT1H")
	for _, d := range entries {
		label, err := d.Label()
		if err != nil {
			return err
		}
		summary := plain(label)
		if strings.TrimSpace(summary) == "" {
			summary = "(untitled " + d.Kind + ")"
		}
		// The web app's pages are named as the API's resources: /app/notes/<id>, /app/tasks/<id>.
		page := base + "/app/" + d.Kind + "s/" + d.ID
		for _, o := range occasions(d) {
			ev := cal.AddEvent(d.ID + "-" + o.kind + "@folio")
			ev.SetDtStampTime(d.UpdatedAt)
			ev.SetLastModifiedAt(d.UpdatedAt)
			ev.SetStartAt(o.at)
			ev.SetSummary(summary)
			ev.SetDescription(o.what + " of this " + d.Kind + " in folio: " + page)
			ev.SetURL(page)
			ev.SetTimeTransparency(ics.TransparencyTransparent)
		}
	}
	return cal.SerializeTo(w, ics.WithNewLineWindows)
}

// plain makes s a TEXT value the library can escape: line breaks become LF (which it writes as
// \n), and control characters other than LF and tab, which a TEXT value cannot hold (RFC 5545
// section 3.3.11), are dropped.
func plain(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r >= 0x20 && r != 0x7f {
			return r
		}
		return -1
	}, s)
}
