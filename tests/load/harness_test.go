package load

import (
	"testing"
	"time"
)

// TestHarness runs the whole harness on a tiny scenario, so that `go test ./...` keeps it working:
// the seed SQL against the current migrations, the shape of the measured list (20 notes, 3 tags
// each) and every target answering its status. It takes a second or two.
func TestHarness(t *testing.T) {
	s := startServer(t)
	d := Seed(t, s, Scenario{Name: "tiny", Total: 400, CallerNotes: 120, CallerNotebooks: 3, OtherPerNotebook: 20})
	if len(d.VisibleIDs) < 80 {
		t.Fatalf("%d visible notes, want about 120 less archived and deleted", len(d.VisibleIDs))
	}
	c := newClient(s, d.Key, 4)
	defer c.Close()
	checkShape(t, c, d)
	for _, tgt := range Targets(d) {
		r := Drive(c, 4, 40, tgt)
		if r.Errors > 0 {
			t.Fatalf("%s: %d of %d requests failed; first: %s", tgt.Name, r.Errors, r.N, r.FirstErr)
		}
		if r.Percentile(50) <= 0 || r.Percentile(99) < r.Percentile(50) {
			t.Fatalf("%s: percentiles p50 %v p99 %v", tgt.Name, r.Percentile(50), r.Percentile(99))
		}
	}
	var items int64
	s.DB.Raw(`SELECT COALESCE(sum(item_count), 0) FROM notebooks`).Scan(&items)
	var live int64
	s.DB.Raw(`SELECT count(*) FROM notes WHERE deleted_at IS NULL`).Scan(&live)
	if items != live {
		t.Fatalf("sum of notebooks.item_count %d, live notes %d", items, live)
	}
}

func TestPercentile(t *testing.T) {
	lat := make([]time.Duration, 100)
	for i := range lat {
		lat[i] = time.Duration(i+1) * time.Millisecond
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}, {1, time.Millisecond}} {
		if got := percentile(lat, tc.p); got != tc.want {
			t.Errorf("p%v = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("empty: %v", got)
	}
}
