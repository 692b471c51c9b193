package e2e

import (
	"bytes"
	"crypto/rand"
	"io"
	"maps"
	mrand "math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"folio/platform/config"
	"folio/tests/apitest"
	"folio/tests/ziptest"
)

// The import (CONTRACT.md section 24): POST /import reads a ZIP of Markdown back into notebooks,
// notes and tasks.

// importZip sends a ZIP to POST /import (path may carry ?notebookId=).
func importZip(t testing.TB, s *apitest.Server, key, path string, zip []byte, header ...string) apitest.Response {
	t.Helper()
	h := map[string]string{"Content-Type": "application/zip"}
	for i := 0; i+1 < len(header); i += 2 {
		h[header[i]] = header[i+1]
	}
	return s.Do(t, apitest.Request{Method: http.MethodPost, Path: path, Key: key, Body: zip, Header: h})
}

// everything is what a key reads of its user's data: every list, archived items included, and
// the audit log and the change feed. An import refused must leave it as it was.
func everything(t testing.TB, s *apitest.Server, key string) string {
	t.Helper()
	var b strings.Builder
	for _, p := range []string{"/notebooks?limit=100", "/notes?limit=100", "/notes?archived=true&limit=100", "/tasks?limit=100",
		"/tasks?archived=true&limit=100", "/audit-log?limit=100", "/events?limit=100"} {
		b.Write(apitest.Must(t, s.Get(t, key, p), http.StatusOK).Body)
	}
	return b.String()
}

// allItems lists every note or task (kind "notes", "tasks") a key reads, archived ones too.
func allItems(t testing.TB, s *apitest.Server, key, kind string) []map[string]any {
	t.Helper()
	return append(walk(t, s, key, "/"+kind, 100), walk(t, s, key, "/"+kind+"?archived=true", 100)...)
}

