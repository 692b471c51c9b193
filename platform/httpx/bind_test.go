package httpx_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"folio/platform/apierr"
	"folio/platform/httpx"
)

// bindTarget exercises every kind of field Bind supports.
type bindTarget struct {
	Name     string                 `json:"name" binding:"required"`
	Count    int                    `json:"count"`
	Done     bool                   `json:"done"`
	Labels   []string               `json:"labels"`
	Ref      httpx.Optional[string] `json:"ref" nullable:"true"`
	Archived httpx.Optional[bool]   `json:"archived"`
	bindShared
	Ignored string                    `json:"-"`
	Meta    httpx.Optional[[]float64] `json:"meta"`
	httpx.Echoes[echoedResponse]
}

// bindShared is a set of fields embedded in bindTarget, as two requests share one: Bind reads them
// as bindTarget's own, in their place.
type bindShared struct {
	Due httpx.Optional[string] `json:"dueAt" nullable:"true"`
	Ptr *string                `json:"ptr"`
}

// echoedResponse is what bindTarget's client reads back: its fields that bindTarget lacks are
// "set by the server".
type echoedResponse struct {
	ID                string   `json:"id"`
	Name              string   `json:"name"`
	HasDecision       bool     `json:"hasDecision"`
	Tags              []string `json:"tags"`
	CreatedAt         string   `json:"createdAt"`
	UpdatedAt         string   `json:"updatedAt"`
	PendingSuggestion *string  `json:"pendingSuggestion"`
}

