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
	"folio/platform/clock"
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
	t.Parallel()
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
	t.Parallel()
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

// TestContentPaging: limit and cursor on GET /notes and GET /tasks. Pages walk the list newest
// first without gaps; a cursor naming an item deleted or archived since still works; a cursor
// naming no item of this list for this caller (unknown, malformed, another user's, another kind's,
// outside a notebook key's notebook) is 400 naming "cursor"; archived=true lists only archived
// items.
func TestContentPaging(t *testing.T) {
	t.Parallel()
	apitest.ForEachDBWithClock(t, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		w := newWorld(t, s)
		type fixture struct {
			ids            []string // Ann's personal items, oldest first
			team, carlItem string
		}
		items := map[string]*fixture{}
		for _, kind := range []string{"note", "task"} {
			f := &fixture{}
			for i := 0; i < 7; i++ {
				fake.Advance(time.Millisecond)
				f.ids = append(f.ids, newContent(t, s, w.annRW, kind, w.annNB, "item "+strconv.Itoa(i)))
			}
			fake.Advance(time.Millisecond)
			f.team = newContent(t, s, w.annRW, kind, w.teamNB, "team item")
			f.carlItem = newContent(t, s, w.carlRW, kind, w.carlNB, "Carl's item")
			items[kind] = f
		}
		for _, kind := range []string{"note", "task"} {
			t.Run(kind, func(t *testing.T) {
				base := "/" + kind + "s"
				ids, teamItem, carlItem := items[kind].ids, items[kind].team, items[kind].carlItem
				otherKind := items[map[string]string{"note": "task", "task": "note"}[kind]].ids[3]
				rev := func(list []string) []string {
					out := slices.Clone(list)
					slices.Reverse(out)
					return out
				}
				all := append([]string{teamItem}, rev(ids)...)

				// Full walks with several page sizes.
				for _, limit := range []int{1, 2, 3, 8, 100, 1000} {
					if got := itemIDs(walk(t, s, w.annRW, base, limit)); !slices.Equal(got, all) {
						t.Fatalf("walk with limit %d: %v, want %v", limit, got, all)
					}
				}
				if got := listIDs(t, s, w.annRW, base); !slices.Equal(got, all) {
					t.Fatalf("default page: %v", got)
				}
				page := func(key, query string) []string { return listIDs(t, s, key, base+"?"+query) }

				// A cursor naming an item deleted or archived since keeps its place.
				apitest.Must(t, s.Delete(t, w.annRW, base+"/"+ids[4]), http.StatusOK)
				apitest.Must(t, patch(t, s, w.annRW, base+"/"+ids[2], map[string]any{"archived": true}), http.StatusOK)
				if got, want := page(w.annRW, "cursor="+ids[4]), []string{ids[3], ids[1], ids[0]}; !slices.Equal(got, want) {
					t.Fatalf("after the deleted cursor item: %v, want %v", got, want)
				}
				if got, want := page(w.annRW, "limit=1&cursor="+ids[2]), []string{ids[1]}; !slices.Equal(got, want) {
					t.Fatalf("after the archived cursor item: %v, want %v", got, want)
				}
				// The same cursor with a notebook filter, and the filter's own items only.
				if got, want := page(w.annRW, "notebookId="+w.annNB+"&cursor="+teamItem), []string{ids[6], ids[5], ids[3], ids[1], ids[0]}; !slices.Equal(got, want) {
					t.Fatalf("filtered list after a cursor of another visible notebook: %v, want %v", got, want)
				}
				// archived=true lists only archived items, archived=false only live ones.
				if got := page(w.annRW, "archived=true"); !slices.Equal(got, []string{ids[2]}) {
					t.Fatalf("archived=true: %v", got)
				}
				if got := page(w.annRW, "archived=false"); slices.Contains(got, ids[2]) || slices.Contains(got, ids[4]) || len(got) != 6 {
					t.Fatalf("archived=false: %v", got)
				}
				// The last page ends with nextCursor null.
				r := apitest.Must(t, s.Get(t, w.annRW, base+"?cursor="+ids[1]), http.StatusOK)
				if next, more := nextCursor(t, r); more || !slices.Equal(itemIDs(r.Data(t)), []string{ids[0]}) {
					t.Fatalf("last page: %s (next %q)", r.Body, next)
				}
				// A cursor at the very last item: an empty page, not an error.
				if got := page(w.annRW, "cursor="+ids[0]); len(got) != 0 {
					t.Fatalf("after the oldest item: %v", got)
				}

				for _, tc := range []struct {
					name, key, query string
				}{
					{"unknown id", w.annRW, "cursor=zzzzzzzzzzzzzzzzzzzzzzzz"},
					{"malformed", w.annRW, "cursor=not-an-id"},
					{"another user's item", w.annRW, "cursor=" + carlItem},
					{"an item of the other kind", w.annRW, "cursor=" + otherKind},
					{"an item outside the notebook key's notebook", w.annPersonalNB, "cursor=" + teamItem},
					{"an item outside the workspace key's workspace", w.annTeam, "cursor=" + ids[3]},
					{"a personal item for a member", w.bobRW, "cursor=" + ids[3]},
					{"a NUL", w.annRW, "cursor=%00"},
				} {
					wantErr(t, s.Get(t, tc.key, base+"?"+tc.query), http.StatusBadRequest, "VALIDATION_ERROR", "cursor")
				}
				for _, q := range []string{"limit=0", "limit=-1", "limit=abc", "limit=1.5", "limit=", "limit=%00", "limit=1e2"} {
					wantErr(t, s.Get(t, w.annRW, base+"?"+q), http.StatusBadRequest, "VALIDATION_ERROR", "limit")
				}
				for _, q := range []string{"archived=TRUE", "archived=1", "archived=yes", "archived="} {
					wantErr(t, s.Get(t, w.annRW, base+"?"+q), http.StatusBadRequest, "VALIDATION_ERROR", "archived")
				}
				// An empty cursor is no cursor.
				if got := page(w.annRW, "cursor="); len(got) != 6 {
					t.Fatalf("cursor= : %v", got)
				}
			})
		}
		// Tasks: status and archived filters combine.
		a := newContent(t, s, w.annRW, "task", w.annNB, "blocked and archived")
		apitest.Must(t, patch(t, s, w.annRW, "/tasks/"+a, map[string]any{"status": "BLOCKED", "archived": true}), http.StatusOK)
		b := newContent(t, s, w.annRW, "task", w.annNB, "blocked")
		apitest.Must(t, patch(t, s, w.annRW, "/tasks/"+b, map[string]any{"status": "BLOCKED"}), http.StatusOK)
		for query, want := range map[string][]string{
			"status=BLOCKED":                        {b},
			"status=BLOCKED&archived=true":          {a},
			"status=DONE&archived=true":             nil,
			"status=BLOCKED&notebookId=" + w.teamNB: nil,
		} {
			if got := listIDs(t, s, w.annRW, "/tasks?"+query); !slices.Equal(got, want) && len(got)+len(want) > 0 {
				t.Errorf("GET /tasks?%s: %v, want %v", query, got, want)
			}
		}
		for _, q := range []string{"status=done", "status=", "status=Blocked", "status=%00"} {
			wantErr(t, s.Get(t, w.annRW, "/tasks?"+q), http.StatusBadRequest, "VALIDATION_ERROR", "status")
		}
	})
}

