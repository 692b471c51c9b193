package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"folio/tests/apitest"
)

// TestCreatedHasLocation: every 201 carries Location with the created resource's path
// (CONTRACT.md section 11); where the API reads the resource at that path, GET on it answers it.
func TestCreatedHasLocation(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		dave := s.NewUser(t, "Dave Invited")
		type created struct {
			name, path string
			body       any
			want       func(r apitest.Response) string // the Location the response must carry
			readable   bool                            // GET Location answers the resource
		}
		byID := func(prefix string) func(r apitest.Response) string {
			return func(r apitest.Response) string { return "/api/v1/" + prefix + "/" + r.Str(t, "id") }
		}
		note := apitest.Must(t, s.Post(t, w.annRW, "/notes", map[string]any{"content": "n", "notebookId": w.annNB}), http.StatusCreated).Str(t, "id")
		task := apitest.Must(t, s.Post(t, w.annRW, "/tasks", map[string]any{"title": "t", "notebookId": w.annNB}), http.StatusCreated).Str(t, "id")
		for _, tc := range []created{
			{"note", "/notes", map[string]any{"content": "x", "notebookId": w.annNB}, byID("notes"), true},
			{"task", "/tasks", map[string]any{"title": "x", "notebookId": w.annNB}, byID("tasks"), true},
			{"notebook", "/notebooks", map[string]any{"name": "x"}, byID("notebooks"), true},
			{"workspace", "/workspaces", map[string]any{"name": "x"}, byID("workspaces"), false},
			{"note suggestion", "/notes/" + note + "/suggest", map[string]any{"content": "y"}, byID("suggestions"), false},
			{"task suggestion", "/tasks/" + task + "/suggest", map[string]any{"content": "y"}, byID("suggestions"), false},
			{"membership", "/workspaces/" + w.team + "/members", map[string]any{"email": dave.Email}, func(apitest.Response) string {
				return "/api/v1/workspaces/" + w.team + "/members/" + dave.ID
			}, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := apitest.Must(t, s.Post(t, w.annRW, tc.path, tc.body), http.StatusCreated)
				want := tc.want(r)
				if got := r.Header.Get("Location"); got != want {
					t.Fatalf("Location %q, want %q", got, want)
				}
				if tc.readable {
					got := apitest.Must(t, s.Get(t, w.annRW, strings.TrimPrefix(want, "/api/v1")), http.StatusOK)
					if got.Str(t, "id") != r.Str(t, "id") {
						t.Fatalf("GET %s answered %s", want, got.Body)
					}
				}
			})
		}
		// An invitation of someone who already belongs creates nothing: 200, no Location.
		r := apitest.Must(t, s.Post(t, w.annRW, "/workspaces/"+w.team+"/members", map[string]any{"email": dave.Email}), http.StatusOK)
		if loc := r.Header.Get("Location"); loc != "" {
			t.Fatalf("a 200 carries Location %q", loc)
		}
	})
}

// TestJSONDoesNotEscapeHTML: JSON bodies show <, > and & as written, not as \u003c, \u003e,
// \u0026 (CONTRACT.md section 11): Markdown is full of `>`, and a client reading curl output
// should see it. Success bodies, lists and error messages alike.
func TestJSONDoesNotEscapeHTML(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		content := "> **Decision:** ship if a < b && b > c"
		r := apitest.Must(t, s.Post(t, w.annRW, "/notes", map[string]any{"content": content, "notebookId": w.annNB}), http.StatusCreated)
		list := apitest.Must(t, s.Get(t, w.annRW, "/notes"), http.StatusOK)
		bad := s.Post(t, w.annRW, "/notes", `{"content": "x", "notebookId": "`+w.annNB+`", "<&>": 1}`)
		apitest.CheckEnvelope(t, bad, http.StatusBadRequest, "VALIDATION_ERROR")
		for name, body := range map[string][]byte{"created note": r.Body, "list": list.Body, "error": bad.Body} {
			for _, escaped := range []string{`\u003c`, `\u003e`, `\u0026`} {
				if bytes.Contains(body, []byte(escaped)) {
					t.Errorf("%s: body escapes %s: %s", name, escaped, body)
				}
			}
		}
		var note struct{ Content string }
		if err := json.Unmarshal(r.Body, &note); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(r.Body, []byte("a < b && b > c")) || !strings.HasPrefix(note.Content, "> ") {
			t.Fatalf("the content's <, > and & are not in the body as written: %s", r.Body)
		}
		if !bytes.Contains(bad.Body, []byte(`<&>`)) {
			t.Fatalf("the error message does not name the field as sent: %s", bad.Body)
		}
	})
}
