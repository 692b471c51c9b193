package e2e

import (
	"net/http"
	"slices"
	"testing"

	"folio/tests/apitest"
)

// TestContentFidelity: nothing a user typed is silently dropped (issue 20). Each input reads back
// as the expected canonical Markdown, keeps its tags, and what was read back is accepted
// unchanged by PATCH (a fixed point); a lone surrogate escape is refused like invalid UTF-8; a
// host:port link says how to write it.
func TestContentFidelity(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
		tags           []string
	}{
		{
			name: "ragged table keeps the cell past the header, and its tag",
			in:   "| Owner | Status |\n|---|---|\n| @bob | done | shipped Tuesday #launch |",
			want: "| Owner | Status |  |\n| --- | --- | --- |\n| @bob | done | shipped Tuesday #launch |",
			tags: []string{"TAG:launch", "PERSON:bob"},
		},
		{
			name: "unused link reference definitions are kept as links",
			in:   "Links for later:\n\n[docs]: https://example.com/docs\n[api]: https://example.com/api",
			want: "Links for later:\n\n[docs](https://example.com/docs)\n[api](https://example.com/api)",
		},
		{
			name: "a definition alone",
			in:   "[foo]: /url",
			want: "[foo](/url)",
		},
		{
			name: "a duplicate definition keeps its URL",
			in:   "[a]: https://example.com/one\n[a]: https://example.com/two\n\nsee [a]",
			want: "[a](https://example.com/two)\n\nsee [a](https://example.com/one)",
		},
		{
			name: "a link with empty text keeps its URL",
			in:   "See [](https://example.com/important) for details",
			want: "See <https://example.com/important> for details",
		},
		{
			name: "task-list items read back as written",
			in:   "- [ ] send the deck #launch\n- [x] book the room\n- plain",
			want: "- [ ] send the deck #launch\n- [x] book the room\n- plain",
			tags: []string{"TAG:launch"},
		},
	}
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				created := apitest.Must(t, s.Post(t, w.annRW, "/notes", map[string]any{"content": tc.in, "notebookId": w.annNB}), http.StatusCreated)
				if got := created.Str(t, "content"); got != tc.want {
					t.Fatalf("content %q, want %q", got, tc.want)
				}
				tags := tagNames(t, created.JSON(t))
				for _, tag := range tc.tags {
					if !slices.Contains(tags, tag) {
						t.Fatalf("tags %v, want %s", tags, tag)
					}
				}
				path := "/notes/" + created.Str(t, "id")
				again := apitest.Must(t, patch(t, s, w.annRW, path, map[string]any{"content": tc.want}), http.StatusOK)
				if got := again.Str(t, "content"); got != tc.want {
					t.Fatalf("sending back what was read changed it: %q", got)
				}
				if got := apitest.Must(t, s.Get(t, w.annRW, path), http.StatusOK).Str(t, "content"); got != tc.want {
					t.Fatalf("GET reads %q", got)
				}
			})
		}
		t.Run("task notes keep task-list items too", func(t *testing.T) {
			in := "- [ ] call @ann\n- [x] draft"
			created := apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"title": "t", "notes": in, "notebookId": w.annNB}), http.StatusCreated)
			if got := created.Str(t, "notes"); got != in {
				t.Fatalf("notes %q, want %q", got, in)
			}
		})
		t.Run("a lone surrogate escape is refused like invalid UTF-8", func(t *testing.T) {
			for _, esc := range []string{`\ud800`, `\udfff`, `a\uD83D b`} {
				body := `{"content":"before ` + esc + ` after","notebookId":"` + w.annNB + `"}`
				r := s.Do(t, apitest.Request{Method: http.MethodPost, Path: "/notes", Key: w.annRW, Body: body})
				wantErr(t, r, http.StatusBadRequest, "VALIDATION_ERROR", "UTF-8", "surrogate")
			}
			// A pair is one character, and an escaped backslash before "ud800" is text.
			body := `{"content":"\ud83d\ude00 \\ud800","notebookId":"` + w.annNB + `"}`
			created := apitest.Must(t, s.Do(t, apitest.Request{Method: http.MethodPost, Path: "/notes", Key: w.annRW, Body: body}), http.StatusCreated)
			if got := created.Str(t, "content"); got != "😀 \\ud800" {
				t.Fatalf("content %q", got)
			}
		})
		t.Run("a host and port without a scheme says how to write it", func(t *testing.T) {
			r := s.Post(t, w.annRW, "/notes", map[string]any{"content": "dev server:\n\n<localhost:3000>", "notebookId": w.annNB})
			wantErr(t, r, http.StatusBadRequest, "INVALID_MARKDOWN", "content", "localhost", "line 3", "http://localhost:3000")
		})
	})
}
