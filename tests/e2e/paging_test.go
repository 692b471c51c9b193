package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"folio/modules/notebooks"
	"folio/platform/auth"
	"folio/platform/ids"
	"folio/tests/apitest"
)

// storedOrder returns the ids of a user's personal notebooks in the order the contract requires,
// (createdAt desc, id desc), computed from the stored rows.
func storedOrder(t testing.TB, s *apitest.Server, ownerID string) []string {
	t.Helper()
	var rows []notebooks.Notebook
	if err := s.DB.Where("owner_id = ? AND workspace_id IS NULL", ownerID).Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	sort.Slice(rows, func(i, j int) bool {
		if !rows[i].CreatedAt.Equal(rows[j].CreatedAt) {
			return rows[i].CreatedAt.After(rows[j].CreatedAt)
		}
		return rows[i].ID > rows[j].ID
	})
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.ID
	}
	return out
}

func wantSameIDs(t testing.TB, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("ids (%d)\n got %v\nwant %v", len(got), got, want)
	}
}

// checkWireOrder asserts that createdAt never increases along a list (the wire form sorts as text).
func checkWireOrder(t testing.TB, items []map[string]any) {
	t.Helper()
	for i := 1; i < len(items); i++ {
		if items[i]["createdAt"].(string) > items[i-1]["createdAt"].(string) {
			t.Fatalf("item %d (createdAt %v) is newer than item %d (%v)", i, items[i]["createdAt"], i-1, items[i-1]["createdAt"])
		}
	}
}

