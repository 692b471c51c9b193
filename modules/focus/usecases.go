package focus

import (
	"sync"
	"time"
	_ "time/tzdata" // the zones whatever the host has: a scratch image has no /usr/share/zoneinfo

	"folio/modules/items"
)

// Query is GET /focus' query as the client sent it; MCP's get_focus fills it from its arguments.
type Query struct {
	Date *string // YYYY-MM-DD; nil: today in TZ
	TZ   *string // an IANA time zone name; nil: UTC
}

// Day is the day a Focus request asks about: its date and zone as the answer names them, and the
// instants it spans.
type Day struct {
	Date, TZ string
	items.Day
}

// Parse checks the query, date then tz (the first invalid one answers), and returns the day it
// names; now is the server's clock, for the default date.
func (q Query) Parse(now time.Time) (Day, error) {
	var date time.Time
	if q.Date != nil {
		d, err := time.Parse(time.DateOnly, *q.Date)
		if err != nil || len(*q.Date) != len(time.DateOnly) {
			return Day{}, ErrDate
		}
		date = d
	}
	name := "UTC"
	if q.TZ != nil {
		name = *q.TZ
	}
	loc, err := zone(name)
	if err != nil {
		return Day{}, err
	}
	if q.Date == nil {
		y, m, d := now.In(loc).Date()
		date = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}
	y, m, d := date.Date()
	day := items.Day{Start: startOf(y, m, d, loc), End: startOf(y, m, d+1, loc)}
	// Every stored date lies in the years 0000 to 9999 in UTC (httpx.ParseDate): a day that
	// reaches past them (9999-12-31 west of UTC) is cut there, since SQLite compares dates as
	// text and year 10000 would sort before year 2000.
	if last := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond); day.End.After(last) {
		day.End = last
	}
	if first := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC); day.Start.Before(first) {
		day.Start = first
	}
	return Day{Date: date.Format(time.DateOnly), TZ: name, Day: day}, nil
}

// zones are the zones loaded so far, by name: only valid names, so at most the database's few
// hundred. time.LoadLocation reads the zone's file on every call.
var zones sync.Map

// zone loads an IANA time zone by its exact name. "" and "Local" name no zone of the database
// (time.LoadLocation reads them as UTC and the server's own zone).
func zone(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	if name == "" || name == "Local" {
		return nil, ErrZone
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, ErrZone
	}
	zones.Store(name, loc)
	return loc, nil
}

// startOf is the first instant of the date y-m-d in loc (d may overflow the month, as in
// time.Date). It is local midnight, except where the clocks change across midnight:
//   - midnight skipped (clocks forward at 00:00, Havana, Santiago): time.Date may answer an
//     instant of the day before (23:00 at the old offset); the day starts when the gap ends;
//   - midnight repeated (clocks back at 01:00 to 00:00): the day starts at the first one.
//
// Where a whole date is skipped (Apia, 2011-12-30) its start equals the next date's: an empty day.
func startOf(y int, m time.Month, d int, loc *time.Location) time.Time {
	date := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	onOrAfter := func(t time.Time) bool {
		ly, lm, ld := t.In(loc).Date()
		return !time.Date(ly, lm, ld, 0, 0, 0, 0, time.UTC).Before(date)
	}
	t := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if !onOrAfter(t) {
		_, end := t.ZoneBounds()
		return end.UTC()
	}
	if start, _ := t.ZoneBounds(); !start.IsZero() {
		// Midnight at the offset before this zone period, if that instant was still before it.
		_, before := start.Add(-time.Nanosecond).Zone()
		if first := date.Add(-time.Duration(before) * time.Second); first.Before(start) && onOrAfter(first) {
			return first
		}
	}
	return t.UTC()
}
