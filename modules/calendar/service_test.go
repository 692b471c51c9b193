package calendar_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"folio/modules/calendar"
	"folio/modules/items"
	"folio/platform/apierr"
	"folio/platform/auth"
)

// source is an items.CalendarSource of the test's own.
type source struct {
	items []items.CalendarItem
	err   error
}

func (s source) Calendar(_ context.Context, _ *auth.Principal, _ *string, limit int) ([]items.CalendarItem, error) {
	if len(s.items) > limit {
		return s.items[:limit], s.err
	}
	return s.items, s.err
}

// TestEntries: a feed shows the most recently changed items of every source first, whole items
// only, up to calendar.MaxEvents events; a source that finds the feed's notebook out of reach
// makes the feed not found.
func TestEntries(t *testing.T) {
	start := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
	d := start.Add(24 * time.Hour)
	mk := func(kind string, n, dates int, offset time.Duration) []items.CalendarItem {
		out := make([]items.CalendarItem, n)
		for i := range out {
			it := items.CalendarItem{Kind: kind, ID: fmt.Sprintf("%s%04d", kind, i), UpdatedAt: start.Add(offset + time.Duration(n-i)*time.Minute), FollowUpAt: &d}
			if dates > 1 {
				it.DueAt = &d
			}
			if dates > 2 {
				it.TargetAt = &d
			}
			out[i] = it // newest first, as a source answers
		}
		return out
	}
	notes := mk("note", 400, 1, 30*time.Second) // one event each, interleaved with the tasks
	tasks := mk("task", 400, 3, 0)              // three each
	svc := calendar.NewService(calendar.ServiceParams{Sources: []items.CalendarSource{source{items: tasks}, source{items: notes}}})
	got, err := svc.Entries(context.Background(), calendar.Feed{}, &auth.Principal{})
	if err != nil {
		t.Fatal(err)
	}
	events := 0
	for i, e := range got {
		n := 0
		for _, at := range []*time.Time{e.FollowUpAt, e.DueAt, e.TargetAt} {
			if at != nil {
				n++
			}
		}
		events += n
		if i > 0 && got[i-1].UpdatedAt.Before(e.UpdatedAt) {
			t.Fatalf("entry %d (%v) comes after an older one (%v)", i, e.UpdatedAt, got[i-1].UpdatedAt)
		}
	}
	if events > calendar.MaxEvents || events < calendar.MaxEvents-2 {
		t.Fatalf("%d entries with %d events, want the most that fit in %d", len(got), events, calendar.MaxEvents)
	}
	// Both kinds are there, interleaved by their times.
	kinds := map[string]int{}
	for _, e := range got {
		kinds[e.Kind]++
	}
	if kinds["note"] == 0 || kinds["task"] == 0 {
		t.Fatalf("kinds shown: %v", kinds)
	}

	gone := calendar.NewService(calendar.ServiceParams{Sources: []items.CalendarSource{source{err: apierr.NotFound("NOTEBOOK_NOT_FOUND", "notebook not found")}}})
	if _, err := gone.Entries(context.Background(), calendar.Feed{}, &auth.Principal{}); !errors.Is(err, calendar.ErrNotFound) {
		t.Fatalf("a notebook out of reach: %v, want the feed not found", err)
	}
}
