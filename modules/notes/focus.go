package notes

import "folio/modules/items"

// focus is how notes show in the Focus view (GET /focus) and the calendar feeds: by their targetAt
// and followUpAt.
func focus() items.Focus[Note] { return items.Focus[Note]{Table: "notes"} }

// NewFocusSource returns the notes' source for the Focus view: the focus module reads the notes'
// lists through it.
func NewFocusSource(svc *Service) items.FocusSource { return svc.items.FocusSource(focus()) }

// NewCalendarSource returns the notes' source for the calendar feeds, described as for the Focus
// view (focus), so that a feed and the Focus view count the same items: the calendar module reads
// the notes' dates through it.
func NewCalendarSource(svc *Service) items.CalendarSource { return svc.items.CalendarSource(focus()) }