// TestImportRoundTrip: an export imported into another account gives the same notebooks (names
// and colours), notes and tasks with the same content, tags and mentions, dates (createdAt and
// updatedAt too), archived flags, statuses and priorities; nothing is changed or skipped; and
// every create is audited and in the feed as any create.
func TestImportRoundTrip(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		empty := apitest.Must(t, s.Post(t, w.annRW, "/notebooks", map[string]any{"name": "Empty: 1/2", "color": "teal"}), http.StatusCreated).Str(t, "id")
		apitest.Must(t, s.Post(t, w.annRW, "/notes", map[string]any{"content": "# Plan\n\nShip with @bob.smith. #launch\n\n> **Decision:** go\n\n- [ ] a `#notatag` item",
			"notebookId": w.annNB, "targetAt": "2026-12-01", "followUpAt": "2026-12-05T09:30:00+02:00"}), http.StatusCreated)
		old := createNote(t, s, w.annRW, w.annNB, "old idea #someday\n\n| a | b |\n|---|---|\n| 1 | 2 |")["id"].(string)
		apitest.Must(t, patch(t, s, w.annRW, "/notes/"+old, map[string]any{"archived": true}), http.StatusOK)
		createNote(t, s, w.annRW, w.teamNB, "true") // a body YAML would read as a boolean
		gone := createNote(t, s, w.annRW, w.teamNB, "deleted")["id"].(string)
		apitest.Must(t, s.Delete(t, w.annRW, "/notes/"+gone), http.StatusOK)
		apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"title": "Call @carl: budget", "notes": "about #budget", "notebookId": w.teamNB,
			"status": "IN_PROGRESS", "priority": "HIGH", "dueAt": "2026-12-24", "targetAt": "2026-12-20"}), http.StatusCreated)
		done := apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"title": "2026-01-01", "notebookId": w.teamNB, "status": "DONE", "priority": "LOW"}), http.StatusCreated).Str(t, "id")
		apitest.Must(t, patch(t, s, w.annRW, "/tasks/"+done, map[string]any{"archived": true}), http.StatusOK)

		export := apitest.Must(t, s.Get(t, w.annRW, "/export"), http.StatusOK).Body
		dora := s.NewUser(t, "Dora Importer")
		key := s.NewKey(t, dora, 3)
		r := apitest.Must(t, importZip(t, s, key, "/import", export), http.StatusCreated)
		body := r.JSON(t)
		if want := map[string]any{"notebooks": 3.0, "notes": 3.0, "tasks": 2.0}; !reflect.DeepEqual(body["created"], want) {
			t.Fatalf("created %v, want %v", body["created"], want)
		}
		if len(body["changed"].([]any)) != 0 || len(body["skipped"].([]any)) != 0 {
			t.Fatalf("a round trip changed or skipped files: %s", r.Body)
		}
		if r.Header.Get("Location") != "/api/v1/notebooks" {
			t.Errorf("Location %q for three notebooks", r.Header.Get("Location"))
		}

		// The notebooks: same names and colours, personal (Team's notebook too: the import
		// makes personal notebooks).
		byName := map[string]map[string]any{}
		for _, nb := range walk(t, s, key, "/notebooks", 100) {
			byName[nb["name"].(string)] = nb
		}
		annNotebook := map[string]string{} // Ann's notebook id → Dora's
		for _, id := range []string{w.annNB, w.teamNB, empty} {
			ann := apitest.Must(t, s.Get(t, w.annRW, "/notebooks/"+id), http.StatusOK).JSON(t)
			mine := byName[ann["name"].(string)]
			if mine == nil || mine["color"] != ann["color"] || mine["workspaceId"] != nil {
				t.Fatalf("notebook %v came back as %v (Dora has %v)", ann, mine, slices.Collect(maps.Keys(byName)))
			}
			annNotebook[id] = mine["id"].(string)
		}
		if len(byName) != 3 {
			t.Fatalf("Dora has notebooks %v", slices.Collect(maps.Keys(byName)))
		}

		// The items: every field but the ids, tags by name and kind.
		same := func(kind, by string) {
			theirs := allItems(t, s, w.annRW, kind)
			mine := map[string]map[string]any{}
			for _, it := range allItems(t, s, key, kind) {
				mine[it[by].(string)] = it
			}
			if len(mine) != len(theirs) {
				t.Fatalf("%s: Dora has %d, Ann %d", kind, len(mine), len(theirs))
			}
			for _, a := range theirs {
				d := mine[a[by].(string)]
				if d == nil {
					t.Fatalf("%s: %q did not come back", kind, a[by])
				}
				if d["notebookId"] != annNotebook[a["notebookId"].(string)] {
					t.Errorf("%s %q: in notebook %v, want %v", kind, a[by], d["notebookId"], annNotebook[a["notebookId"].(string)])
				}
				strip := func(m map[string]any) map[string]any {
					c := maps.Clone(m)
					delete(c, "id")
					delete(c, "notebookId")
					var tags []string
					for _, tag := range c["tags"].([]any) {
						tm := tag.(map[string]any)
						tags = append(tags, tm["kind"].(string)+":"+tm["name"].(string))
					}
					c["tags"] = tags
					return c
				}
				if got, want := strip(d), strip(a); !reflect.DeepEqual(got, want) {
					t.Errorf("%s %q:\n got  %v\n want %v", kind, a[by], got, want)
				}
			}
		}
		same("notes", "content")
		same("tasks", "title")

		// As any create: audited, and in the change feed.
		actions := map[string]int{}
		for _, e := range walk(t, s, key, "/audit-log", 100) {
			actions[e["action"].(string)]++
		}
		if want := map[string]int{"notebook.create": 3, "note.create": 3, "task.create": 2}; !reflect.DeepEqual(actions, want) {
			t.Errorf("audit log %v, want %v", actions, want)
		}
		types := map[string]int{}
		for _, e := range apitest.Must(t, s.Get(t, key, "/events?limit=100"), http.StatusOK).Data(t) {
			types[e["type"].(string)]++
		}
		if want := map[string]int{"notebook.created": 3, "note.created": 3, "task.created": 2}; !reflect.DeepEqual(types, want) {
			t.Errorf("events %v, want %v", types, want)
		}
	})
}

