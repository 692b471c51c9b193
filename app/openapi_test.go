package app_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
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
	engine, m, _ := engineAndParts(t)
	return engine, m
}

// engineAndParts is engineAndDocument with the document's owner of each path.
func engineAndParts(t *testing.T) (*gin.Engine, map[string]any, map[string]string) {
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
	return engine, m, doc.Owners
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

const (
	tableBegin = "<!-- endpoints: generated from the OpenAPI document by TestReadmeEndpointTable -->"
	tableEnd   = "<!-- endpoints: end -->"
)

// endpointTable is docs/api.md's endpoint table, made from the document: one row per operation
// (method, path, summary), by path, then GET, POST, PATCH, DELETE.
func endpointTable(t *testing.T, doc map[string]any, owners map[string]string) string {
	order := []string{"get", "post", "put", "patch", "delete"}
	paths := slices.Sorted(maps.Keys(doc["paths"].(map[string]any)))
	var b strings.Builder
	b.WriteString("| Method | Path | Module | What it does |\n|---|---|---|---|\n")
	for _, path := range paths {
		item := doc["paths"].(map[string]any)[path].(map[string]any)
		for _, m := range order {
			op, ok := item[m].(map[string]any)
			if !ok {
				continue
			}
			summary, _ := op["summary"].(string)
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", strings.ToUpper(m), path, folderOf(t, owners[path]), summary)
		}
	}
	return b.String()
}

// TestReadmeEndpointTable: docs/api.md's table of endpoints is the document's, so it cannot drift.
// FOLIO_UPDATE_README=1 rewrites it.
func TestReadmeEndpointTable(t *testing.T) {
	_, doc, owners := engineAndParts(t)
	for path, item := range doc["paths"].(map[string]any) {
		for m, op := range item.(map[string]any) {
			if o, ok := op.(map[string]any); ok && o["summary"] == nil {
				t.Errorf("%s %s has no summary", strings.ToUpper(m), path)
			}
		}
	}
	want := endpointTable(t, doc, owners)
	raw, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	before, rest, ok1 := strings.Cut(readme, tableBegin+"\n")
	got, after, ok2 := strings.Cut(rest, tableEnd)
	if !ok1 || !ok2 {
		t.Fatalf("docs/api.md has no endpoint table between %q and %q", tableBegin, tableEnd)
	}
	if got == want {
		return
	}
	if os.Getenv("FOLIO_UPDATE_README") == "1" {
		if err := os.WriteFile("../docs/api.md", []byte(before+tableBegin+"\n"+want+tableEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/api.md's endpoint table is not the document's (run with FOLIO_UPDATE_README=1 to rewrite it); want:\n%s", want)
}

// folderOf is where the part named name lives: a module's folder, a front end's, or the
// platform's base fragment ("").
func folderOf(t *testing.T, name string) string {
	t.Helper()
	if name == "" {
		return "`platform/apidoc`"
	}
	for _, dir := range []string{"../modules/", "../app/"} {
		if st, err := os.Stat(dir + name); err == nil && st.IsDir() {
			return "`" + strings.TrimPrefix(dir, "../") + name + "`"
		}
	}
	t.Errorf("the OpenAPI part %q has no folder under modules/ or app/", name)
	return name
}
