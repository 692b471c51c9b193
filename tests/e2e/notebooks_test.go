package e2e

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"folio/platform/auth"
	"folio/platform/ids"
	"folio/tests/apitest"
)

var notebookFields = []string{"id", "name", "color", "workspaceId", "createdAt", "updatedAt"}

// checkNotebook asserts the shape of a notebook as the API shows it.
func checkNotebook(t testing.TB, nb map[string]any, name, color string, workspaceID *string) {
	t.Helper()
	wantFields(t, nb, notebookFields...)
	if id, _ := nb["id"].(string); !ids.Valid(id) {
		t.Fatalf("id %#v is not a CUID2", nb["id"])
	}
	if nb["name"] != name {
		t.Fatalf("name %#v, want %q", nb["name"], name)
	}
	if nb["color"] != color {
		t.Fatalf("color %#v, want %q", nb["color"], color)
	}
	if workspaceID == nil {
		if nb["workspaceId"] != nil {
			t.Fatalf("workspaceId %#v, want null", nb["workspaceId"])
		}
	} else if nb["workspaceId"] != *workspaceID {
		t.Fatalf("workspaceId %#v, want %q", nb["workspaceId"], *workspaceID)
	}
	for _, f := range []string{"createdAt", "updatedAt"} {
		if v, _ := nb[f].(string); !wireTimeRE.MatchString(v) {
			t.Fatalf("%s %#v is not of the form 2026-11-22T10:31:07.000Z", f, nb[f])
		}
	}
	if nb["createdAt"] != nb["updatedAt"] {
		t.Fatalf("a new notebook's updatedAt %v differs from its createdAt %v", nb["updatedAt"], nb["createdAt"])
	}
}