// TestImportMarkdownFolder: a vault of another tool: folders become notebooks (the one folder
// around everything gives its name to the files directly in it: Vault, Projects), front matter is
// mapped (tags, created, a due date makes a task), an image becomes a link listed under changed,
// and what is not a note (the image file, the tool's settings) is listed under skipped.
func TestImportMarkdownFolder(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key, mine := ownWorld(t, s)
		png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)
		vault := ziptest.Zip(t,
			ziptest.Entry{Name: "Vault/Projects/Alpha.md", Body: []byte("---\ntags: [project/alpha, q3]\ncreated: 2024-01-05T10:00:00Z\naliases: [A]\n---\nKick-off with @dana.\n\n![diagram](img/diagram.png)\n")},
			ziptest.Entry{Name: "Vault/Projects/img/diagram.png", Body: png},
			ziptest.Entry{Name: "Vault/Call Bob.md", Body: []byte("---\ndue: 2024-02-01\npriority: high\n---\nAbout #budget\n")},
			ziptest.Entry{Name: "Vault/.obsidian/app.json", Body: []byte("{}")},
			// An attachment that is a ZIP inside (an Office document): skipped, not a nested archive.
			ziptest.Entry{Name: "Vault/Projects/spec.docx", Body: ziptest.Zip(t, ziptest.Entry{Name: "word/document.xml", Body: []byte("<w/>")}), Stored: true},
		)
		r := apitest.Must(t, importZip(t, s, key, "/import", vault), http.StatusCreated)
		body := r.JSON(t)
		if want := map[string]any{"notebooks": 2.0, "notes": 1.0, "tasks": 1.0}; !reflect.DeepEqual(body["created"], want) {
			t.Fatalf("created %v, want %v: %s", body["created"], want, r.Body)
		}
		said := func(list, file, field string, words ...string) {
			t.Helper()
			for _, e := range body[list].([]any) {
				m := e.(map[string]any)
				if m["file"] != file {
					continue
				}
				all := true
				for _, w := range words {
					all = all && strings.Contains(m[field].(string), w)
				}
				if all {
					return
				}
			}
			t.Errorf("%s does not say %v of %s: %s", list, words, file, r.Body)
		}
		said("changed", "Vault/Projects/Alpha.md", "what", "image", "link", "line 8") // the file's line
		said("changed", "Vault/Projects/Alpha.md", "what", "aliases")
		said("changed", "Vault/Projects/Alpha.md", "what", "#project-alpha #q3")
		said("changed", "Vault/Projects/Alpha.md", "what", "heading")
		said("skipped", "Vault/Projects/img/diagram.png", "why", "image")
		said("skipped", "Vault/.obsidian/app.json", "why", "hidden")
		said("skipped", "Vault/Projects/spec.docx", "why", "not a Markdown file")
		if n := len(body["skipped"].([]any)); n != 3 {
			t.Errorf("%d skipped, want 3: %s", n, r.Body)
		}

		names := map[string]string{}
		for _, nb := range walk(t, s, key, "/notebooks", 100) {
			names[nb["id"].(string)] = nb["name"].(string)
		}
		notes := walk(t, s, key, "/notes", 100)
		if len(notes) != 1 {
			t.Fatalf("notes %v", notes)
		}
		n := notes[0]
		wantContent := "# Alpha\n\nKick-off with @dana.\n\n[diagram](img/diagram.png)\n\n#project-alpha #q3"
		if n["content"] != wantContent || names[n["notebookId"].(string)] != "Projects" || n["createdAt"] != "2024-01-05T10:00:00.000Z" {
			t.Errorf("the note: %v in %q, want content %q in Projects", n, names[n["notebookId"].(string)], wantContent)
		}
		tasks := walk(t, s, key, "/tasks", 100)
		if len(tasks) != 1 || tasks[0]["title"] != "Call Bob" || tasks[0]["priority"] != "HIGH" || tasks[0]["dueAt"] != "2024-02-01T00:00:00.000Z" ||
			names[tasks[0]["notebookId"].(string)] != "Vault" || tasks[0]["notes"] != "About #budget" {
			t.Errorf("the task: %v", tasks)
		}

		// Into a notebook given: no notebook made, Location is that notebook.
		r = apitest.Must(t, importZip(t, s, key, "/import?notebookId="+mine, vault), http.StatusCreated)
		if got := r.JSON(t)["created"]; !reflect.DeepEqual(got, map[string]any{"notebooks": 0.0, "notes": 1.0, "tasks": 1.0}) || r.Header.Get("Location") != "/api/v1/notebooks/"+mine {
			t.Errorf("into a notebook: %v, Location %q", got, r.Header.Get("Location"))
		}
		if got := listIDs(t, s, key, "/notes?notebookId="+mine); len(got) != 1 {
			t.Errorf("the notebook holds notes %v", got)
		}
	})
}