func bindRequest(t *testing.T, contentType, body string, wrap func(*http.Request, http.ResponseWriter)) (bindTarget, error) {
	t.Helper()
	gin.SetMode(gin.TestMode)
	w := httptest.NewRecorder()
	c, _ := gin.CreateTestContext(w)
	req := httptest.NewRequest(http.MethodPost, "/things", strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if wrap != nil {
		wrap(req, w)
	}
	c.Request = req
	var dst bindTarget
	err := httpx.Bind(c, &dst)
	return dst, err
}

func TestBindAccepts(t *testing.T) {
	for _, tc := range []struct {
		name        string
		contentType string
		body        string
		check       func(t *testing.T, got bindTarget)
	}{
		{name: "only the required field", body: `{"name":"a"}`, check: func(t *testing.T, got bindTarget) {
			if got.Name != "a" || got.Count != 0 || got.Ref.Present || got.Archived.Present || got.Ptr != nil {
				t.Fatalf("got %+v", got)
			}
		}},
		{name: "every field", body: `{"name":"a","count":3,"done":true,"labels":["x","y"],"ref":"r","archived":false,"dueAt":"2026-01-02","ptr":"p","meta":[1.5]}`,
			check: func(t *testing.T, got bindTarget) {
				if got.Count != 3 || !got.Done || len(got.Labels) != 2 || got.Labels[1] != "y" || *got.Ptr != "p" {
					t.Fatalf("got %+v", got)
				}
				if !got.Ref.Present || got.Ref.Null || got.Ref.Value != "r" {
					t.Fatalf("ref: %+v", got.Ref)
				}
				if !got.Archived.Present || got.Archived.Null || got.Archived.Value {
					t.Fatalf("archived false must be present and false: %+v", got.Archived)
				}
				if !got.Meta.Present || len(got.Meta.Value) != 1 || got.Meta.Value[0] != 1.5 {
					t.Fatalf("meta: %+v", got.Meta)
				}
			}},
		{name: "explicit null on a nullable optional", body: `{"name":"a","ref":null,"dueAt":null}`, check: func(t *testing.T, got bindTarget) {
			if !got.Ref.Present || !got.Ref.Null || !got.Due.Present || !got.Due.Null {
				t.Fatalf("null must be present and null: %+v %+v", got.Ref, got.Due)
			}
		}},
		{name: "content type with charset", contentType: "application/json; charset=utf-8", body: `{"name":"a"}`, check: func(t *testing.T, got bindTarget) {
			if got.Name != "a" {
				t.Fatalf("got %+v", got)
			}
		}},
		{name: "content type in upper case", contentType: "Application/JSON", body: `{"name":"a"}`, check: func(t *testing.T, got bindTarget) {
			if got.Name != "a" {
				t.Fatalf("got %+v", got)
			}
		}},
		{name: "surrounding whitespace", body: " \n\t{\"name\":\"a\"}\n ", check: func(t *testing.T, got bindTarget) {
			if got.Name != "a" {
				t.Fatalf("got %+v", got)
			}
		}},
		{name: "empty string is present, not missing", body: `{"name":""}`, check: func(t *testing.T, got bindTarget) {
			if got.Name != "" {
				t.Fatalf("got %+v", got)
			}
		}},
		{name: "surrogate pair escape", body: `{"name":"\ud83d\ude00 \\ud800 \"\\\" \u00e9"}`, check: func(t *testing.T, got bindTarget) {
			if got.Name != `😀 \ud800 "\" é` {
				t.Fatalf("got %q", got.Name)
			}
		}},
		{name: "unicode and escapes", body: `{"name":"caf\u00e9 \"q\" 日本"}`, check: func(t *testing.T, got bindTarget) {
			if got.Name != `café "q" 日本` {
				t.Fatalf("got %q", got.Name)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := tc.contentType
			if ct == "" {
				ct = "application/json"
			}
			got, err := bindRequest(t, ct, tc.body, nil)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			tc.check(t, got)
		})
	}
}

func TestBindRejects(t *testing.T) {
	const json = "application/json"
	for _, tc := range []struct {
		name        string
		contentType string
		body        string
		wrap        func(*http.Request, http.ResponseWriter)
		code        string
		mention     string // the message must contain this (the field, or what is wrong)
	}{
		{name: "no content type", body: `{"name":"a"}`, code: apierr.CodeValidation, mention: "Content-Type"},
		{name: "text/plain", contentType: "text/plain", body: `{"name":"a"}`, code: apierr.CodeValidation, mention: "Content-Type"},
		{name: "form", contentType: "application/x-www-form-urlencoded", body: `name=a`, code: apierr.CodeValidation, mention: "Content-Type"},
		{name: "json suffix type", contentType: "application/merge-patch+json", body: `{"name":"a"}`, code: apierr.CodeValidation, mention: "Content-Type"},
		{name: "malformed content type", contentType: "application/json; ;", body: `{"name":"a"}`, code: apierr.CodeValidation, mention: "Content-Type"},
		{name: "empty body", contentType: json, body: ``, code: apierr.CodeValidation, mention: "JSON object"},
		{name: "whitespace body", contentType: json, body: "  \n", code: apierr.CodeValidation, mention: "JSON object"},
		{name: "array body", contentType: json, body: `[{"name":"a"}]`, code: apierr.CodeValidation, mention: "JSON object"},
		{name: "string body", contentType: json, body: `"name"`, code: apierr.CodeValidation, mention: "JSON object"},
		{name: "number body", contentType: json, body: `42`, code: apierr.CodeValidation, mention: "JSON object"},
		{name: "null body", contentType: json, body: `null`, code: apierr.CodeValidation, mention: "JSON object"},
		{name: "malformed JSON", contentType: json, body: `{"name":`, code: apierr.CodeValidation, mention: "not valid JSON"},
		{name: "single quotes", contentType: json, body: `{'name':'a'}`, code: apierr.CodeValidation, mention: "not valid JSON"},
		{name: "trailing comma", contentType: json, body: `{"name":"a",}`, code: apierr.CodeValidation, mention: "not valid JSON"},
		{name: "trailing garbage", contentType: json, body: `{"name":"a"} x`, code: apierr.CodeValidation, mention: "exactly one JSON object"},
		{name: "two objects", contentType: json, body: `{"name":"a"}{"name":"b"}`, code: apierr.CodeValidation, mention: "exactly one JSON object"},
		{name: "trailing brace", contentType: json, body: `{"name":"a"}}`, code: apierr.CodeValidation, mention: "exactly one JSON object"},
		{name: "invalid UTF-8", contentType: json, body: "{\"name\":\"\xff\"}", code: apierr.CodeValidation, mention: "UTF-8"},
		{name: "lone high surrogate", contentType: json, body: `{"name":"a\ud800b"}`, code: apierr.CodeValidation, mention: "surrogate"},
		{name: "lone high surrogate at the end", contentType: json, body: `{"name":"\uD800"}`, code: apierr.CodeValidation, mention: "surrogate"},
		{name: "lone low surrogate", contentType: json, body: `{"name":"\udc00"}`, code: apierr.CodeValidation, mention: "surrogate"},
		{name: "reversed pair", contentType: json, body: `{"name":"\ude00\ud83d"}`, code: apierr.CodeValidation, mention: "surrogate"},
		{name: "high surrogate before a non-surrogate escape", contentType: json, body: `{"name":"\ud800\u0041"}`, code: apierr.CodeValidation, mention: "surrogate"},
		{name: "lone surrogate in a field name", contentType: json, body: `{"name":"a","\udfff":1}`, code: apierr.CodeValidation, mention: "surrogate"},
		{name: "wrong type: number for string", contentType: json, body: `{"name":5}`, code: apierr.CodeValidation, mention: `"name"`},
		{name: "wrong type: string for number", contentType: json, body: `{"name":"a","count":"3"}`, code: apierr.CodeValidation, mention: `"count"`},
		{name: "wrong type: fraction for integer", contentType: json, body: `{"name":"a","count":1.5}`, code: apierr.CodeValidation, mention: `"count"`},
		{name: "wrong type: string for boolean", contentType: json, body: `{"name":"a","done":"true"}`, code: apierr.CodeValidation, mention: `"done"`},
		{name: "wrong type: object for array", contentType: json, body: `{"name":"a","labels":{}}`, code: apierr.CodeValidation, mention: `"labels"`},
		{name: "wrong type in an optional", contentType: json, body: `{"name":"a","archived":"yes"}`, code: apierr.CodeValidation, mention: `"archived"`},
		{name: "wrong type: array for string", contentType: json, body: `{"name":["a"]}`, code: apierr.CodeValidation, mention: `"name"`},
		{name: "unknown field", contentType: json, body: `{"name":"a","colour":"red"}`, code: apierr.CodeValidation, mention: `"colour"`},
		{name: "field name is case-sensitive", contentType: json, body: `{"Name":"a"}`, code: apierr.CodeValidation, mention: `"Name"`},
		{name: "json:\"-\" field is unknown", contentType: json, body: `{"name":"a","-":"x"}`, code: apierr.CodeValidation, mention: `"-"`},
		{name: "server field id", contentType: json, body: `{"name":"a","id":"x"}`, code: apierr.CodeValidation, mention: `"id" is set by the server`},
		{name: "server field createdAt", contentType: json, body: `{"name":"a","createdAt":"2026-01-01"}`, code: apierr.CodeValidation, mention: `"createdAt"`},
		{name: "server field updatedAt", contentType: json, body: `{"name":"a","updatedAt":"2026-01-01"}`, code: apierr.CodeValidation, mention: `"updatedAt"`},
		{name: "server field hasDecision", contentType: json, body: `{"name":"a","hasDecision":true}`, code: apierr.CodeValidation, mention: `"hasDecision"`},
		{name: "server field tags", contentType: json, body: `{"name":"a","tags":[]}`, code: apierr.CodeValidation, mention: `"tags" is set by the server`},
		{name: "a field of no echoed response is unknown", contentType: json, body: `{"name":"a","members":[]}`, code: apierr.CodeValidation, mention: `unknown field "members"`},
		{name: "server field pendingSuggestion", contentType: json, body: `{"name":"a","pendingSuggestion":null}`, code: apierr.CodeValidation, mention: `"pendingSuggestion"`},
		{name: "unknown field even when the required one is missing", contentType: json, body: `{"bogus":1}`, code: apierr.CodeValidation, mention: `"bogus"`},
		{name: "missing required field", contentType: json, body: `{}`, code: apierr.CodeMissingField, mention: `"name"`},
		{name: "missing required field among others", contentType: json, body: `{"count":1}`, code: apierr.CodeMissingField, mention: `"name"`},
		{name: "null required field", contentType: json, body: `{"name":null}`, code: apierr.CodeMissingField, mention: `"name"`},
		{name: "null required field with spaces", contentType: json, body: `{"name": null }`, code: apierr.CodeMissingField, mention: `"name"`},
		{name: "null on a plain field", contentType: json, body: `{"name":"a","count":null}`, code: apierr.CodeValidation, mention: `"count"`},
		{name: "null on a non-nullable optional", contentType: json, body: `{"name":"a","archived":null}`, code: apierr.CodeValidation, mention: `"archived"`},
		{name: "body over the limit", contentType: json, body: `{"name":"` + strings.Repeat("a", httpx.MaxBodyBytes) + `"}`,
			wrap: func(r *http.Request, w http.ResponseWriter) {
				r.Body = http.MaxBytesReader(w, r.Body, httpx.MaxBodyBytes)
			},
			code: apierr.CodeValidation, mention: "1 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := bindRequest(t, tc.contentType, tc.body, tc.wrap)
			var ae *apierr.Error
			if !errors.As(err, &ae) {
				t.Fatalf("got %+v, err %v; want %s", got, err, tc.code)
			}
			if ae.Status != http.StatusBadRequest || ae.Code != tc.code {
				t.Fatalf("got %d %s (%s), want 400 %s", ae.Status, ae.Code, ae.Message, tc.code)
			}
			if !strings.Contains(ae.Message, tc.mention) {
				t.Fatalf("message %q does not mention %s", ae.Message, tc.mention)
			}
		})
	}
}

// TestBindDoesNotLeakInternals checks that a decoding failure's message says what is wrong with the
// request, not which Go type the server decodes into.
func TestBindDoesNotLeakInternals(t *testing.T) {
	for _, body := range []string{`{"name":5}`, `{"name":"a","count":"x"}`, `{"name":"a","labels":[1]}`, `{"name":`} {
		_, err := bindRequest(t, "application/json", body, nil)
		var ae *apierr.Error
		if !errors.As(err, &ae) {
			t.Fatalf("%s: %v", body, err)
		}
		for _, leak := range []string{"bindTarget", "httpx", "Go value", "struct", "int64"} {
			if strings.Contains(ae.Message, leak) {
				t.Errorf("%s: message %q leaks %q", body, ae.Message, leak)
			}
		}
	}
}

func TestBindRejectsNULOutsideMarkdown(t *testing.T) {
	type req struct {
		Name    string                 `json:"name"`
		Title   httpx.Optional[string] `json:"title"`
		Content string                 `json:"content" markdown:"true"`
		Notes   httpx.Optional[string] `json:"notes" markdown:"true"`
	}
	for _, tc := range []struct{ body, wantField string }{
		{`{"name":"a\u0000b"}`, "name"},
		{`{"title":"\u0000"}`, "title"},
		{`{"content":"a\u0000b","notes":"\u0000"}`, ""},
	} {
		gin.SetMode(gin.TestMode)
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		c.Request = httptest.NewRequest(http.MethodPost, "/things", strings.NewReader(tc.body))
		c.Request.Header.Set("Content-Type", "application/json")
		var r req
		err := httpx.Bind(c, &r)
		if tc.wantField == "" {
			if err != nil {
				t.Errorf("%s: markdown fields must reach the codec, got %v", tc.body, err)
			}
			continue
		}
		var ae *apierr.Error
		if !errors.As(err, &ae) || ae.Code != apierr.CodeValidation || !strings.Contains(ae.Message, tc.wantField) || !strings.Contains(ae.Message, "NUL") {
			t.Errorf("%s: got %v, want a VALIDATION_ERROR naming %q", tc.body, err, tc.wantField)
		}
	}
}

// TestBindIfAny: an empty or blank body is no body, whatever its Content-Type; any other is bound
// strictly, as by Bind.
func TestBindIfAny(t *testing.T) {
	gin.SetMode(gin.TestMode)
	for _, tc := range []struct {
		name, contentType, body string
		wantGiven               bool
		wantErr                 string
	}{
		{"no body", "", "", false, ""},
		{"blank body as text", "text/plain", " \n", false, ""},
		{"blank JSON body", "application/json", "  ", false, ""},
		{"an object", "application/json", `{"name":"x"}`, true, ""},
		{"an empty object", "application/json", `{}`, true, `field "name" is required`},
		{"not JSON", "text/plain", `hunks=1`, true, "Content-Type must be application/json"},
		{"an unknown field", "application/json", `{"other":1}`, true, `unknown field "other"`},
		{"null", "application/json", ` null `, false, ""},
		{"an array", "application/json", `[]`, true, "the request body must be a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := gin.CreateTestContext(httptest.NewRecorder())
			c.Request = httptest.NewRequest(http.MethodPost, "/things", strings.NewReader(tc.body))
			if tc.contentType != "" {
				c.Request.Header.Set("Content-Type", tc.contentType)
			}
			var dst bindTarget
			given, err := httpx.BindIfAny(c, &dst)
			msg := ""
			if err != nil {
				var ae *apierr.Error
				if !errors.As(err, &ae) {
					t.Fatalf("error %v", err)
				}
				msg = ae.Message
			}
			if given != tc.wantGiven || msg != tc.wantErr {
				t.Fatalf("BindIfAny = %v, %q; want %v, %q", given, msg, tc.wantGiven, tc.wantErr)
			}
			if tc.body == `{"name":"x"}` && dst.Name != "x" {
				t.Fatalf("bound %+v", dst)
			}
		})
	}
}
