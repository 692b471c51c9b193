package load

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"

	"folio/platform/httpx"
)

// floorTargets are the requests measured against the floor.
var floorTargets = []string{"get", "list", "list-cursor"}

// TestFloorMatchesFolio keeps the floor honest (in go test ./..., on the tiny scenario): for each
// measured request, the floor sends exactly the statements folio sends, in the same order, and
// answers the same JSON.
func TestFloorMatchesFolio(t *testing.T) {
	s := startServer(t)
	d := Seed(t, s, Scenario{Name: "tiny", Total: 400, CallerNotes: 120, CallerNotebooks: 3, OtherPerNotebook: 20})
	f := startFloor(t, s.Config.DatabaseURL, 4, map[string]string{d.Key: d.UserID})
	// The request's reads of items only.
	rec := recordStatements(t, s, func(sql string) bool {
		return strings.Contains(sql, `FROM "notes"`) || strings.Contains(sql, "FROM notes") || strings.Contains(sql, "item_tags") || strings.Contains(sql, "FROM suggestions")
	})
	get := func(base, path string) any {
		req, _ := http.NewRequest(http.MethodGet, base+httpx.APIBase+path, nil)
		req.Header.Set("Authorization", "Bearer "+d.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s%s: %d %s", base, path, resp.StatusCode, body)
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tgt := range Targets(d) {
		if !containsName(floorTargets, tgt.Name) {
			continue
		}
		path, _ := tgt.Req(3)
		get(s.URL, path) // warm: the key is cached, as the floor has it
		var want any
		var stmts []string
		for _, st := range rec.Recording(func() { want = get(s.URL, path) }) {
			stmts = append(stmts, st.sql)
		}
		floorStmts := []string{floorNoteSQL, floorTagsSQL(1), floorPendingSQL}
		if tgt.Name != "get" {
			list := floorListSQL
			if tgt.Name == "list-cursor" {
				list = floorCursorSQL
			}
			floorStmts = []string{list, floorTagsSQL(floorPageSize)}
		}
		if !reflect.DeepEqual(stmts, floorStmts) {
			t.Fatalf("%s: folio sent\n%s\nthe floor sends\n%s", tgt.Name, strings.Join(stmts, "\n"), strings.Join(floorStmts, "\n"))
		}
		if got := get(f.URL, path); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the floor answers\n%v\nfolio\n%v", tgt.Name, got, want)
		}
	}
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

// BenchmarkFloor measures folio beside the floor on each scenario, interleaved: for each request,
// three rounds of folio then the floor, each warmed first, on the same database and with the same
// pool size and client count. It reports both throughputs (the median round), their ratio
// (folio ÷ floor, the figure the goals are about) and the CPU per request of this process
// (server and load generator) and of PostgreSQL for each.
//
//	FOLIO_TEST_DATABASE_URL=... go test ./tests/load -run '^$' -bench Floor -benchtime 5000x -timeout 60m
func BenchmarkFloor(b *testing.B) {
	conc := concurrency()
	for _, sc := range Scenarios {
		b.Run(sc.Name, func(b *testing.B) {
			s := startServer(b)
			dbName := databaseName(s.Config.DatabaseURL)
			d := Seed(b, s, sc)
			f := startFloor(b, s.Config.DatabaseURL, s.Config.DBMaxOpenConns, map[string]string{d.Key: d.UserID})
			folio := newClient(s, d.Key, conc)
			defer folio.Close()
			floor := newClient(s, d.Key, conc)
			floor.base = f.URL + httpx.APIBase
			defer floor.Close()
			for _, tgt := range Targets(d) {
				if !containsName(floorTargets, tgt.Name) {
					continue
				}
				b.Run(tgt.Name, func(b *testing.B) {
					type side struct{ rps, goCPU, pgCPU []float64 }
					var sides [2]side
					for range 3 {
						for i, c := range []*Client{folio, floor} {
							waitQuiet(b)
							Warm(c, conc, tgt)
							cpu0, pg0 := processCPU(), pgBackends(dbName)
							r := Drive(c, conc, b.N, tgt)
							cpu, pg := processCPU()-cpu0, pgCPUSince(dbName, pg0)
							if r.Errors > 0 {
								b.Fatalf("%d of %d requests failed; first: %s", r.Errors, r.N, r.FirstErr)
							}
							sides[i].rps = append(sides[i].rps, r.RPS())
							sides[i].goCPU = append(sides[i].goCPU, float64(cpu.Microseconds())/float64(r.N))
							sides[i].pgCPU = append(sides[i].pgCPU, float64(pg.Microseconds())/float64(r.N))
						}
					}
					med := func(v []float64) float64 { v = append([]float64(nil), v...); sort.Float64s(v); return v[len(v)/2] }
					b.ReportMetric(med(sides[0].rps), "folio_req/s")
					b.ReportMetric(med(sides[1].rps), "floor_req/s")
					b.ReportMetric(med(sides[0].rps)/med(sides[1].rps), "folio/floor")
					b.ReportMetric(med(sides[0].goCPU), "folio_go_us/req")
					b.ReportMetric(med(sides[1].goCPU), "floor_go_us/req")
					b.ReportMetric(med(sides[0].pgCPU), "folio_pg_us/req")
					b.ReportMetric(med(sides[1].pgCPU), "floor_pg_us/req")
					b.Logf("%s rounds: folio %v req/s, floor %v req/s", tgt.Name, fmt.Sprint(sides[0].rps), fmt.Sprint(sides[1].rps))
				})
			}
		})
	}
}