// TestImportHostileArchives: each kind of hostile archive (CONTRACT.md section 24) is 400
// VALIDATION_ERROR naming what is wrong, and nothing is written: not a notebook, not a note, not
// an audit entry, not an event.
func TestImportHostileArchives(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key, _ := ownWorld(t, s)
		before := everything(t, s, key)
		hostile := ziptest.HostileZips(t)
		// Over 50 MB: a stored file of random bytes (nothing to compress), with a note beside it.
		big := make([]byte, 50_000_000)
		if _, err := rand.Read(big); err != nil {
			t.Fatal(err)
		}
		hostile["over 50 MB"] = ziptest.Hostile{Zip: ziptest.Zip(t, ziptest.Entry{Name: "ok.md", Body: []byte("# fine")}, ziptest.Entry{Name: "big.md", Body: big, Stored: true}), Says: "50 MB"}
		for _, name := range slices.Sorted(maps.Keys(hostile)) {
			t.Run(name, func(t *testing.T) {
				h := hostile[name]
				wantErr(t, importZip(t, s, key, "/import", h.Zip), http.StatusBadRequest, "VALIDATION_ERROR", h.Says)
				if after := everything(t, s, key); after != before {
					t.Fatalf("a refused import wrote:\n before %s\n after  %s", before, after)
				}
			})
		}
	})
}

// TestImportRefusals: what the import checks besides the archive: its content type, that it is a
// ZIP, the notebook named (the codes of CONTRACT.md section 6), that a notebook-scoped key cannot
// make notebooks, and the item limit, which refuses the whole import. An Idempotency-Key replays
// an import without importing again.
func TestImportRefusals(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		three := ziptest.Zip(t, ziptest.Entry{Name: "a.md", Body: []byte("a")}, ziptest.Entry{Name: "b.md", Body: []byte("b")}, ziptest.Entry{Name: "c.md", Body: []byte("c")})
		before := everything(t, s, w.annRW)
		wantErr(t, s.Do(t, apitest.Request{Method: http.MethodPost, Path: "/import", Key: w.annRW, Body: three}), http.StatusBadRequest, "VALIDATION_ERROR", "application/zip")
		wantErr(t, importZip(t, s, w.annRW, "/import", []byte("# not a zip")), http.StatusBadRequest, "VALIDATION_ERROR", "not a ZIP")
		wantErr(t, importZip(t, s, w.annRW, "/import", nil), http.StatusBadRequest, "VALIDATION_ERROR", "not a ZIP")
		wantErr(t, importZip(t, s, w.annRW, "/import?notebookId=nope", three), http.StatusNotFound, "NOTEBOOK_NOT_FOUND")
		wantErr(t, importZip(t, s, w.annRW, "/import?notebookId="+w.carlNB, three), http.StatusNotFound, "NOTEBOOK_NOT_FOUND")
		wantErr(t, importZip(t, s, w.annTeamNB, "/import", three), http.StatusForbidden, "INSUFFICIENT_SCOPE", "notebookId")
		wantErr(t, importZip(t, s, w.annTeamNB, "/import?notebookId="+w.annNB, three), http.StatusForbidden, "KEY_NOTEBOOK_MISMATCH")
		wantErr(t, importZip(t, s, w.annRead, "/import", three), http.StatusForbidden, "INSUFFICIENT_SCOPE")
		if after := everything(t, s, w.annRW); after != before {
			t.Fatalf("a refused import wrote:\n before %s\n after  %s", before, after)
		}

		// An Idempotency-Key: the retry is the first answer, and imports nothing more.
		first := apitest.Must(t, importZip(t, s, w.annRW, "/import?notebookId="+w.annNB, three, "Idempotency-Key", "import-once"), http.StatusCreated)
		again := apitest.Must(t, importZip(t, s, w.annRW, "/import?notebookId="+w.annNB, three, "Idempotency-Key", "import-once"), http.StatusCreated)
		if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.Body, again.Body) {
			t.Errorf("the retry: replayed %q, %s", again.Header.Get("Idempotent-Replayed"), again.Body)
		}
		if n := len(listIDs(t, s, w.annRW, "/notes?notebookId="+w.annNB)); n != 3 {
			t.Errorf("%d notes after an import and its retry, want 3", n)
		}
	})
}

