package app_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// kernel is the item kernel: the modules every domain module may import (see app.Kernel). A
// domain module reaches any other domain module only through a port it declares and app/ports.go
// binds, so a new domain module adds nothing here.
var kernel = []string{"content", "items", "journal", "search"}

// TestFloors enforces the three floors, arrows down only, on every non-test Go file of the
// repository: platform/ imports no module and no front end; modules/ import no front end, and a
// module imports another only if that one is part of the kernel (which itself imports no domain
// module); a front end (app/<name>) imports no other front end and not the composition root.
func TestFloors(t *testing.T) {
	for _, v := range floorViolations(t, "..", "app", "modules", "platform") {
		t.Error(v)
	}
}

// floorViolations walks dirs under root and returns every import that breaks the floor rule.
func floorViolations(t *testing.T, root string, dirs ...string) []string {
	t.Helper()
	var out []string
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" && path != filepath.Join(root, dir) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			from := floorOf(filepath.ToSlash(filepath.Dir(rel)))
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !strings.HasPrefix(p, "folio/") {
					continue
				}
				if why := forbidden(from, floorOf(strings.TrimPrefix(p, "folio/"))); why != "" {
					out = append(out, fmt.Sprintf("%s imports %s: %s", rel, p, why))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// floor is where a package stands: its floor (app, frontend, module, platform, other) and, for a
// module or a front end, its name.
type floor struct{ level, name string }

func floorOf(dir string) floor {
	parts := strings.Split(dir, "/")
	for i, p := range parts {
		// A test's own module (app/testdata/comments) stands on the floor its parent folder names.
		if p == "testdata" && i+1 < len(parts) {
			parts = append([]string{"modules"}, parts[i+1:]...)
			break
		}
	}
	switch {
	case parts[0] == "app" && len(parts) == 1:
		return floor{"app", ""}
	case parts[0] == "app":
		return floor{"frontend", parts[1]}
	case parts[0] == "modules" && len(parts) > 1:
		return floor{"module", parts[1]}
	case parts[0] == "platform":
		return floor{"platform", ""}
	}
	return floor{"other", dir}
}

// forbidden says why an import from one floor to another breaks the rule, or "".
func forbidden(from, to floor) string {
	switch {
	case from.level == "platform" && to.level != "platform":
		return "platform/ is infrastructure and knows no module or front end"
	case from.level == "module" && (to.level == "app" || to.level == "frontend"):
		return "a module never imports the floor above it (front ends call modules, not the reverse)"
	case from.level == "module" && to.level == "module" && to.name != from.name:
		if slices.Contains(kernel, from.name) && !slices.Contains(kernel, to.name) {
			return "the kernel imports no domain module"
		}
		if !slices.Contains(kernel, to.name) {
			return "a domain module reaches another only through a port: declare a narrow interface and bind it in app/ports.go"
		}
	case from.level == "frontend" && to.level == "frontend" && to.name != from.name:
		return "front ends stand beside each other: share through a module"
	case from.level == "frontend" && to.level == "app":
		return "the composition root imports the front ends, not the reverse"
	}
	return ""
}