// TestNotePagingUnderChange walks GET /notes page by page while other requests create, archive
// and delete notes between the pages: no note is returned twice, and every note that nobody
// touched is returned (a cursor naming a note archived or deleted since keeps working).
func TestNotePagingUnderChange(t *testing.T) {
	t.Parallel()
	apitest.ForEachDBWithClock(t, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), func(t *testing.T, s *apitest.Server, fake *clock.Fake) {
		ann := s.NewUser(t, "Ann Pager")
		key := s.NewKey(t, ann, auth.ScopeReadWrite)
		nb := apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "paging"}), http.StatusCreated).Str(t, "id")
		var all []string
		for i := 0; i < 60; i++ {
			// Some notes share a createdAt: the id breaks the tie.
			if i%3 == 0 {
				fake.Advance(time.Millisecond)
			}
			all = append(all, createNote(t, s, key, nb, fmt.Sprintf("note %d #n%d", i, i))["id"].(string))
		}
		touched := map[string]bool{}
		seen := map[string]int{}
		cursor := ""
		for page := 0; ; page++ {
			path := "/notes?limit=7"
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			r := apitest.Must(t, s.Get(t, key, path), http.StatusOK)
			data := r.Data(t)
			for _, n := range data {
				seen[n["id"].(string)]++
			}
			// Between pages: delete the cursor note itself, archive an older one, create a new one.
			if len(data) > 0 {
				last := data[len(data)-1]["id"].(string)
				apitest.Must(t, s.Delete(t, key, "/notes/"+last), http.StatusOK)
				touched[last] = true
			}
			if older := all[max(0, 50-page*7)]; !touched[older] {
				apitest.Must(t, patch(t, s, key, "/notes/"+older, map[string]any{"archived": true}), http.StatusOK)
				touched[older] = true
			}
			fake.Advance(time.Millisecond)
			touched[createNote(t, s, key, nb, "new during paging")["id"].(string)] = true
			next, _ := r.JSON(t)["nextCursor"].(string)
			if next == "" {
				break
			}
			cursor = next
		}
		for id, n := range seen {
			if n > 1 {
				t.Errorf("note %s returned %d times", id, n)
			}
		}
		for _, id := range all {
			if !touched[id] && seen[id] != 1 {
				t.Errorf("untouched note %s skipped", id)
			}
		}
	})
}
