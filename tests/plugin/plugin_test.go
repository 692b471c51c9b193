// Package plugin_test plugs a module that lives only here (package comments) into the real app
// with one fx option, the one line a module adds to app/app.go, and checks that it brings
// everything a module owns without an edit anywhere else: its routes and OpenAPI part (served and
// checked against every exchange), its migration, its audit resource type, its event type (in
// the feed's filter and the document's EventType enum), its error code, and the floor rule.
package plugin_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"folio/tests/apitest"
	"folio/tests/floors"
	"folio/tests/plugin/comments"
)

func TestPluggedModule(t *testing.T) {
	found, err := floors.ModuleViolations("../..", "tests/plugin/comments")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range found {
		t.Errorf("the plugged module breaks the floor rule: %s", v)
	}
	apitest.EachDB(t, func(t *testing.T, kind string) {
		s := apitest.StartWith(t, apitest.Config(t, kind), comments.Module)
		ann := s.NewUser(t, "Ann Plug")
		key := s.NewKey(t, ann, 3)
		bob := s.NewKey(t, s.NewUser(t, "Bob Plug"), 3)

		// Migration: the module's table exists.
		if !s.DB.Migrator().HasTable("comments") {
			t.Fatal("the module's migration did not run: no comments table")
		}

		// Routes, with the access rule and the module's error code.
		nb := apitest.Must(t, s.Post(t, key, "/notebooks", map[string]any{"name": "Plug"}), http.StatusCreated).Str(t, "id")
		created := apitest.Must(t, s.Post(t, key, "/comments", map[string]any{"notebookId": nb, "body": "Looks good"}), http.StatusCreated)
		id := created.Str(t, "id")
		if got := apitest.Must(t, s.Get(t, key, "/comments/"+id), http.StatusOK).Str(t, "body"); got != "Looks good" {
			t.Errorf("GET /comments/:id body = %q", got)
		}
		apitest.CheckEnvelope(t, s.Get(t, bob, "/comments/"+id), http.StatusNotFound, "COMMENT_NOT_FOUND")
		apitest.CheckEnvelope(t, s.Post(t, bob, "/comments", map[string]any{"notebookId": nb, "body": "x"}), http.StatusNotFound, "NOTEBOOK_NOT_FOUND")

		// Audit: the declared resource type is a filter value, and the entry is there.
		audit := apitest.Must(t, s.Get(t, key, "/audit-log?resourceType=comment"), http.StatusOK).Data(t)
		if len(audit) != 1 || audit[0]["action"] != "comment.create" || audit[0]["resourceId"] != id {
			t.Errorf("audit entries for comments: %v", audit)
		}

		// Events: the declared type is a filter value, and the event carries the comment.
		var events []map[string]any
		for deadline := time.Now().Add(10 * time.Second); len(events) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			events = apitest.Must(t, s.Get(t, key, "/events?types=comment.created"), http.StatusOK).Data(t)
		}
		if len(events) != 1 {
			t.Fatalf("comment.created events: %v", events)
		}
		if data, _ := events[0]["data"].(map[string]any); data["id"] != id || data["body"] != "Looks good" {
			t.Errorf("the event's data is not the comment: %v", events[0])
		}
		if got := apitest.Must(t, s.Get(t, bob, "/events?types=comment.created"), http.StatusOK).Data(t); len(got) != 0 {
			t.Errorf("another user sees the event: %v", got)
		}

		// OpenAPI: the part is served, the error code has its response, the event type is in the enum.
		doc := apitest.Must(t, s.Get(t, "", "/openapi.json"), http.StatusOK)
		var d struct {
			Paths      map[string]map[string]json.RawMessage `json:"paths"`
			Components struct {
				Schemas map[string]struct {
					Enum []string `json:"enum"`
				} `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(doc.Body, &d); err != nil {
			t.Fatal(err)
		}
		if _, ok := d.Paths["/comments"]["post"]; !ok {
			t.Error("the document has no POST /comments")
		}
		var get struct {
			Responses map[string]json.RawMessage `json:"responses"`
		}
		_ = json.Unmarshal(d.Paths["/comments/{id}"]["get"], &get)
		if !strings.Contains(string(get.Responses["404"]), "COMMENT_NOT_FOUND") {
			t.Errorf("GET /comments/{id} does not document COMMENT_NOT_FOUND: %s", get.Responses)
		}
		if !slices.Contains(d.Components.Schemas["EventType"].Enum, "comment.created") {
			t.Errorf("EventType enum lacks comment.created: %v", d.Components.Schemas["EventType"].Enum)
		}
	})
}