// TestImportItemLimit: an import that would pass a notebook's item limit is 403
// ITEM_LIMIT_REACHED and imports nothing, not even the notebook it made or the items that fit.
func TestImportItemLimit(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key, mine := ownWorld(t, s)
		before := everything(t, s, key)
		three := ziptest.Zip(t, ziptest.Entry{Name: "f/a.md", Body: []byte("a")}, ziptest.Entry{Name: "f/b.md", Body: []byte("b")}, ziptest.Entry{Name: "f/c.md", Body: []byte("c")})
		wantErr(t, importZip(t, s, key, "/import", three), http.StatusForbidden, "ITEM_LIMIT_REACHED")
		wantErr(t, importZip(t, s, key, "/import?notebookId="+mine, three), http.StatusForbidden, "ITEM_LIMIT_REACHED")
		if after := everything(t, s, key); after != before {
			t.Fatalf("a refused import wrote:\n before %s\n after  %s", before, after)
		}
		two := ziptest.Zip(t, ziptest.Entry{Name: "f/a.md", Body: []byte("a")}, ziptest.Entry{Name: "f/b.md", Body: []byte("b")})
		apitest.Must(t, importZip(t, s, key, "/import", two), http.StatusCreated)
	}, func(c *config.Config) { c.NotebookItemLimit = 2 })
}

