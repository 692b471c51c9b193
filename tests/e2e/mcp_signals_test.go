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
