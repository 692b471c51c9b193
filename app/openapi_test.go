package app_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"go.uber.org/fx"

	"folio/app"
	"folio/platform/apidoc"
	"folio/platform/config"
	"folio/platform/httpx"
)

// engineAndDocument builds the real graph (on a throwaway SQLite file; nothing is started) and
// returns its gin engine and its OpenAPI document.
func engineAndDocument(t *testing.T) (*gin.Engine, map[string]any) {
	t.Helper()
	c := config.Default()
	c.SQLitePath = filepath.Join(t.TempDir(), "folio.db")
	c.LogLevel = "error"
	var engine *gin.Engine
	var doc *apidoc.Document
	a := app.New(fx.Replace(c), fx.Populate(&engine, &doc))
	if err := a.Err(); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(doc.JSON, &m); err != nil {
		t.Fatal(err)
	}
	return engine, m
}

var ginParam = regexp.MustCompile(`[:*]([A-Za-z0-9_]+)`)

// TestRoutesMatchDocument compares the engine's routes under /api/v1 with the document's
// operations, both ways: a route the document lacks, or an operation no route serves, fails. A
// HEAD route is implied by its GET (every GET route answers HEAD; the document lists GET only).
func TestRoutesMatchDocument(t *testing.T) {
	engine, doc := engineAndDocument(t)
	routes := map[string]bool{}
	for _, r := range engine.Routes() {
		if !strings.HasPrefix(r.Path, httpx.APIBase+"/") {
			continue
		}
		path := ginParam.ReplaceAllString(strings.TrimPrefix(r.Path, httpx.APIBase), "{$1}")
		routes[r.Method+" "+path] = true
	}
	for key := range routes {
		if path, ok := strings.CutPrefix(key, http.MethodHead+" "); ok && !routes[http.MethodGet+" "+path] {
			t.Errorf("HEAD %s has no GET route to be implied by", path)
		}
	}
	ops := map[string]bool{}
	for path, item := range doc["paths"].(map[string]any) {
		for method := range item.(map[string]any) {
			switch method {
			case "parameters", "summary", "description", "servers", "$ref":
				continue
			case "head":
				t.Errorf("the document lists HEAD %s; HEAD is implied by GET and not listed", path)
			}
			ops[strings.ToUpper(method)+" "+path] = true
		}
	}
	for key := range routes {
		if !ops[key] && !strings.HasPrefix(key, http.MethodHead+" ") {
			t.Errorf("route %s is not in the OpenAPI document (add it to the module's openapi.yaml)", key)
		}
	}
	for key := range ops {
		if !routes[key] {
			t.Errorf("the OpenAPI document lists %s, which no route serves", key)
		}
	}
	if len(ops) < 20 {
		t.Errorf("only %d operations found: %v", len(ops), slices.Sorted(maps.Keys(ops)))
	}
}