// TestImportNoServerError: archives and files of every odd shape are imported or refused with a
// 4xx envelope, never a 5xx: not-quite ZIPs, folders only, names that repeat, front matter that is
// a YAML alias bomb or of the wrong types, Markdown over every limit, folder names a notebook
// cannot take.
func TestImportNoServerError(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key, _ := ownWorld(t, s)
		md := func(name, body string) ziptest.Entry { return ziptest.Entry{Name: name, Body: []byte(body)} }
		bomb := "---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
		for i, prev := 0, "a"; i < 9; i++ {
			name := string(rune('b' + i))
			bomb += name + ": &" + name + " [*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + "]\n"
			prev = name
		}
		bomb += "---\nboom\n"
		valid := ziptest.Zip(t, md("a.md", "a"))
		cases := map[string][]byte{
			"PK and noise":        append([]byte("PK\x03\x04"), bytes.Repeat([]byte{0xff}, 100)...),
			"truncated ZIP":       valid[:len(valid)/2],
			"empty ZIP":           ziptest.Zip(t),
			"folders only":        ziptest.Zip(t, ziptest.Entry{Name: "a/"}, ziptest.Entry{Name: "a/b/"}),
			"the same name twice": ziptest.Zip(t, md("n/x.md", "one"), md("n/x.md", "two")),
			"alias bomb":          ziptest.Zip(t, md("bomb.md", bomb)),
			"front matter types": ziptest.Zip(t, md("t.md", "---\ntitle: [1, 2]\ntags: {a: b}\ncreated: 99999999999\ndue: [2024-01-01]\nstatus: {x: 1}\narchived: maybe\npriority: 7\n---\nbody"),
				md("u.md", "---\n- a list\n- not a map\n---\nbody"), md("v.md", "---\n---\n"), md("w.md", "---\nno end"), md("x.md", "---\ncreated: 0001-01-01\ndue: 10000-01-01\n---\n")),
			"Markdown over limits": ziptest.Zip(t, md("long.md", randomWords(30_000)), md("deep.md", strings.Repeat("> ", 40)+"deep"),
				md("images.md", strings.Repeat("![i](i.png)\n", 250)), md("nul.md", "a\x00b"), md("latin1.md", "caf\xe9"),
				md("schemes.md", "[a](javascript:alert(1)) <file:///etc/passwd> [r]\n\n[r]: data:text/html,x\n")),
			"NUL by YAML escape": ziptest.Zip(t, md("t.md", "---\ntype: task\ntitle: \"a\\0b\"\n---\n"), md("n.md", "---\ntitle: \"a\\x00b\"\n---\nbody\n"),
				md("x-abcdefghijklmnopqrstuvwx/notebook.yaml", "name: \"nul\\0\"\n"), md("x-abcdefghijklmnopqrstuvwx/notes/n.md", "n")),
			"names notebooks cannot take": ziptest.Zip(t, md(strings.Repeat("long folder name ", 10)+"/a.md", "a"), md("   /b.md", "b"),
				md("emoji 🚀 folder/c.md", "c"), md("x-abcdefghijklmnopqrstuvwx/notebook.yaml", "name: [not, a, string]\ncolor: 7\n"),
				md("x-abcdefghijklmnopqrstuvwx/notes/n.md", "n"), md("y-bcdefghijklmnopqrstuvwxy/notebook.yaml", "name: Fine\ncolor: ultraviolet\n")),
		}
		for _, name := range slices.Sorted(maps.Keys(cases)) {
			t.Run(name, func(t *testing.T) {
				r := importZip(t, s, key, "/import", cases[name])
				t.Logf("%d %s", r.Status, r.Body)
				if r.Status >= 500 || (r.Status != http.StatusCreated && r.Status != http.StatusBadRequest) {
					t.Fatalf("%d: %s", r.Status, r.Body)
				}
				if r.Status == http.StatusBadRequest {
					apitest.CheckEnvelope(t, r, http.StatusBadRequest, "VALIDATION_ERROR")
				}
			})
		}
	})
}

