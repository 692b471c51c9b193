package e2e

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"folio/modules/document"
	"folio/tests/apitest"
)

// TestStoredTextsOnEveryReadPath (issue 35): the Markdown every read returns is the text stored
// at write time, byte for byte what rendering the stored tree gives (what the reads returned
// when they rendered), over the codec's golden and tricky inputs, on a note, a page of notes, a
// task, a version, a suggestion, the inbox and the Focus view. Rows whose texts are not current
// (rows older than the text columns, or written by an older codec: codec 0 here) read the same
// bytes, rendered from their trees; the re-render then writes their texts, and the reads are the
// same again.
func TestStoredTextsOnEveryReadPath(t *testing.T) {
	t.Parallel()
	var inputs []string
	for _, glob := range []string{"golden/*.md", "tricky/*.md"} {
		files, err := filepath.Glob(filepath.Join("../../platform/markdown/testdata", glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, string(b))
		}
	}
	if len(inputs) < 100 {
		t.Fatalf("%d inputs: the codec's corpus was not found", len(inputs))
	}
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		var notes []string
		for _, in := range inputs {
			r := s.Post(t, w.annRW, "/notes", map[string]any{"content": in, "notebookId": w.teamNB, "targetAt": "2026-12-01"})
			if r.Status == http.StatusBadRequest { // refused by the codec
				continue
			}
			notes = append(notes, apitest.Must(t, r, http.StatusCreated).Str(t, "id"))
		}
		task := apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"title": "T", "notes": inputs[0], "notebookId": w.teamNB}),
			http.StatusCreated).Str(t, "id")
		apitest.Must(t, s.Do(t, apitest.Request{Method: http.MethodPatch, Path: "/notes/" + notes[0], Key: w.annRW, Body: map[string]any{"content": "Replaced, so that the corpus text is a version"}}), http.StatusOK)
		version := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+notes[0]+"/versions"), http.StatusOK).Data(t)[0]["id"].(string)
		suggestion := apitest.Must(t, s.Post(t, w.annRW, "/notes/"+notes[1]+"/suggest", map[string]any{"content": inputs[2]}),
			http.StatusCreated).Str(t, "id")

		// Every note's content is the render of its stored tree.
		for _, id := range notes {
			var tree []byte
			if err := s.DB.Raw("SELECT content FROM notes WHERE id = ?", id).Row().Scan(&tree); err != nil {
				t.Fatal(err)
			}
			want, err := document.Render(tree)
			if err != nil {
				t.Fatal(err)
			}
			if got := apitest.Must(t, s.Get(t, w.annRW, "/notes/"+id), http.StatusOK).Str(t, "content"); got != want {
				t.Fatalf("note %s reads\n%q\nits tree renders\n%q", id, got, want)
			}
		}

		reads := func() map[string]string {
			out := map[string]string{}
			get := func(path string) {
				out[path] = string(apitest.Must(t, s.Get(t, w.annRW, path), http.StatusOK).Body)
			}
			for _, id := range notes {
				get("/notes/" + id)
			}
			for cursor := ""; ; {
				path := "/notes?limit=100"
				if cursor != "" {
					path += "&cursor=" + url.QueryEscape(cursor)
				}
				get(path)
				next, _ := apitest.Must(t, s.Get(t, w.annRW, path), http.StatusOK).JSON(t)["nextCursor"].(string)
				if next == "" {
					break
				}
				cursor = next
			}
			get("/tasks/" + task)
			get("/tasks")
			get("/notes/" + notes[0] + "/versions/" + version)
			get("/suggestions/" + suggestion)
			get("/suggestions")
			get("/focus?date=2026-12-01&tz=UTC")
			return out
		}
		before := reads()

		// Rows as an older codec left them: the reads render their trees, to the same bytes.
		for _, stmt := range []string{
			"UPDATE notes SET content_markdown = 'stale', content_codec = 0",
			"UPDATE tasks SET notes_markdown = 'stale', notes_codec = 0",
			"UPDATE snapshots SET document_markdown = 'stale', document_codec = 0",
			"UPDATE suggestions SET original_content_markdown = 'stale', original_content_codec = 0, suggested_content_markdown = 'stale', suggested_content_codec = 0",
		} {
			if err := s.DB.Exec(stmt).Error; err != nil {
				t.Fatal(err)
			}
		}
		same := func(when string, got map[string]string) {
			t.Helper()
			paths := make([]string, 0, len(before))
			for p := range before {
				paths = append(paths, p)
			}
			sort.Strings(paths)
			for _, p := range paths {
				if got[p] != before[p] {
					t.Fatalf("%s: GET %s\n%s\nwas\n%s", when, p, got[p], before[p])
				}
			}
		}
		same("texts not current", reads())

		if err := s.Rerender.All(context.Background()); err != nil {
			t.Fatal(err)
		}
		var left int64
		if err := s.DB.Raw(`SELECT (SELECT count(*) FROM notes WHERE content_codec <> ?) + (SELECT count(*) FROM tasks WHERE notes_codec <> ?)
			+ (SELECT count(*) FROM snapshots WHERE document_codec <> ?)
			+ (SELECT count(*) FROM suggestions WHERE original_content_codec <> ? OR suggested_content_codec <> ?)`,
			document.Codec, document.Codec, document.Codec, document.Codec, document.Codec).Row().Scan(&left); err != nil {
			t.Fatal(err)
		}
		if left != 0 {
			t.Fatalf("%d rows left with texts not current after the re-render", left)
		}
		same("re-rendered", reads())
	})
}
