package e2e

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"folio/tests/apitest"
	"folio/tests/testenv"
	"folio/tests/ziptest"
)

// TestCLIImport: `folio import --email E FILE.zip` (CONTRACT.md section 24) imports as POST
// /import does and prints the same answer; `folio export` of one account imported into another
// gives back the same files (notebooks, notes, tasks); a hostile archive or an unknown account
// exits 1 with the reason and imports nothing.
func TestCLIImport(t *testing.T) {
	t.Parallel()
	bin := testenv.FolioBinary(t)
	apitest.EachDB(t, func(t *testing.T, kind string) {
		env, _ := installFolio(t, bin, kind)
		c := &cli{t: t, bin: bin, env: env}
		c.line("user", "create", "--email", "bob@example.com", "--name", "Bob")
		dir := t.TempDir()
		vault := filepath.Join(dir, "vault.zip")
		if err := os.WriteFile(vault, ziptest.Zip(t,
			ziptest.Entry{Name: "Work/Plan.md", Body: []byte("---\ntags: [plan]\n---\nShip it with @bob.\n\n![chart](chart.png)\n")},
			ziptest.Entry{Name: "Work/Call.md", Body: []byte("---\ndue: 2027-01-02\nstatus: done\n---\n")},
			ziptest.Entry{Name: "Work/chart.png", Body: []byte("\x89PNG\r\n\x1a\n")},
		), 0o600); err != nil {
			t.Fatal(err)
		}
		var answer struct {
			Created map[string]int
			Changed []map[string]string
			Skipped []map[string]string
		}
		if err := json.Unmarshal([]byte(c.ok("import", "--email", "ann@example.com", vault)), &answer); err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{"notebooks": 1, "notes": 1, "tasks": 1}; !reflect.DeepEqual(answer.Created, want) || len(answer.Skipped) != 1 || len(answer.Changed) == 0 {
			t.Fatalf("folio import answered %+v", answer)
		}

		// Ann's export, imported into Bob's account, exports as the same files.
		annZip, bobZip := filepath.Join(dir, "ann.zip"), filepath.Join(dir, "bob.zip")
		c.line("export", "--email", "ann@example.com", "--out", annZip)
		c.ok("import", "--email", "bob@example.com", annZip)
		c.line("export", "--email", "bob@example.com", "--out", bobZip)
		if ann, bob := zipShape(t, annZip), zipShape(t, bobZip); !reflect.DeepEqual(ann, bob) {
			t.Errorf("Bob's export %v differs from Ann's %v", bob, ann)
		}

		before := zipShape(t, annZip)
		bomb := filepath.Join(dir, "slip.zip")
		if err := os.WriteFile(bomb, ziptest.HostileZips(t)["zip-slip"].Zip, 0o600); err != nil {
			t.Fatal(err)
		}
		c.fails("a hostile archive", "zip-slip", "import", "--email", "ann@example.com", bomb)
		c.fails("an unknown account", "no account", "import", "--email", "nobody@example.com", vault)
		c.fails("no file", "import", "import", "--email", "ann@example.com", filepath.Join(dir, "missing.zip"))
		c.line("export", "--email", "ann@example.com", "--out", filepath.Join(dir, "ann2.zip"))
		if after := zipShape(t, filepath.Join(dir, "ann2.zip")); !reflect.DeepEqual(before, after) {
			t.Errorf("a refused import changed Ann's export: %v, then %v", before, after)
		}
	})
}

// zipShape is what an export holds, ids aside: the bytes of its notebook files, notes and tasks
// (ids and times have one length).
func zipShape(t *testing.T, path string) map[string]int {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string]int{}
	for _, f := range zr.File {
		kind := filepath.Base(filepath.Dir(f.Name)) // notes, tasks
		if filepath.Base(f.Name) == "notebook.yaml" {
			kind = "notebook"
		}
		out[kind] += int(f.UncompressedSize64)
	}
	return out
}
