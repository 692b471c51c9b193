package focus_test

import (
	"errors"
	"testing"
	"time"

	"folio/modules/focus"
)

// TestQueryParse: the day a query names, as UTC instants [start, end), on ordinary days, on the
// days the clocks change (midnight skipped, repeated, or the whole date skipped), and by default;
// and the refusals, date first.
func TestQueryParse(t *testing.T) {
	now := time.Date(2025, 3, 10, 23, 30, 0, 0, time.UTC)
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name       string
		q          focus.Query
		date, tz   string
		start, end string
		wantErr    error
	}{
		{"defaults: today in UTC", focus.Query{}, "2025-03-10", "UTC", "2025-03-10T00:00:00Z", "2025-03-11T00:00:00Z", nil},
		{"today in Berlin is tomorrow in UTC", focus.Query{TZ: str("Europe/Berlin")}, "2025-03-11", "Europe/Berlin", "2025-03-10T23:00:00Z", "2025-03-11T23:00:00Z", nil},
		{"today in Los Angeles", focus.Query{TZ: str("America/Los_Angeles")}, "2025-03-10", "America/Los_Angeles", "2025-03-10T07:00:00Z", "2025-03-11T07:00:00Z", nil},
		{"Berlin, clocks forward: 23 hours", focus.Query{Date: str("2025-03-30"), TZ: str("Europe/Berlin")}, "2025-03-30", "Europe/Berlin", "2025-03-29T23:00:00Z", "2025-03-30T22:00:00Z", nil},
		{"Berlin, clocks back: 25 hours", focus.Query{Date: str("2025-10-26"), TZ: str("Europe/Berlin")}, "2025-10-26", "Europe/Berlin", "2025-10-25T22:00:00Z", "2025-10-26T23:00:00Z", nil},
		{"Havana skips midnight: the day starts at 01:00", focus.Query{Date: str("2024-03-10"), TZ: str("America/Havana")}, "2024-03-10", "America/Havana", "2024-03-10T05:00:00Z", "2024-03-11T04:00:00Z", nil},
		{"Santiago skips midnight", focus.Query{Date: str("2024-09-08"), TZ: str("America/Santiago")}, "2024-09-08", "America/Santiago", "2024-09-08T04:00:00Z", "2024-09-09T03:00:00Z", nil},
		{"Jerusalem repeats midnight: the first one", focus.Query{Date: str("2004-09-22"), TZ: str("Asia/Jerusalem")}, "2004-09-22", "Asia/Jerusalem", "2004-09-21T21:00:00Z", "2004-09-22T22:00:00Z", nil},
		{"Apia skipped 2011-12-30: an empty day", focus.Query{Date: str("2011-12-30"), TZ: str("Pacific/Apia")}, "2011-12-30", "Pacific/Apia", "2011-12-30T10:00:00Z", "2011-12-30T10:00:00Z", nil},
		{"a leap day", focus.Query{Date: str("2024-02-29")}, "2024-02-29", "UTC", "2024-02-29T00:00:00Z", "2024-03-01T00:00:00Z", nil},
		{"not a day", focus.Query{Date: str("2025-02-29")}, "", "", "", "", focus.ErrDate},
		{"a date-time", focus.Query{Date: str("2025-02-01T00:00:00Z")}, "", "", "", "", focus.ErrDate},
		{"empty date", focus.Query{Date: str("")}, "", "", "", "", focus.ErrDate},
		{"date before tz", focus.Query{Date: str("x"), TZ: str("x")}, "", "", "", "", focus.ErrDate},
		{"unknown zone", focus.Query{TZ: str("Mars/Base")}, "", "", "", "", focus.ErrZone},
		{"Local is not a zone name", focus.Query{TZ: str("Local")}, "", "", "", "", focus.ErrZone},
		{"empty zone", focus.Query{TZ: str("")}, "", "", "", "", focus.ErrZone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			day, err := tc.q.Parse(now)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("error %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := [4]string{day.Date, day.TZ, day.Start.Format(time.RFC3339), day.End.Format(time.RFC3339)}
			if want := [4]string{tc.date, tc.tz, tc.start, tc.end}; got != want {
				t.Fatalf("got %v, want %v", got, want)
			}
		})
	}
}
