package e2e

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"folio/tests/apitest"
)

// mcpSearchIDs walks search_notes page by page (limit 2), as searchIDs walks GET /notes, and
// returns the ids in order.
func mcpSearchIDs(t *testing.T, c *mcpConn, args map[string]any) []string {
	t.Helper()
	args = maps.Clone(args)
	args["limit"] = 2
	var out []string
	for range 100 {
		page := c.mustCall(t, "search_notes", args)
		for _, it := range page["data"].([]any) {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		next, _ := page["nextCursor"].(string)
		if next == "" {
			return out
		}
		args["cursor"] = next
	}
	t.Fatal("more than 100 pages")
	return nil
}

// TestMCPSearchMatchesAPI: MCP's search_notes and GET /notes give the same notes in the same
// order for the same q, tag and person, page after page: one leading # then one @ is dropped from
// both tag and person (tag=#x and tag=@x are tag=x, person=@y and person=#y are person=y), and an
// over-long name is the same refusal. Both call notes' one Search; MCP once stripped only # from a
// tag and @ from a person, so the crossed forms found nothing there and everything over the API.
func TestMCPSearchMatchesAPI(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		kickoff := createNote(t, s, w.annRW, w.annNB, "Kickoff with @yara about #xray numbers")["id"].(string)
		budget := createNote(t, s, w.annRW, w.annNB, "#xray budget review, the numbers")["id"].(string)
		lunch := createNote(t, s, w.annRW, w.annNB, "Lunch with @yara")["id"].(string)
		roadmap := createNote(t, s, w.annRW, w.teamNB, "#xray and @yara: the roadmap numbers")["id"].(string)
		createNote(t, s, w.annRW, w.teamNB, "unrelated #other numbers")
		plan := createNote(t, s, w.annRW, w.teamNB, "Team #xray plan with @yara")["id"].(string)
		createNote(t, s, w.carlRW, w.carlNB, "Carl's own #xray with @yara numbers") // out of Ann's reach
		c := mcpConnect(t, s, w.annRW)

		for _, tc := range []struct {
			name string
			args map[string]any // search_notes' arguments, and GET /notes' query parameters
			want []string
		}{
			{"tag with #", map[string]any{"tag": "#xray"}, []string{plan, roadmap, budget, kickoff}},
			{"tag with @", map[string]any{"tag": "@xray"}, []string{plan, roadmap, budget, kickoff}},
			{"tag with #@", map[string]any{"tag": "#@xray"}, []string{plan, roadmap, budget, kickoff}},
			{"bare tag", map[string]any{"tag": "XRAY"}, []string{plan, roadmap, budget, kickoff}},
			{"person with @", map[string]any{"person": "@yara"}, []string{plan, roadmap, lunch, kickoff}},
			{"person with #", map[string]any{"person": "#yara"}, []string{plan, roadmap, lunch, kickoff}},
			{"tag # and person @", map[string]any{"tag": "#xray", "person": "@yara"}, []string{plan, roadmap, kickoff}},
			{"tag @ and person #", map[string]any{"tag": "@xray", "person": "#yara"}, []string{plan, roadmap, kickoff}},
			{"q, tag # and person @", map[string]any{"q": "numbers", "tag": "#xray", "person": "@yara"}, []string{roadmap, kickoff}},
			{"q, tag @ and person #", map[string]any{"q": "numbers", "tag": "@xray", "person": "#yara"}, []string{roadmap, kickoff}},
			{"q and tag @ in a notebook", map[string]any{"q": "numbers", "tag": "@xray", "notebookId": w.annNB}, []string{budget, kickoff}},
			{"q alone", map[string]any{"q": "numbers"}, nil}, // every note with the word: checked against the API only
			{"q and person #", map[string]any{"q": "roadmap", "person": "#yara"}, []string{roadmap}},
		} {
			query := url.Values{}
			for k, v := range tc.args {
				query.Set(k, v.(string))
			}
			api := searchIDs(t, s, w.annRW, "/notes", query)
			got := mcpSearchIDs(t, c, tc.args)
			if !slices.Equal(got, api) {
				t.Errorf("%s: search_notes %v, GET /notes?%s %v", tc.name, got, query.Encode(), api)
			}
			if tc.want != nil && !slices.Equal(api, tc.want) {
				t.Errorf("%s: GET /notes?%s %v, want %v", tc.name, query.Encode(), api, tc.want)
			}
			if len(api) == 0 {
				t.Errorf("%s: nothing found, which proves nothing", tc.name)
			}
			// The first page is the API's body, field for field.
			sameAsAPI(t, "search_notes "+tc.name, c.mustCall(t, "search_notes", tc.args), s.Get(t, w.annRW, "/notes?"+query.Encode()))
		}

		// A name over 200 characters once it has lost its # or @ is the API's refusal, message
		// and all.
		for _, args := range []map[string]any{{"tag": "#" + strings.Repeat("x", 201)}, {"person": "#" + strings.Repeat("y", 201)}} {
			query := url.Values{}
			for k, v := range args {
				query.Set(k, v.(string))
			}
			api := s.Get(t, w.annRW, "/notes?"+query.Encode())
			wantErr(t, api, http.StatusBadRequest, "VALIDATION_ERROR")
			o := c.call(t, "search_notes", args)
			var env struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			_ = json.Unmarshal([]byte(o.text), &env)
			want := api.JSON(t)["error"].(map[string]any)
			if env.Error.Code != want["code"] || env.Error.Message != want["message"] {
				t.Errorf("search_notes %s: the tool answered %s %s, the API %s", query.Encode(), o.code, o.text, api.Body)
			}
		}
	})
}
