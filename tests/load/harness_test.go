package load

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"folio/tests/apitest"
)

// TestHarness runs the whole harness on a tiny scenario, so that `go test ./...` keeps it working:
// the seed SQL against the current migrations, the shape of the measured list (20 notes, 3 tags
// each) and every target answering its status. It takes a second or two.
func TestHarness(t *testing.T) {
	s := startServer(t)
	schema := func() (defs []string) {
		s.DB.Raw(`SELECT indexdef FROM pg_indexes WHERE tablename IN ('notes', 'item_tags')
			UNION ALL SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
			WHERE conrelid::regclass::text IN ('notes', 'item_tags') ORDER BY 1`).Scan(&defs)
		return defs
	}
	before := schema()
	d := Seed(t, s, Scenario{Name: "tiny", Total: 400, CallerNotes: 120, CallerNotebooks: 3, OtherPerNotebook: 20})
	if after := schema(); !slices.Equal(before, after) || len(before) < 4 {
		t.Fatalf("the seed changed the indexes and constraints:\n%q\n%q", before, after)
	}
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
	// The seeded tags are the tags module's own: a note naming one reuses it (same identity key).
	r := s.Post(t, d.Key, "/notes", map[string]any{"content": "#Roadmap", "notebookId": d.CallerNotebooks[0]})
	var note struct{ Tags []struct{ ID string } }
	if err := json.Unmarshal(apitest.Must(t, r, http.StatusCreated).Body, &note); err != nil || len(note.Tags) != 1 {
		t.Fatalf("create: %v %s", err, r.Body)
	}
	if want := "g" + md5hex(d.UserID + ":TAG:0")[:23]; note.Tags[0].ID != want {
		t.Fatalf("#Roadmap got tag %s, want the seeded %s", note.Tags[0].ID, want)
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
