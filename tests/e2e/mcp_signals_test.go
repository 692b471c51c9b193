package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"folio/tests/apitest"
)

// TestMCPCapabilitiesAndCaching: initialize declares only what folio implements (tools and
// resources, no list-changed notifications, no logging), and no result is cacheable publicly
// (CONTRACT.md section 25).
func TestMCPCapabilitiesAndCaching(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key := s.NewKey(t, s.NewUser(t, "Cache Checker"), 3)
		h := map[string]string{"Accept": "application/json, text/event-stream", "Authorization": "Bearer " + key}
		init := s.Do(t, apitest.Request{Method: "POST", Path: "//mcp", Header: h, Body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`})
		var got struct {
			Result struct {
				Capabilities map[string]map[string]any `json:"capabilities"`
			} `json:"result"`
		}
		if err := json.Unmarshal(init.Body, &got); err != nil || init.Status != http.StatusOK {
			t.Fatalf("initialize: %d %s", init.Status, init.Body)
		}
		caps := got.Result.Capabilities
		if _, ok := caps["tools"]; !ok {
			t.Errorf("no tools capability: %s", init.Body)
		}
		if _, ok := caps["resources"]; !ok {
			t.Errorf("no resources capability: %s", init.Body)
		}
		if _, ok := caps["logging"]; ok {
			t.Errorf("logging declared, never sent: %s", init.Body)
		}
		for name, c := range caps {
			if c["listChanged"] != nil {
				t.Errorf("%s declares listChanged, never sent: %s", name, init.Body)
			}
		}
		for _, method := range []string{"tools/list", "resources/templates/list"} {
			r := s.Do(t, apitest.Request{Method: "POST", Path: "//mcp", Header: h, Body: `{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":{}}`})
			if r.Status != http.StatusOK || strings.Contains(string(r.Body), `"cacheScope":"public"`) {
				t.Errorf("%s: %d %s", method, r.Status, r.Body)
			}
		}
	})
}

// TestMCPTextIsTheAPIBody: a tool's text content is the API's JSON body for the same request,
// byte for byte: the fields in the API's order, and a callout's ">" (and "<", "&") as they are,
// never \u003e (CONTRACT.md section 25).
func TestMCPTextIsTheAPIBody(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		c := mcpConnect(t, s, w.annRW)
		content := "Hiring plan for @dana & #team <draft>\n\n> **Decision:** hire two engineers\n\n> **Why:** the roadmap"
		note := apitest.Must(t, s.Post(t, w.annRW, "/notes", map[string]any{"notebookId": w.annNB, "content": content, "targetAt": "2026-12-01"}), http.StatusCreated).Str(t, "id")
		task := apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"notebookId": w.annNB, "title": "Offer <letters> & calls", "notes": "> **Why:** budget"}), http.StatusCreated).Str(t, "id")
		apitest.Must(t, s.Post(t, w.annRW, "/notes/"+note+"/suggest", map[string]any{"content": content + "\n\n> **Decision:** and a designer"}), http.StatusCreated)
		apitest.Must(t, s.Do(t, apitest.Request{Method: "PATCH", Key: w.annRW, Path: "/tasks/" + task, Body: map[string]any{"notes": "> **Why:** budget & time"}}), http.StatusOK)

		same := func(what string, o mcpOutcome, api apitest.Response) {
			t.Helper()
			if o.code != "ok" {
				t.Fatalf("%s: %s %s %v", what, o.code, o.text, o.err)
			}
			api = apitest.Must(t, api, http.StatusOK)
			if o.text != string(api.Body) {
				t.Errorf("%s: the tool's text\n %s\nthe API's body\n %s", what, o.text, api.Body)
			}
			if strings.Contains(o.text, `\u003e`) || strings.Contains(o.text, `\u0026`) || strings.Contains(o.text, `\u003c`) {
				t.Errorf("%s: escaped characters in %s", what, o.text)
			}
		}
		same("get_note", c.call(t, "get_note", map[string]any{"id": note}), s.Get(t, w.annRW, "/notes/"+note))
		same("search_notes", c.call(t, "search_notes", map[string]any{"notebookId": w.annNB}), s.Get(t, w.annRW, "/notes?notebookId="+w.annNB))
		same("list_notebooks", c.call(t, "list_notebooks", map[string]any{}), s.Get(t, w.annRW, "/notebooks"))
		same("get_focus", c.call(t, "get_focus", map[string]any{"date": "2026-12-01"}), s.Get(t, w.annRW, "/focus?date=2026-12-01"))
		same("list_tasks", c.call(t, "list_tasks", map[string]any{"notebookId": w.annNB}), s.Get(t, w.annRW, "/tasks?notebookId="+w.annNB))
		same("list_suggestions", c.call(t, "list_suggestions", map[string]any{}), s.Get(t, w.annRW, "/suggestions"))
		same("get_history", c.call(t, "get_history", map[string]any{"itemKind": "task", "id": task}), s.Get(t, w.annRW, "/tasks/"+task+"/versions"))
		same("update_task", c.call(t, "update_task", map[string]any{"id": task, "priority": "HIGH"}), s.Get(t, w.annRW, "/tasks/"+task))
		created := c.call(t, "create_task", map[string]any{"notebookId": w.annNB, "title": "Ask <legal> & HR", "notes": "> **Decision:** yes"})
		same("create_task", created, s.Get(t, w.annRW, "/tasks/"+created.out.(map[string]any)["id"].(string)))
	})
}

