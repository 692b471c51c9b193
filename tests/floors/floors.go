// Package floors is the floor rule of folio's code (README: three floors, arrows down only), as
// a check that tests run: app/TestFloors on the repository, and tests/plugin on a module that
// lives outside modules/.
//
// The rule: nothing under app/, modules/ or platform/ imports tests/ or cmd/; platform/ imports
// no module and no front end; a module imports no front end and no
// composition root, and another module only if that one is part of the kernel (which itself
// imports no domain module); a front end (app/<name>) imports no other front end and not the
// composition root.
package floors

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Kernel is the item kernel: the modules every domain module may import (app.Kernel wires
// them). A domain module reaches any other domain module only through a port it declares and
// app/ports.go binds, so a new domain module adds nothing here.
var Kernel = []string{"content", "document", "items", "journal", "search"}

// Floor is where a package stands: app (the composition root), frontend, module, platform or
// other, and the name of a front end or module.
type Floor struct{ Level, Name string }

// Of is the floor of a directory relative to the repository's root ("modules/notes").
func Of(dir string) Floor {
	parts := strings.Split(filepath.ToSlash(dir), "/")
	switch {
	case parts[0] == "app" && len(parts) == 1:
		return Floor{"app", ""}
	case parts[0] == "app":
		return Floor{"frontend", parts[1]}
	case parts[0] == "modules" && len(parts) > 1:
		return Floor{"module", parts[1]}
	case parts[0] == "platform":
		return Floor{"platform", ""}
	}
	return Floor{"other", dir}
}

// Forbidden says why an import from one floor to another breaks the rule, or "".
func Forbidden(from, to Floor) string {
	switch {
	case from.Level != "other" && to.Level == "other" && (strings.HasPrefix(to.Name, "tests") || strings.HasPrefix(to.Name, "cmd")):
		return "the product's code imports no test helper and no command"
	case from.Level == "platform" && to.Level != "platform" && to.Level != "other":
		return "platform/ is infrastructure and knows no module or front end"
	case from.Level == "module" && (to.Level == "app" || to.Level == "frontend"):
		return "a module never imports the floor above it (front ends call modules, not the reverse)"
	case from.Level == "module" && to.Level == "module" && to.Name != from.Name:
		if slices.Contains(Kernel, from.Name) && !slices.Contains(Kernel, to.Name) {
			return "the kernel imports no domain module"
		}
		if !slices.Contains(Kernel, to.Name) {
			return "a domain module reaches another only through a port: declare a narrow interface and bind it in app/ports.go"
		}
	case from.Level == "frontend" && to.Level == "frontend" && to.Name != from.Name:
		return "front ends stand beside each other: share through a module"
	case from.Level == "frontend" && to.Level == "app":
		return "the composition root imports the front ends, not the reverse"
	}
	return ""
}

// Violations walks dirs under root (the repository) and returns every import of a non-test Go
// file that breaks the rule.
func Violations(root string, dirs ...string) ([]string, error) {
	return walk(root, dirs, func(rel string) Floor { return Of(filepath.Dir(rel)) })
}

// ModuleViolations checks the Go files under dir, a module kept outside modules/ (a test's), as a
// domain module named after dir's last element.
func ModuleViolations(root, dir string) ([]string, error) {
	self := Floor{"module", filepath.Base(dir)}
	return walk(root, []string{dir}, func(string) Floor { return self })
}

func walk(root string, dirs []string, floorOf func(rel string) Floor) ([]string, error) {
	var out []string
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
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
			from := floorOf(rel)
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !strings.HasPrefix(p, "folio/") {
					continue
				}
				if why := Forbidden(from, Of(strings.TrimPrefix(p, "folio/"))); why != "" {
					out = append(out, fmt.Sprintf("%s imports %s: %s", filepath.ToSlash(rel), p, why))
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
