package app_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// allowedModuleImports is every import of one module by another. Each is a binding: the consumer
// declares a narrow interface and its module.go binds it to the provider's public service (or, for
// accounts.Place, implements the interface accounts declares). Anything else a module needs from
// another goes through platform/ or through an interface bound in fx. Adding a line here is a design
// decision: say why beside it.
var allowedModuleImports = map[string][]string{
	// The MCP server is another front end of these modules, beside their HTTP handlers: its narrow
	// interfaces (mcp.Notes, ...) are bound to their services, and its tools answer with the
	// modules' own API responses (notes.ToResponse, ...).
	"mcp": {"notebooks", "notes", "suggestions", "tasks", "versions"},
	// The export reads the same lists (export.Notebooks, ... bound to their services) and writes
	// the modules' API responses (notes.ToExportResponse, ...) as front matter.
	"export": {"notebooks", "notes", "tasks"},
	// notebooks.Memberships <- workspaces.Service.
	"notebooks": {"workspaces"},
	// The settings UI is the accounts module's web front: settings.Accounts <- accounts.Service,
	// and its pages show accounts' types (users, keys, sessions). Its review pages are the
	// suggestions and versions modules' web front, as the MCP server is another: settings.Reviews
	// <- suggestions.Service, settings.Histories <- versions.History, showing their types. It
	// lists and deletes the user's webhooks beside the keys that own them (CONTRACT.md section
	// 20): settings.Webhooks <- webhooks.Service, showing webhooks.View and its reasons.
	"settings": {"accounts", "suggestions", "versions", "webhooks"},
	// workspaces.UserDirectory <- accounts.Directory.
	"workspaces": {"accounts"},
}

// TestModuleBoundaries reads the imports of every non-test Go file under modules/ and platform/ and
// fails on a module importing another outside allowedModuleImports, and on platform/ importing any
// module (the platform is what modules share; it knows none of them).
func TestModuleBoundaries(t *testing.T) {
	root := filepath.Join("..")
	var found []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "tests" || rel == ".git" || strings.HasSuffix(rel, "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if parts[0] != "modules" && parts[0] != "platform" {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			target, ok := strings.CutPrefix(p, "folio/modules/")
			if !ok {
				continue
			}
			target, _, _ = strings.Cut(target, "/")
			switch {
			case parts[0] == "platform":
				t.Errorf("%s imports %s: platform/ must not depend on a module", rel, p)
			case target == parts[1]:
			case !slices.Contains(allowedModuleImports[parts[1]], target):
				t.Errorf("%s imports %s: module %s may not import module %s (declare a narrow interface and bind it in fx, or move the shared type to platform/)", rel, p, parts[1], target)
			default:
				found = append(found, parts[1]+"->"+target)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A stale allowance is a boundary nobody checks any more: every allowed edge must exist.
	for from, tos := range allowedModuleImports {
		for _, to := range tos {
			if !slices.Contains(found, from+"->"+to) {
				t.Errorf("allowedModuleImports lists %s -> %s, which no file imports any more: remove it", from, to)
			}
		}
	}
}