// randomWords is n short words of random letters: text that compresses as prose does.
func randomWords(n int) string {
	var b strings.Builder
	for range n {
		for range 1 + mrand.IntN(8) {
			b.WriteByte(byte('a' + mrand.IntN(26)))
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// TestImportTakesTurns: a server runs one import at a time (imports.Concurrent). While one is
// under way (its body still arriving), another waits before its body is read and goes on once the
// first is done; one that waits longer than FOLIO_IMPORT_WAIT is 503 with Retry-After and imports
// nothing.
func TestImportTakesTurns(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		key, mine := ownWorld(t, s)
		// send posts body as an import, with the headers given as name, value pairs, and gives its
		// status (0 when it could not be sent).
		send := func(body io.Reader, headers ...string) chan int {
			out := make(chan int, 1)
			go func() {
				req, err := http.NewRequest(http.MethodPost, s.URL+"/api/v1/import?notebookId="+mine, body)
				if err != nil {
					t.Error(err)
					out <- 0
					return
				}
				req.Header.Set("Content-Type", "application/zip")
				req.Header.Set("Authorization", "Bearer "+key)
				for i := 0; i+1 < len(headers); i += 2 {
					req.Header.Set(headers[i], headers[i+1])
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Errorf("an import: %v", err)
					out <- 0
					return
				}
				defer resp.Body.Close()
				_, _ = io.Copy(io.Discard, resp.Body)
				out <- resp.StatusCode
			}()
			return out
		}
		// hold starts an import whose body arrives slowly: 24 MB of it (more than the loopback's
		// socket buffers hold, so the server has read part of it: the import has its turn), then
		// a pause until the returned function ends it (24 MB of zeros are no ZIP: 400).
		hold := func() (chan int, func()) {
			pr, pw := io.Pipe()
			t.Cleanup(func() { _ = pw.Close() }) // a failed assertion must not leave the server waiting
			done := send(pr)
			if _, err := pw.Write(make([]byte, 24<<20)); err != nil {
				t.Fatal(err)
			}
			return done, func() { _ = pw.Close() }
		}
		small := ziptest.Zip(t, ziptest.Entry{Name: "a.md", Body: []byte("a")})
		notes := func() int { return len(listIDs(t, s, key, "/notes?notebookId="+mine)) }
		// answered waits for an import's status and checks it.
		answered := func(what string, status chan int, want int) {
			t.Helper()
			if got := <-status; got != want {
				t.Fatalf("%s: %d, want %d", what, got, want)
			}
		}

		first, release := hold()
		second := send(bytes.NewReader(small))
		select {
		case status := <-second:
			t.Fatalf("the second import was answered (%d) while the first was under way", status)
		case <-time.After(time.Second):
		}
		release()
		answered("the first import", first, http.StatusBadRequest)
		answered("the second import", second, http.StatusCreated)
		if n := notes(); n != 1 {
			t.Fatalf("%d notes imported, want 1", n)
		}

		// An import with an Idempotency-Key (whose middleware reads the body to hash it) waits
		// before its body is read: 24 MB cannot be sent while the first holds the turn.
		first, release = hold()
		pr, pw := io.Pipe()
		t.Cleanup(func() { _ = pw.Close() })
		keyed := send(pr, "Idempotency-Key", "import-turn")
		written := make(chan error, 1)
		go func() {
			_, err := pw.Write(make([]byte, 24<<20))
			written <- err
		}()
		select {
		case err := <-written:
			t.Fatalf("the waiting import's 24 MB body was read (write error %v) while the first held the turn", err)
		case status := <-keyed:
			t.Fatalf("the import with an Idempotency-Key was answered (%d) while the first was under way", status)
		case <-time.After(time.Second):
		}
		release()
		answered("the first import", first, http.StatusBadRequest)
		if err := <-written; err != nil {
			t.Fatalf("the keyed import's body, once it had its turn: %v", err)
		}
		_ = pw.Close()
		answered("the keyed import of 24 MB of zeros", keyed, http.StatusBadRequest)

		// Waiting longer than FOLIO_IMPORT_WAIT (3 s here): 503 with Retry-After, nothing written.
		first, release = hold()
		began := time.Now()
		busy := importZip(t, s, key, "/import?notebookId="+mine, small)
		wantErr(t, busy, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE", "another import is under way")
		if ra := busy.Header.Get("Retry-After"); ra != "60" {
			t.Fatalf("an import that waited too long: Retry-After %q, want 60", ra)
		}
		if waited := time.Since(began); waited < 3*time.Second {
			t.Fatalf("the 503 came after %v, before FOLIO_IMPORT_WAIT", waited)
		}
		release()
		<-first
		// Every turn was given back: another import is answered at once.
		apitest.Must(t, importZip(t, s, key, "/import?notebookId="+mine, small), http.StatusCreated)
		if n := notes(); n != 2 {
			t.Fatalf("%d notes imported, want 2", n)
		}
	}, func(c *config.Config) { c.ImportWait = 3 * time.Second })
}