func TestCreateNotebook(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		team := w.team
		for _, tc := range []struct {
			name      string
			key       string
			body      map[string]any
			wantName  string
			wantColor string
			wantWS    *string
		}{
			{"personal, default colour", w.annRW, map[string]any{"name": "Ideas"}, "Ideas", "gray", nil},
			{"personal with explicit null workspaceId", w.annRW, map[string]any{"name": "Ideas", "workspaceId": nil}, "Ideas", "gray", nil},
			{"in a workspace", w.annRW, map[string]any{"name": "Plans", "workspaceId": team}, "Plans", "gray", &team},
			{"by a member in the workspace", w.bobRW, map[string]any{"name": "Bob's plans", "workspaceId": team, "color": "teal"}, "Bob's plans", "teal", &team},
			{"workspace key without workspaceId creates in its workspace", w.annTeam, map[string]any{"name": "Via team key"}, "Via team key", "gray", &team},
			{"workspace key naming its workspace", w.annTeam, map[string]any{"name": "Via team key", "workspaceId": team}, "Via team key", "gray", &team},
			{"write-only key", w.annWrite, map[string]any{"name": "Write only", "color": "red"}, "Write only", "red", nil},
			{"name of 40 ASCII characters", w.annRW, map[string]any{"name": strings.Repeat("n", 40)}, strings.Repeat("n", 40), "gray", nil},
			{"name of 40 two-byte letters", w.annRW, map[string]any{"name": strings.Repeat("é", 40)}, strings.Repeat("é", 40), "gray", nil},
			{"name of 40 three-byte letters", w.annRW, map[string]any{"name": strings.Repeat("日", 40)}, strings.Repeat("日", 40), "gray", nil},
			{"name of 40 four-byte characters", w.annRW, map[string]any{"name": strings.Repeat("😀", 40)}, strings.Repeat("😀", 40), "gray", nil},
			{"name of one character", w.annRW, map[string]any{"name": "x"}, "x", "gray", nil},
			{"name with inner spaces and punctuation", w.annRW, map[string]any{"name": "Q3 — roadmap & \"ideas\""}, "Q3 — roadmap & \"ideas\"", "gray", nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := apitest.Must(t, s.Post(t, tc.key, "/notebooks", tc.body), http.StatusCreated)
				nb := r.JSON(t)
				checkNotebook(t, nb, tc.wantName, tc.wantColor, tc.wantWS)
				if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
					t.Fatalf("Content-Type %q", r.Header.Get("Content-Type"))
				}
				// Reading it back shows exactly what the create returned, and the list shows it.
				reader := tc.key
				if reader == w.annWrite {
					reader = w.annRW
				}
				got := apitest.Must(t, s.Get(t, reader, "/notebooks/"+nb["id"].(string)), http.StatusOK).JSON(t)
				if !reflect.DeepEqual(got, nb) {
					t.Fatalf("GET returns %v, create returned %v", got, nb)
				}
				if !containsID(listIDs(t, s, reader, "/notebooks?limit=100"), nb["id"].(string)) {
					t.Fatalf("the new notebook is not in the list")
				}
			})
		}

		t.Run("every colour", func(t *testing.T) {
			for _, color := range []string{"gray", "red", "orange", "yellow", "green", "teal", "blue", "purple", "pink", "brown"} {
				r := apitest.Must(t, s.Post(t, w.annRW, "/notebooks", map[string]any{"name": "c", "color": color}), http.StatusCreated)
				checkNotebook(t, r.JSON(t), "c", color, nil)
			}
		})

		t.Run("rejected", func(t *testing.T) {
			unknownWS := ids.New()
			for _, tc := range []struct {
				name    string
				key     string
				body    map[string]any
				status  int
				code    string
				mention string
			}{
				{"name of 41 ASCII characters", w.annRW, map[string]any{"name": strings.Repeat("n", 41)}, 400, "VALIDATION_ERROR", `"name"`},
				{"name of 41 two-byte letters", w.annRW, map[string]any{"name": strings.Repeat("é", 41)}, 400, "VALIDATION_ERROR", `"name"`},
				{"name of 41 three-byte letters", w.annRW, map[string]any{"name": strings.Repeat("日", 41)}, 400, "VALIDATION_ERROR", `"name"`},
				{"name of 41 four-byte characters", w.annRW, map[string]any{"name": strings.Repeat("😀", 41)}, 400, "VALIDATION_ERROR", `"name"`},
				{"empty name", w.annRW, map[string]any{"name": ""}, 400, "VALIDATION_ERROR", `"name"`},
				{"blank name", w.annRW, map[string]any{"name": "   "}, 400, "VALIDATION_ERROR", `"name"`},
				{"whitespace name", w.annRW, map[string]any{"name": "\t\n "}, 400, "VALIDATION_ERROR", `"name"`},
				{"missing name", w.annRW, map[string]any{"color": "red"}, 400, "MISSING_FIELD", `"name"`},
				{"null name", w.annRW, map[string]any{"name": nil}, 400, "MISSING_FIELD", `"name"`},
				{"unknown colour", w.annRW, map[string]any{"name": "x", "color": "black"}, 400, "VALIDATION_ERROR", `"color"`},
				{"colour in upper case", w.annRW, map[string]any{"name": "x", "color": "Red"}, 400, "VALIDATION_ERROR", `"color"`},
				{"British grey", w.annRW, map[string]any{"name": "x", "color": "grey"}, 400, "VALIDATION_ERROR", `"color"`},
				{"colour with a space", w.annRW, map[string]any{"name": "x", "color": " red"}, 400, "VALIDATION_ERROR", `"color"`},
				{"hex colour", w.annRW, map[string]any{"name": "x", "color": "#ff0000"}, 400, "VALIDATION_ERROR", `"color"`},
				{"colour of the wrong type", w.annRW, map[string]any{"name": "x", "color": 3}, 400, "VALIDATION_ERROR", `"color"`},
				{"bad name is reported before an unknown workspace", w.annRW, map[string]any{"name": "", "workspaceId": unknownWS}, 400, "VALIDATION_ERROR", `"name"`},
				{"unknown well-formed workspaceId", w.annRW, map[string]any{"name": "x", "workspaceId": unknownWS}, 404, "WORKSPACE_NOT_FOUND", ""},
				{"malformed workspaceId", w.annRW, map[string]any{"name": "x", "workspaceId": "not-an-id"}, 404, "WORKSPACE_NOT_FOUND", ""},
				{"upper-case workspaceId", w.annRW, map[string]any{"name": "x", "workspaceId": strings.ToUpper(w.team)}, 404, "WORKSPACE_NOT_FOUND", ""},
				{"empty workspaceId", w.annRW, map[string]any{"name": "x", "workspaceId": ""}, 404, "WORKSPACE_NOT_FOUND", ""},
				{"a notebook id as workspaceId", w.annRW, map[string]any{"name": "x", "workspaceId": w.annNB}, 404, "WORKSPACE_NOT_FOUND", ""},
				{"workspaceId of the wrong type", w.annRW, map[string]any{"name": "x", "workspaceId": 12}, 400, "VALIDATION_ERROR", `"workspaceId"`},
				{"a workspace the user is not in", w.annRW, map[string]any{"name": "x", "workspaceId": w.carlWS}, 403, "NOT_WORKSPACE_MEMBER", ""},
				{"workspace key asking for a personal notebook", w.annTeam, map[string]any{"name": "x", "workspaceId": nil}, 403, "KEY_WORKSPACE_MISMATCH", ""},
				{"notebook key", w.annTeamNB, map[string]any{"name": "x"}, 403, "INSUFFICIENT_SCOPE", ""},
				{"read-only key", w.annRead, map[string]any{"name": "x"}, 403, "INSUFFICIENT_SCOPE", ""},
			} {
				t.Run(tc.name, func(t *testing.T) {
					before := listIDs(t, s, w.annRW, "/notebooks?limit=100")
					mentions := []string{}
					if tc.mention != "" {
						mentions = append(mentions, tc.mention)
					}
					wantErr(t, s.Post(t, tc.key, "/notebooks", tc.body), tc.status, tc.code, mentions...)
					if after := listIDs(t, s, w.annRW, "/notebooks?limit=100"); len(after) != len(before) {
						t.Fatalf("a rejected create changed the list: %d notebooks, then %d", len(before), len(after))
					}
				})
			}
		})

		t.Run("notebook.create is in the audit log", func(t *testing.T) {
			id := apitest.Must(t, s.Post(t, w.annRW, "/notebooks", map[string]any{"name": "Audited"}), http.StatusCreated).Str(t, "id")
			entries := apitest.Must(t, s.Get(t, w.annRW, "/audit-log"), http.StatusOK).Data(t)
			if len(entries) == 0 {
				t.Fatal("empty audit log")
			}
			e := entries[0]
			if e["action"] != "notebook.create" || e["resourceType"] != "notebook" || e["resourceId"] != id {
				t.Fatalf("newest entry %v, want notebook.create of %s", e, id)
			}
		})
	})
}