func TestPagination(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		pat := s.NewUser(t, "Pat Pager")
		patKey := s.NewKey(t, pat, auth.ScopeReadWrite)
		const total = 105
		var created []string // in creation order
		for i := range total {
			created = append(created, apitest.Must(t, s.Post(t, patKey, "/notebooks", map[string]any{"name": fmt.Sprintf("nb %03d", i)}), http.StatusCreated).Str(t, "id"))
		}
		order := storedOrder(t, s, pat.ID)
		if len(order) != total {
			t.Fatalf("%d stored notebooks, want %d", len(order), total)
		}
		newestFirst := slices.Clone(created)
		slices.Reverse(newestFirst)

		t.Run("notebooks", func(t *testing.T) {
			t.Run("newest first", func(t *testing.T) {
				wantSameIDs(t, order, newestFirst)
			})
			for _, tc := range []struct {
				query string
				n     int
			}{
				{"", 20},
				{"limit=1", 1},
				{"limit=20", 20},
				{"limit=99", 99},
				{"limit=100", 100},
				{"limit=101", 100},
				{"limit=1000", 100},
				{"limit=99999999999999999999999", 100},
			} {
				t.Run("first page "+tc.query, func(t *testing.T) {
					r := apitest.Must(t, s.Get(t, patKey, withQuery("/notebooks", tc.query)), http.StatusOK)
					data := r.Data(t)
					wantSameIDs(t, itemIDs(data), order[:tc.n])
					checkWireOrder(t, data)
					if next, ok := nextCursor(t, r); !ok || next != order[tc.n-1] {
						t.Fatalf("nextCursor %q, want the last item's id %q", next, order[tc.n-1])
					}
				})
			}
			for _, limit := range []int{1, 7, 20, 21 /* 105 = 5×21: the last page is full */, 100, 104, 105, 1000} {
				t.Run(fmt.Sprintf("walk with limit %d", limit), func(t *testing.T) {
					all := walk(t, s, patKey, "/notebooks", limit)
					wantSameIDs(t, itemIDs(all), order)
					checkWireOrder(t, all)
				})
			}
			t.Run("the last item as cursor gives an empty last page", func(t *testing.T) {
				r := apitest.Must(t, s.Get(t, patKey, "/notebooks?cursor="+order[total-1]), http.StatusOK)
				if string(r.Body) != `{"data":[],"nextCursor":null}` {
					t.Fatalf("body %s", r.Body)
				}
			})
			t.Run("a cursor in the middle", func(t *testing.T) {
				r := apitest.Must(t, s.Get(t, patKey, "/notebooks?limit=5&cursor="+order[49]), http.StatusOK)
				wantSameIDs(t, itemIDs(r.Data(t)), order[50:55])
			})
			t.Run("bad limit", func(t *testing.T) {
				for _, limit := range []string{"0", "-1", "-100", "abc", "1.5", "1e2", "0x10", "ten", "%20"} {
					wantErr(t, s.Get(t, patKey, "/notebooks?limit="+limit), 400, "VALIDATION_ERROR", "limit")
				}
			})
		})

		t.Run("audit log", func(t *testing.T) {
			auditIDs := func(r apitest.Response) (entryIDs, resourceIDs []string) {
				entries, res := auditPage(t, r)
				return itemIDs(entries), res
			}
			t.Run("first pages", func(t *testing.T) {
				for _, tc := range []struct {
					query string
					n     int
				}{{"", 20}, {"limit=1", 1}, {"limit=100", 100}, {"limit=1000", 100}} {
					r := s.Get(t, patKey, withQuery("/audit-log", tc.query))
					entryIDs, res := auditIDs(r)
					wantSameIDs(t, res, newestFirst[:tc.n])
					if next, ok := nextCursor(t, r); !ok || next != entryIDs[tc.n-1] {
						t.Fatalf("%q: nextCursor %q, want %q", tc.query, next, entryIDs[tc.n-1])
					}
				}
			})
			for _, limit := range []int{1, 7, 21, 100, 1000} {
				t.Run(fmt.Sprintf("walk with limit %d", limit), func(t *testing.T) {
					all := walk(t, s, patKey, "/audit-log", limit)
					var res []string
					for _, e := range all {
						res = append(res, e["resourceId"].(string))
					}
					wantSameIDs(t, res, newestFirst)
					entryIDs := itemIDs(all)
					for i := 1; i < len(entryIDs); i++ {
						prev, _ := strconv.Atoi(entryIDs[i-1])
						if cur, _ := strconv.Atoi(entryIDs[i]); cur >= prev || cur <= 0 {
							t.Fatalf("ids not descending: %s after %s", entryIDs[i], entryIDs[i-1])
						}
					}
				})
			}
			t.Run("walk a filtered log", func(t *testing.T) {
				all := walk(t, s, patKey, "/audit-log?resourceType=notebook", 10)
				if len(all) != total {
					t.Fatalf("%d entries, want %d", len(all), total)
				}
				if r := apitest.Must(t, s.Get(t, patKey, "/audit-log?resourceType=note"), http.StatusOK); string(r.Body) != `{"data":[],"nextCursor":null}` {
					t.Fatalf("body %s", r.Body)
				}
			})
			t.Run("the last entry as cursor gives an empty last page", func(t *testing.T) {
				all := walk(t, s, patKey, "/audit-log", 100)
				last := itemIDs(all[len(all)-1:])[0]
				r := apitest.Must(t, s.Get(t, patKey, "/audit-log?cursor="+last), http.StatusOK)
				if string(r.Body) != `{"data":[],"nextCursor":null}` {
					t.Fatalf("body %s", r.Body)
				}
			})
			t.Run("bad limit", func(t *testing.T) {
				for _, limit := range []string{"0", "-1", "abc", "2.0"} {
					wantErr(t, s.Get(t, patKey, "/audit-log?limit="+limit), 400, "VALIDATION_ERROR", "limit")
				}
			})
		})

		t.Run("bad cursors", func(t *testing.T) {
			annEntries, _ := auditPage(t, s.Get(t, w.annRW, "/audit-log"))
			annEntryIDs := itemIDs(annEntries) // [teamNB's entry, annNB's entry]
			carlEntry := itemIDs(apitest.Must(t, s.Get(t, w.carlRW, "/audit-log"), http.StatusOK).Data(t))[0]
			if len(annEntryIDs) != 2 || annEntryIDs[0] == "" || annEntryIDs[1] == "" || carlEntry == "" {
				t.Fatalf("unexpected audit ids %v %q", annEntryIDs, carlEntry)
			}
			for _, tc := range []struct {
				name, key, path, cursor string
			}{
				{"notebooks: unknown id", patKey, "/notebooks", ids.New()},
				{"notebooks: malformed", patKey, "/notebooks", "abc"},
				{"notebooks: numeric", patKey, "/notebooks", "12"},
				{"notebooks: upper-case id", patKey, "/notebooks", strings.ToUpper(order[3])},
				{"notebooks: another user's notebook", patKey, "/notebooks", w.annNB},
				{"notebooks: a workspace id", w.annRW, "/notebooks", w.team},
				{"notebooks: outside a workspace key's workspace", w.annTeam, "/notebooks", w.annNB},
				{"notebooks: outside a notebook key's notebook", w.annTeamNB, "/notebooks", w.annNB},
				{"notebooks: a notebook the member cannot see", w.bobRW, "/notebooks", w.annNB},
				{"workspaces: unknown id", w.annRW, "/workspaces", ids.New()},
				{"workspaces: a notebook id", w.annRW, "/workspaces", w.teamNB},
				{"workspaces: another user's workspace", w.annRW, "/workspaces", w.carlWS},
				{"workspaces: any cursor for a notebook key", w.annTeamNB, "/workspaces", w.team},
				{"audit: unknown id", w.annRW, "/audit-log", "99999999"},
				{"audit: not a number", w.annRW, "/audit-log", "abc"},
				{"audit: a CUID", w.annRW, "/audit-log", ids.New()},
				{"audit: zero", w.annRW, "/audit-log", "0"},
				{"audit: negative", w.annRW, "/audit-log", "-1"},
				{"audit: fraction", w.annRW, "/audit-log", "1.5"},
				{"audit: another user's entry", w.annRW, "/audit-log", carlEntry},
				{"audit: an entry outside a notebook key's notebook", w.annTeamNB, "/audit-log", annEntryIDs[1]},
				{"audit: an entry outside a workspace key's workspace", w.annTeam, "/audit-log", annEntryIDs[1]},
			} {
				t.Run(tc.name, func(t *testing.T) {
					wantErr(t, s.Get(t, tc.key, tc.path+"?cursor="+tc.cursor), 400, "VALIDATION_ERROR", "cursor")
				})
			}
			// The same cursors work for a caller that can reach the item.
			for _, tc := range []struct{ key, path, cursor string }{
				{w.annRW, "/notebooks", w.annNB},
				{w.annTeam, "/notebooks", w.teamNB},
				{w.annTeamNB, "/notebooks", w.teamNB},
				{w.annRW, "/workspaces", w.team},
				{w.annRW, "/audit-log", annEntryIDs[1]},
				{w.annTeamNB, "/audit-log", annEntryIDs[0]},
			} {
				apitest.Must(t, s.Get(t, tc.key, tc.path+"?cursor="+tc.cursor), http.StatusOK)
			}
		})

		t.Run("workspaces", func(t *testing.T) {
			var made []string
			for i := range 5 {
				made = append(made, apitest.Must(t, s.Post(t, patKey, "/workspaces", map[string]any{"name": fmt.Sprintf("ws %d", i)}), http.StatusCreated).Str(t, "id"))
			}
			slices.Reverse(made)
			wantSameIDs(t, itemIDs(walk(t, s, patKey, "/workspaces", 2)), made)
		})

		// Runs last: it adds notebooks and entries.
		t.Run("items created between page requests", func(t *testing.T) {
			for _, list := range []struct {
				path     string
				resource func(item map[string]any) string
			}{
				{"/notebooks", func(it map[string]any) string { return it["id"].(string) }},
				{"/audit-log", func(it map[string]any) string { return it["resourceId"].(string) }},
			} {
				t.Run(list.path, func(t *testing.T) {
					before := storedOrder(t, s, pat.ID)
					var seen []string
					r := apitest.Must(t, s.Get(t, patKey, list.path+"?limit=10"), http.StatusOK)
					for {
						for _, it := range r.Data(t) {
							seen = append(seen, list.resource(it))
						}
						cursor, more := nextCursor(t, r)
						if !more {
							break
						}
						// Two new notebooks between every two pages.
						for range 2 {
							apitest.Must(t, s.Post(t, patKey, "/notebooks", map[string]any{"name": "late"}), http.StatusCreated)
						}
						r = apitest.Must(t, s.Get(t, patKey, list.path+"?limit=10&cursor="+cursor), http.StatusOK)
					}
					// Exactly the items that existed when the walk began, each once, in order.
					wantSameIDs(t, seen, before)
					// A fresh first page starts with the new items.
					after := storedOrder(t, s, pat.ID)
					if len(after) != len(before)+2*(len(before)/10) {
						t.Fatalf("%d notebooks after the walk, %d before", len(after), len(before))
					}
					first := apitest.Must(t, s.Get(t, patKey, list.path+"?limit=3"), http.StatusOK).Data(t)
					for i, it := range first {
						if list.resource(it) != after[i] {
							t.Fatalf("fresh first page %v does not start with the newest items %v", first, after[:3])
						}
					}
				})
			}
		})
	})
}

