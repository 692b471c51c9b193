package calendar_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"

	"folio/modules/calendar"
	"folio/modules/items"
)

func at(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &t
}

func dated(kind, id string, version int64, label string, followUp, due, target *time.Time) items.CalendarItem {
	return items.CalendarItem{Kind: kind, ID: id, Version: version, UpdatedAt: *at("2031-01-02T03:04:05Z"), FollowUpAt: followUp, DueAt: due, TargetAt: target,
		Label: func() (string, error) { return label, nil }}
}

// TestWrite: the body is CRLF-separated, folded at 75 octets, and reads back through go-ical (a
// parser other than the writer) as one event per date, with the UIDs, times, texts and links it
// was written with; a label with line breaks and control characters becomes a TEXT value, and an
// empty one a placeholder.
func TestWrite(t *testing.T) {
	feed := calendar.Feed{ID: "feed1", Name: "Work, mostly; \\ all"}
	title := "Budget, hiring; review \\ done\r\nnext line\x00\x07 — " + strings.Repeat("日本語", 30)
	entries := []items.CalendarItem{
		dated("task", "task1", 3, title, at("2031-03-01T09:00:00+02:00"), at("2031-03-02T00:00:00Z"), nil),
		dated("note", "note1", 1, "  ", nil, nil, at("2031-04-01T00:00:00Z")),
	}
	var b bytes.Buffer
	if err := calendar.Write(&b, feed, "https://folio.example", entries); err != nil {
		t.Fatal(err)
	}
	body := b.String()
	for i, line := range strings.Split(strings.TrimSuffix(body, "\r\n"), "\r\n") {
		if len(line) > 75 || strings.ContainsAny(line, "\r\n\x00\x07") {
			t.Errorf("line %d: %q", i+1, line)
		}
	}
	cal, err := ical.NewDecoder(strings.NewReader(body)).Decode()
	if err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	if name, _ := cal.Props.Text("X-WR-CALNAME"); name != feed.Name {
		t.Errorf("X-WR-CALNAME %q", name)
	}
	want := map[string]struct {
		summary, url string
		start        time.Time
	}{
		"task1-followup@folio": {"Budget, hiring; review \\ done\nnext line — " + strings.Repeat("日本語", 30), "https://folio.example/app/tasks/task1", *at("2031-03-01T07:00:00Z")},
		"task1-due@folio":      {"Budget, hiring; review \\ done\nnext line — " + strings.Repeat("日本語", 30), "https://folio.example/app/tasks/task1", *at("2031-03-02T00:00:00Z")},
		"note1-target@folio":   {"(untitled note)", "https://folio.example/app/notes/note1", *at("2031-04-01T00:00:00Z")},
	}
	events := cal.Events()
	if len(events) != len(want) {
		t.Fatalf("%d events, want %d:\n%s", len(events), len(want), body)
	}
	for _, ev := range events {
		uid, _ := ev.Props.Text(ical.PropUID)
		w, ok := want[uid]
		if !ok {
			t.Errorf("unexpected UID %q", uid)
			continue
		}
		summary, _ := ev.Props.Text(ical.PropSummary)
		start, err := ev.DateTimeStart(time.UTC)
		if summary != w.summary || ev.Props.Get(ical.PropURL).Value != w.url || err != nil || !start.Equal(w.start) || start.Location() != time.UTC {
			t.Errorf("%s: %q %q %v (%v)", uid, summary, ev.Props.Get(ical.PropURL).Value, start, err)
		}
		if stamp := ev.Props.Get(ical.PropDateTimeStamp); stamp == nil || stamp.Value != "20310102T030405Z" {
			t.Errorf("%s: DTSTAMP %v, want the item's last change", uid, stamp)
		}
	}
	if err := ical.NewEncoder(&bytes.Buffer{}).Encode(cal); err != nil {
		t.Errorf("go-ical finds the calendar malformed: %v", err)
	}
}

// TestETag: the ETag changes with what the body is made of (an item's version, the set of items,
// the feed's name, the address the links are made under) and only with it.
func TestETag(t *testing.T) {
	feed := calendar.Feed{ID: "feed1", Name: "Work"}
	one := []items.CalendarItem{dated("task", "task1", 3, "x", at("2031-03-01T09:00:00Z"), nil, nil)}
	base := calendar.ETag(feed, "https://a", one)
	if base != calendar.ETag(feed, "https://a", one) || !strings.HasPrefix(base, `"`) || !strings.HasSuffix(base, `"`) {
		t.Fatalf("ETag %s is not a stable quoted tag", base)
	}
	renamed := feed
	renamed.Name = "Home"
	for what, tag := range map[string]string{
		"a new version": calendar.ETag(feed, "https://a", []items.CalendarItem{dated("task", "task1", 4, "x", at("2031-03-01T09:00:00Z"), nil, nil)}),
		"another item":  calendar.ETag(feed, "https://a", append(one, dated("note", "note1", 1, "y", nil, nil, at("2031-03-01T09:00:00Z")))),
		"no items":      calendar.ETag(feed, "https://a", nil),
		"another name":  calendar.ETag(renamed, "https://a", one),
		"another host":  calendar.ETag(feed, "https://b", one),
	} {
		if tag == base {
			t.Errorf("%s keeps the ETag", what)
		}
	}
}