// TestMCPSchemasNullOnlyWhereNull: a tool's schemas allow null only where the API sends (or, for
// update_task's dates, takes) null: a date, a cursor, a workspace, a version's key, a pending
// suggestion; a list is never null. And no schema has a type array: a nullable field is
// anyOf null and its type (CONTRACT.md section 25: the unions trip strict schema checkers, such
// as the MCP inspector's --strict, and clients that map schemas onto a one-type dialect).
func TestMCPSchemasNullOnlyWhereNull(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key := s.NewKey(t, s.NewUser(t, "Schema Reader"), 3)
		h := map[string]string{"Accept": "application/json, text/event-stream", "Authorization": "Bearer " + key}
		r := s.Do(t, apitest.Request{Method: "POST", Path: "//mcp", Header: h, Body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`})
		var list struct {
			Result struct {
				Tools []struct {
					Name         string         `json:"name"`
					InputSchema  map[string]any `json:"inputSchema"`
					OutputSchema map[string]any `json:"outputSchema"`
				} `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal(r.Body, &list); err != nil || len(list.Result.Tools) != 13 {
			t.Fatalf("tools/list: %d %.300s", r.Status, r.Body)
		}
		nullable := map[string]bool{"targetAt": true, "followUpAt": true, "dueAt": true, "nextCursor": true,
			"workspaceId": true, "apiKeyName": true, "apiKeyPrefix": true, "pendingSuggestion": true}
		var walk func(tool, path string, s map[string]any)
		walk = func(tool, path string, s map[string]any) {
			if types, ok := s["type"].([]any); ok {
				t.Errorf("%s: %s has a type array %v (write a nullable field as anyOf)", tool, path, types)
			}
			branches, _ := s["anyOf"].([]any)
			for _, b := range branches {
				if b.(map[string]any)["type"] == "null" && !nullable[path[strings.LastIndex(path, ".")+1:]] {
					t.Errorf("%s: %s may be null, but the API never sends null there", tool, path)
				}
				walk(tool, path, b.(map[string]any))
			}
			if props, ok := s["properties"].(map[string]any); ok {
				for name, p := range props {
					walk(tool, path+"."+name, p.(map[string]any))
				}
			}
			if items, ok := s["items"].(map[string]any); ok {
				walk(tool, path+"[]", items)
			}
		}
		for _, tool := range list.Result.Tools {
			walk(tool.Name, "input", tool.InputSchema)
			walk(tool.Name, "output", tool.OutputSchema)
		}
	})
}