// TestPaginationTies inserts notebooks with identical createdAt values directly, so that only the
// id tie-break orders them, and pages through them with cursors that fall inside a tie.
func TestPaginationTies(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		tia := s.NewUser(t, "Tia Ties")
		key := s.NewKey(t, tia, auth.ScopeRead)
		at := time.Date(2026, 11, 22, 10, 31, 7, 123456000, time.UTC)
		groups := []struct {
			at time.Time
			n  int
		}{
			{at.Add(time.Second), 3},
			{at, 25},
			{at.Add(-time.Microsecond), 4}, // differs from the tie below the wire's millisecond precision
			{at.Add(-time.Hour), 6},
		}
		var want []string
		for _, g := range groups {
			var groupIDs []string
			for range g.n {
				nb := notebooks.Notebook{ID: ids.New(), Name: "tie", Color: "gray", OwnerID: tia.ID, CreatedAt: g.at, UpdatedAt: g.at}
				if err := s.DB.Create(&nb).Error; err != nil {
					t.Fatal(err)
				}
				groupIDs = append(groupIDs, nb.ID)
			}
			sort.Sort(sort.Reverse(sort.StringSlice(groupIDs)))
			want = append(want, groupIDs...)
		}
		wantSameIDs(t, storedOrder(t, s, tia.ID), want)
		for _, limit := range []int{1, 2, 4, 7, 10, 25, 38, 100} {
			t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
				all := walk(t, s, key, "/notebooks", limit)
				wantSameIDs(t, itemIDs(all), want)
				checkWireOrder(t, all)
			})
		}
		t.Run("a cursor inside the tie", func(t *testing.T) {
			for _, i := range []int{3, 10, 27} { // first, middle and last of the tie group
				r := apitest.Must(t, s.Get(t, key, fmt.Sprintf("/notebooks?limit=5&cursor=%s", want[i])), http.StatusOK)
				wantSameIDs(t, itemIDs(r.Data(t)), want[i+1:i+6])
			}
		})
		t.Run("the tie shows the same createdAt", func(t *testing.T) {
			data := apitest.Must(t, s.Get(t, key, "/notebooks?limit=100"), http.StatusOK).Data(t)
			for _, it := range data[3:28] {
				if it["createdAt"] != "2026-11-22T10:31:07.123Z" {
					t.Fatalf("createdAt %v, want 2026-11-22T10:31:07.123Z", it["createdAt"])
				}
			}
		})
	})
}
