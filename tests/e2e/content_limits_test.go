package e2e

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"folio/tests/apitest"
)

// TestContentStoredLength: the 100,000-character limit applies to the canonical Markdown the
// service stores and returns, not only to what the client sends (issue 11). A 40,020-character
// note of one reference definition with a 20,000-character destination used 5,000 times was
// stored as a 100 MB document; "**a " × 25,000 read back as 149,999 characters that PATCH then
// refused. Over the limit is 400 VALIDATION_ERROR naming the field and saying why; what is
// accepted reads back within the limit and can be sent back unchanged.
func TestContentStoredLength(t *testing.T) {
	t.Parallel()
	bomb := "[x]: /" + strings.Repeat("a", 20_000) + "\n\n" + strings.Repeat("[x] ", 5_000)
	escapes := strings.Repeat("**a ", 25_000)
	table := strings.Repeat("|a", 500) + "\n" + strings.Repeat("|-", 500) + "\n" + strings.Repeat("x\n", 1_000)
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		note := "/notes/" + newContent(t, s, w.annRW, "note", w.annNB, "short")
		task := "/tasks/" + newContent(t, s, w.annRW, "task", w.annNB, "short")
		for _, tc := range textWrites(w, note, task) {
			send := func(t *testing.T, text string) apitest.Response { return tc.send(t, s, w, text) }
			t.Run(tc.name+": reference-link bomb", func(t *testing.T) {
				wantErr(t, send(t, bomb), http.StatusBadRequest, "VALIDATION_ERROR",
					`"`+tc.field+`"`, "100,000 characters once stored", "reference link", "line 3")
			})
			t.Run(tc.name+": escaping growth", func(t *testing.T) {
				wantErr(t, send(t, escapes), http.StatusBadRequest, "VALIDATION_ERROR",
					`"`+tc.field+`"`, "149,999 characters once stored", "limit 100,000")
			})
			t.Run(tc.name+": table padding", func(t *testing.T) {
				wantErr(t, send(t, table), http.StatusBadRequest, "VALIDATION_ERROR", `"`+tc.field+`"`, "table")
			})
		}
		// Nothing of the refused requests was stored.
		if got := apitest.Must(t, s.Get(t, w.annRW, note), http.StatusOK).Str(t, "content"); got != "short" {
			t.Fatalf("the note changed: %.80q", got)
		}

		// Inputs whose Markdown grows but stays within the limit are accepted, read back within
		// it, and what was read back is accepted unchanged by PATCH.
		for _, tc := range []struct{ name, text string }{
			{"escapes near the limit", strings.Repeat("**a ", 16_000)},                                                             // reads back as 95,999
			{"merged uses of a long destination", "[x]: /" + strings.Repeat("a", 49_000) + "\n\n" + strings.Repeat("[x]", 16_000)}, // 98 KB, reads back 57,006
		} {
			t.Run(tc.name, func(t *testing.T) {
				created := apitest.Must(t, s.Post(t, w.annRW, "/notes", map[string]any{"content": tc.text, "notebookId": w.annNB}), http.StatusCreated)
				back := created.Str(t, "content")
				if n := utf8.RuneCountInString(back); n > 100_000 {
					t.Fatalf("read back %d characters", n)
				}
				path := "/notes/" + created.Str(t, "id")
				again := apitest.Must(t, patch(t, s, w.annRW, path, map[string]any{"content": back}), http.StatusOK).Str(t, "content")
				if again != back {
					t.Fatalf("sending back what was read changed it")
				}
				if got := apitest.Must(t, s.Get(t, w.annRW, path), http.StatusOK).Str(t, "content"); got != back {
					t.Fatalf("GET differs from what was read back")
				}
			})
		}
	})
}

// TestContentSizes: note content, task notes and suggested content hold exactly 100,000 characters
// (code points, whatever their UTF-8 length) and refuse 100,001; a task title 500 and a rationale
// 2,000. What is accepted comes back whole.
func TestContentSizes(t *testing.T) {
	t.Parallel()
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		note := "/notes/" + newContent(t, s, w.annRW, "note", w.annNB, "short")
		task := "/tasks/" + newContent(t, s, w.annRW, "task", w.annNB, "short")
		for _, ch := range []string{"a", "é", "€", "😀"} {
			exact, over := strings.Repeat(ch, 100_000), strings.Repeat(ch, 100_001)
			for _, tc := range textWrites(w, note, task) {
				t.Run(tc.name+" "+ch, func(t *testing.T) {
					send := func(text string) apitest.Response { return tc.send(t, s, w, text) }
					wantErr(t, send(over), http.StatusBadRequest, "VALIDATION_ERROR", tc.field)
					r := send(exact)
					if r.Status != http.StatusOK && r.Status != http.StatusCreated {
						t.Fatalf("exactly 100,000 characters: %d %.300s", r.Status, r.Body)
					}
					field := tc.field
					if strings.HasSuffix(tc.path, "/suggest") {
						field = "suggestedContent"
					}
					if got := r.Str(t, field); got != exact {
						t.Fatalf("%s came back with %d characters, not the 100,000 sent", field, utf8.RuneCountInString(got))
					}
				})
			}
		}
		for _, tc := range []struct {
			name      string
			path      string
			body      map[string]any
			field     string
			exact, ok int
		}{
			{"task title", "/tasks", map[string]any{"notebookId": w.annNB}, "title", 500, http.StatusCreated},
			{"rationale", note + "/suggest", map[string]any{"content": "x"}, "rationale", 2000, http.StatusCreated},
		} {
			for _, ch := range []string{"a", "ü", "🦀"} {
				tc.body[tc.field] = strings.Repeat(ch, tc.exact)
				if got := apitest.Must(t, s.Post(t, w.annRW, tc.path, tc.body), tc.ok).Str(t, tc.field); got != tc.body[tc.field] {
					t.Fatalf("%s of %d %q came back as %d characters", tc.name, tc.exact, ch, utf8.RuneCountInString(got))
				}
				tc.body[tc.field] = strings.Repeat(ch, tc.exact+1)
				wantErr(t, s.Post(t, w.annRW, tc.path, tc.body), http.StatusBadRequest, "VALIDATION_ERROR", tc.field)
			}
		}
	})
}

// textWrite is a request that writes Markdown: a create, a PATCH or a suggestion on a note or a task.
type textWrite struct {
	name, method, path, field string
	extra                     map[string]any // the rest of the body
}

// send sends text in the request's Markdown field, as Ann.
func (tw textWrite) send(t *testing.T, s *apitest.Server, w *world, text string) apitest.Response {
	t.Helper()
	body := map[string]any{tw.field: text}
	for k, v := range tw.extra {
		body[k] = v
	}
	return s.Do(t, apitest.Request{Method: tw.method, Path: tw.path, Key: w.annRW, Body: body})
}

// textWrites are every request that writes Markdown, on Ann's note and task (paths) in her
// personal notebook.
func textWrites(w *world, note, task string) []textWrite {
	return []textWrite{
		{"create note", "POST", "/notes", "content", map[string]any{"notebookId": w.annNB}},
		{"patch note", "PATCH", note, "content", nil},
		{"create task", "POST", "/tasks", "notes", map[string]any{"title": "t", "notebookId": w.annNB}},
		{"patch task", "PATCH", task, "notes", nil},
		{"suggest on a note", "POST", note + "/suggest", "content", nil},
		{"suggest on a task", "POST", task + "/suggest", "content", nil},
	}
}