func TestGetNotebook(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		t.Run("found", func(t *testing.T) {
			for _, tc := range []struct {
				name, key, id, wantName string
				wantWS                  *string
			}{
				{"own personal notebook", w.annRW, w.annNB, "Ann personal", nil},
				{"workspace notebook by its owner", w.annRW, w.teamNB, "Team Notes", &w.team},
				{"workspace notebook by a member", w.bobRW, w.teamNB, "Team Notes", &w.team},
				{"by a workspace key", w.annTeam, w.teamNB, "Team Notes", &w.team},
				{"by its notebook key", w.annTeamNB, w.teamNB, "Team Notes", &w.team},
				{"by a read-only key", w.annRead, w.annNB, "Ann personal", nil},
			} {
				t.Run(tc.name, func(t *testing.T) {
					checkNotebook(t, apitest.Must(t, s.Get(t, tc.key, "/notebooks/"+tc.id), http.StatusOK).JSON(t), tc.wantName, "gray", tc.wantWS)
				})
			}
		})
		t.Run("not found", func(t *testing.T) {
			for _, tc := range []struct{ name, key, id string }{
				{"unknown well-formed id", w.annRW, ids.New()},
				{"malformed id", w.annRW, "not-an-id"},
				{"numeric id", w.annRW, "12345"},
				{"upper-case id", w.annRW, strings.ToUpper(w.annNB)},
				{"id with one character too many", w.annRW, w.annNB + "a"},
				{"id one character short", w.annRW, w.annNB[:23]},
				{"very long id", w.annRW, strings.Repeat("a", 2000)},
				{"SQL in the id", w.annRW, url.PathEscape("' OR '1'='1")},
				{"percent-encoded junk", w.annRW, "%00%ff"},
				{"a workspace id", w.annRW, w.team},
				{"someone else's personal notebook", w.annRW, w.carlNB},
				{"the owner's personal notebook, by a member", w.bobRW, w.annNB},
				{"another workspace's notebook", w.bobRW, w.carlNB},
			} {
				t.Run(tc.name, func(t *testing.T) {
					wantErr(t, s.Get(t, tc.key, "/notebooks/"+tc.id), 404, "NOTEBOOK_NOT_FOUND")
				})
			}
		})
		t.Run("a notebook key naming another notebook", func(t *testing.T) {
			// A notebook-scoped key naming another notebook is a mismatch, not a 404 (CONTRACT.md 6).
			wantErr(t, s.Get(t, w.annTeamNB, "/notebooks/"+w.annNB), 403, "KEY_NOTEBOOK_MISMATCH")
			wantErr(t, s.Get(t, w.annTeamNB, "/notebooks/"+ids.New()), 403, "KEY_NOTEBOOK_MISMATCH")
		})
		t.Run("write-only key cannot read", func(t *testing.T) {
			wantErr(t, s.Get(t, s.NewKey(t, w.ann, auth.ScopeWrite), "/notebooks/"+w.annNB), 403, "INSUFFICIENT_SCOPE")
		})
	})
}

func containsID(list []string, id string) bool {
	for _, x := range list {
		if x == id {
			return true
		}
	}
	return false
}
